package io.perpetua.memory;

import io.perpetua.StorageException;
import io.perpetua.StoreLockedException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the memory backend does beyond the shared contract ({@link MemoryBackendContractTest}). */
class MemoryBackendTest {

    private static String uniqueName() {
        return "test-" + UUID.randomUUID();
    }

    /**
     * {@code memory:} alone is not a valid {@link URI} (an empty scheme-specific part), so the
     * anonymous store is opened through {@code memory:?}: an empty location, no options.
     */
    private static Backend anonymous() {
        return Backends.open(URI.create("memory:?"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A name holding '%', '#' or a space: its location is a URI that opens the same store. */
    @Test
    void aNamedStoresLocationReopensIt() {
        for (String uri : List.of("memory:memory-test-a%2541", "memory:memory-test-shop%231", "memory:memory-test-x%20y")) {
            String location;
            try (Backend b = Backends.open(URI.create(uri))) {
                location = b.location();
                assertEquals(uri, location);
                WriteSet w = new WriteSet();
                w.bind("here", 1);
                b.commit(w);
            }
            try (Backend again = Backends.open(URI.create(location))) {
                assertEquals(1L, again.names().get("here"), location);
            }
        }
    }

    @Test
    void serviceLoaderFindsTheProvider() {
        assertInstanceOf(MemoryBackendProvider.class, Backends.provider("memory"));
        try (Backend backend = anonymous()) {
            assertInstanceOf(MemoryBackend.class, backend);
        }
    }

    @Test
    void anonymousStoresAreFreshAndIndependent() {
        try (Backend a = anonymous(); Backend b = anonymous()) {
            long id = a.allocateIds(1);
            a.commit(new WriteSet().put(id, bytes("only in a")).bind("root", id));
            assertNull(b.read(id));
            assertEquals(0, b.lookup("root"));
            assertNotEquals(a.location(), b.location());
        }
        try (Backend c = anonymous()) {
            assertEquals(0, c.statistics().objects(), "an anonymous store is gone when closed");
        }
    }

    @Test
    void namedStoreKeepsContentsAndIdCounterAcrossReopen() {
        String name = uniqueName();
        long id;
        try (Backend backend = MemoryBackend.open(name)) {
            assertEquals("memory:" + name, backend.location());
            id = backend.allocateIds(10);
            backend.commit(new WriteSet().put(id, bytes("kept")).bind("root", id).classDescriptor(1, bytes("d")));
        }
        try (Backend backend = Backends.open(URI.create("memory:" + name))) {
            assertArrayEquals(bytes("kept"), backend.read(id));
            assertEquals(id, backend.lookup("root"));
            assertTrue(backend.allocateIds(1) >= id + 10, "ids handed out before the reopen are not reused");
        }
    }

    @Test
    void secondOpenOfAnOpenNamedStoreIsLocked() {
        String name = uniqueName();
        Backend first = Backends.open(URI.create("memory:" + name));
        StoreLockedException e = assertThrows(StoreLockedException.class,
                () -> Backends.open(URI.create("memory:" + name)));
        assertEquals("memory:" + name, e.location());
        first.close();
        try (Backend again = Backends.open(URI.create("memory:" + name))) {
            again.allocateIds(1);
        }
        first.close(); // idempotent, and must not release the store held by someone else
    }

    @Test
    void idempotentCloseDoesNotReleaseAStoreReopenedMeanwhile() {
        String name = uniqueName();
        Backend first = MemoryBackend.open(name);
        first.close();
        try (Backend second = MemoryBackend.open(name)) {
            first.close();
            assertThrows(StoreLockedException.class, () -> MemoryBackend.open(name));
            second.allocateIds(1);
        }
    }

    @Test
    void concurrentOpensOfOneNameLetExactlyOneIn() throws Exception {
        String name = uniqueName();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Backend>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    try {
                        return MemoryBackend.open(name);
                    } catch (StoreLockedException e) {
                        return null;
                    }
                }));
            }
            start.countDown();
            // Close only after every thread has tried, so that no one gets in after a close.
            List<Backend> opened = new ArrayList<>();
            for (Future<Backend> f : results) {
                Backend b = f.get(1, TimeUnit.MINUTES);
                if (b != null) {
                    opened.add(b);
                }
            }
            opened.forEach(Backend::close);
            assertEquals(1, opened.size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void optionsAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.open(URI.create("memory:" + uniqueName() + "?sync=false")));
        assertTrue(e.getMessage().contains("sync"), e.getMessage());
    }

    @Test
    void arraysAreCopiedOnTheWayIn() {
        try (Backend backend = MemoryBackend.open("")) {
            long id = backend.allocateIds(1);
            byte[] record = bytes("abc");
            byte[] descriptor = bytes("desc");
            backend.commit(new WriteSet().put(id, record).classDescriptor(5, descriptor));
            record[0] = 'X';
            descriptor[0] = 'X';
            assertArrayEquals(bytes("abc"), backend.read(id));
            assertArrayEquals(bytes("desc"), backend.classDescriptors().get(5));
        }
    }

    @Test
    void statisticsReportNoBytesOnDisk() {
        try (Backend backend = MemoryBackend.open("")) {
            long id = backend.allocateIds(1);
            backend.commit(new WriteSet().put(id, new byte[4096]));
            assertEquals(0, backend.statistics().bytesOnDisk());
            assertEquals(1, backend.statistics().objects());
        }
    }

    @Test
    void allocateIdsRejectsNonPositiveCounts() {
        try (Backend backend = MemoryBackend.open("")) {
            assertThrows(IllegalArgumentException.class, () -> backend.allocateIds(0));
            assertThrows(IllegalArgumentException.class, () -> backend.allocateIds(-1));
            assertEquals(1, backend.allocateIds(1), "a refused allocation uses up no ids");
        }
    }

    @Test
    void nullRecordIsRejectedAndNothingIsApplied() {
        try (Backend backend = MemoryBackend.open("")) {
            long id = backend.allocateIds(2);
            WriteSet writes = new WriteSet().put(id, bytes("a")).put(id + 1, null).bind("a", id);
            assertThrows(IllegalArgumentException.class, () -> backend.commit(writes));
            assertNull(backend.read(id));
            assertEquals(0, backend.lookup("a"));
        }
    }

    @Test
    void replacingACommittedDescriptorIsRejectedAndNothingIsApplied() {
        try (Backend backend = MemoryBackend.open("")) {
            long id = backend.allocateIds(1);
            backend.commit(new WriteSet().classDescriptor(1, bytes("v1")));
            backend.commit(new WriteSet().classDescriptor(1, bytes("v1"))); // the same again is harmless
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> backend.commit(new WriteSet().put(id, bytes("x")).classDescriptor(1, bytes("v2"))));
            assertTrue(e.getMessage().contains("descriptor 1"), e.getMessage());
            assertNull(backend.read(id));
            assertArrayEquals(bytes("v1"), backend.classDescriptors().get(1));
        }
    }

    @Test
    void injectedFailureFiresOnceAndAlsoForShortWriteSets() {
        try (MemoryBackend backend = MemoryBackend.open("")) {
            long id = backend.allocateIds(1);
            backend.failNextCommitAfter(5);
            StorageException e = assertThrows(StorageException.class,
                    () -> backend.commit(new WriteSet().put(id, bytes("x")).bind("x", id)));
            assertTrue(e.getMessage().contains("after 5"), e.getMessage());
            assertNull(backend.read(id));
            assertEquals(0, backend.lookup("x"));
            backend.commit(new WriteSet().put(id, bytes("x")).bind("x", id));
            assertArrayEquals(bytes("x"), backend.read(id));
            assertThrows(IllegalArgumentException.class, () -> backend.failNextCommitAfter(-1));
        }
    }
}
