package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Named in-memory stores: each survives close and reopen within the JVM, like a store on disk;
 * and a wait for the collector.
 */
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

    /** @return the URI of a new store whose node named "root" holds {@code any} */
    static String storeWithRootHolding(Object any) {
        String uri = newUri();
        try (PersistentStore store = open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(any);
                store.persist(root, "root");
            });
        }
        return uri;
    }

    /**
     * Runs the JVM's collector, up to 100 times with a pause, until every reference is cleared;
     * the caller asserts that they were, so that a test cannot pass without the collection.
     */
    static void awaitCollected(WeakReference<?>... refs) throws InterruptedException {
        for (int i = 0; i < 100 && Arrays.stream(refs).anyMatch(r -> r.get() != null); i++) {
            System.gc();
            Thread.sleep(10);
        }
    }
}
