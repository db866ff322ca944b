package io.perpetua.kernel;

import io.perpetua.PersistentStore;

import java.util.concurrent.atomic.AtomicInteger;

/** Named in-memory stores: each survives close and reopen within the JVM, like a store on disk. */
final class TestStores {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private TestStores() {
    }

    /** @return a fresh store URI, unique in this JVM */
    static String newUri() {
        return "memory:kernel-test-" + COUNTER.incrementAndGet();
    }

    static PersistentStore open(String uri) {
        return PersistentStore.open(uri);
    }
}
