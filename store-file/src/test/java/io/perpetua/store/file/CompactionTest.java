package io.perpetua.store.file;

import io.perpetua.CorruptStoreException;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.perpetua.store.file.Stores.bytes;
import static io.perpetua.store.file.Stores.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Compaction on request, in the background, under concurrent use, and on damaged data. */
class CompactionTest {

    private static String value(long id, int version) {
        return "object " + id + " version " + version + " " + "p".repeat((int) (id % 40));
    }

    /** Writes n objects, overwrites them {@code versions} times, deletes every third. */
    private static Map<Long, String> churn(FileBackend b, int n, int versions) {
        long first = b.allocateIds(n);
        Map<Long, String> expected = new HashMap<>();
        for (int v = 0; v < versions; v++) {
            WriteSet w = new WriteSet();
            for (long id = first; id < first + n; id++) {
                w.put(id, bytes(value(id, v)));
                expected.put(id, value(id, v));
            }
            b.commit(w);
        }
        WriteSet deletes = new WriteSet();
        for (long id = first; id < first + n; id += 3) {
            deletes.delete(id);
            expected.remove(id);
        }
        b.commit(deletes.bind("first", first));
        return expected;
    }

    private static void assertContents(FileBackend b, Map<Long, String> expected, long first, int n) {
        for (long id = first; id < first + n; id++) {
            assertEquals(expected.get(id), string(b.read(id)), "object " + id);
        }
        assertEquals(expected.size(), b.statistics().objects());
    }

    @Test
    void compactReclaimsOverwrittenAndDeletedRecordsAndLosesNothing(@TempDir Path dir) {
        Map<Long, String> expected;
        long first;
        long before;
        long after;
        try (FileBackend b = Stores.open(dir, "segmentSize=16k&autoCompact=false")) {
            expected = churn(b, 300, 8);
            first = b.lookup("first");
            before = b.statistics().bytesOnDisk();
            int segmentsBefore = Stores.segmentFiles(dir).size();
            long reclaimed = b.compact();
            after = b.statistics().bytesOnDisk();
            assertTrue(reclaimed > 0);
            assertTrue(after * 4 < before, "compaction shrank " + before + " bytes only to " + after);
            assertTrue(Stores.segmentFiles(dir).size() < segmentsBefore / 3,
                    Stores.segmentFiles(dir).size() + " segment files of " + segmentsBefore);
            assertContents(b, expected, first, 300);
            assertEquals(first, b.lookup("first"));
            // A second compaction right after has little or nothing to do.
            b.compact();
            assertContents(b, expected, first, 300);
        }
        long onDisk = Stores.segmentFiles(dir).stream().mapToLong(Stores::size).sum()
                + Stores.size(dir.resolve(Checkpoint.FILE));
        assertTrue(onDisk <= after + 16 * 1024, "files: " + onDisk + ", statistics said " + after);
        try (FileBackend b = Stores.open(dir, "")) {
            assertContents(b, expected, first, 300);
        }
    }

    @Test
    void backgroundCompactionKeepsTheStoreSmallUnderChurn(@TempDir Path dir) throws Exception {
        try (FileBackend b = Stores.open(dir, "segmentSize=8k&garbageRatio=0.3&sync=false")) {
            long first = b.allocateIds(50);
            for (int v = 0; v < 400; v++) {
                WriteSet w = new WriteSet();
                for (long id = first; id < first + 50; id++) {
                    w.put(id, bytes(value(id, v)));
                }
                b.commit(w);
            }
            // Live data is some 4 KB per version; 400 versions wrote well over 1 MB.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (b.statistics().bytesOnDisk() > 256 * 1024 && System.nanoTime() < deadline) {
                Thread.sleep(20); // a bounded wait for the background thread, not a timing assertion
            }
            assertTrue(b.statistics().bytesOnDisk() <= 256 * 1024, "store is " + b.statistics().bytesOnDisk() + " bytes");
            for (long id = first; id < first + 50; id++) {
                assertEquals(value(id, 399), string(b.read(id)));
            }
        }
    }

    @Test
    void compactionRunsWhileReadersAndAWriterWork(@TempDir Path dir) throws Exception {
        int records = 40;
        int rounds = 300;
        try (FileBackend b = Stores.open(dir, "segmentSize=8k&garbageRatio=0.2&sync=false")) {
            long first = b.allocateIds(records);
            long[] ids = new long[records];
            for (int i = 0; i < records; i++) {
                ids[i] = first + i;
            }
            b.commit(round(ids, 0).bind("first", first));
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> tasks = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    tasks.add(pool.submit(() -> {
                        int last = 0;
                        while (!done.get()) {
                            int seen = roundOf(ids, b.readMany(ids));
                            assertTrue(seen >= last, "round " + seen + " after " + last);
                            last = seen;
                        }
                        return null;
                    }));
                }
                tasks.add(pool.submit(() -> {
                    while (!done.get()) {
                        b.compact();
                    }
                    return null;
                }));
                try {
                    for (int round = 1; round <= rounds; round++) {
                        b.commit(round(ids, round));
                    }
                } finally {
                    done.set(true);
                }
                for (Future<?> t : tasks) {
                    t.get(5, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(rounds, roundOf(ids, b.readMany(ids)));
        }
        try (FileBackend b = Stores.open(dir, "")) {
            long first = b.lookup("first");
            assertEquals(records, b.statistics().objects());
            long[] ids = new long[records];
            for (int i = 0; i < records; i++) {
                ids[i] = first + i;
            }
            assertEquals(rounds, roundOf(ids, b.readMany(ids)));
        }
    }

    private static WriteSet round(long[] ids, int round) {
        WriteSet w = new WriteSet();
        for (int i = 0; i < ids.length; i++) {
            w.put(ids[i], (ids[i] + ":" + round + ":" + "x".repeat((round * 7 + i) % 90)).getBytes(StandardCharsets.UTF_8));
        }
        return w;
    }

    private static int roundOf(long[] ids, byte[][] records) {
        int round = -1;
        for (int i = 0; i < ids.length; i++) {
            String[] parts = string(records[i]).split(":");
            assertEquals(Long.toString(ids[i]), parts[0]);
            int r = Integer.parseInt(parts[1]);
            if (round != -1 && r != round) {
                fail("one readMany saw rounds " + round + " and " + r);
            }
            round = r;
        }
        return round;
    }

    @Test
    void aDamagedLiveRecordStopsCompactionAndDeletesNothing(@TempDir Path dir) {
        long id;
        try (FileBackend b = Stores.open(dir, "segmentSize=4k&autoCompact=false")) {
            id = b.allocateIds(100);
            // Object id is written once, alone, right after the allocation: it stays live in segment 1.
            b.commit(new WriteSet().put(id, bytes(value(id, 0))));
            for (int v = 0; v < 3; v++) {
                WriteSet w = new WriteSet();
                for (int i = 1; i < 100; i++) {
                    w.put(id + i, bytes(value(id + i, v)));
                }
                b.commit(w);
            }
        }
        Path firstSegment = Stores.segmentFiles(dir).get(0);
        Stores.xorByte(firstSegment, Format.HEADER_SIZE + Format.COMMIT_SIZE + Format.PUT_OVERHEAD + 2, 0x10);
        int segments = Stores.segmentFiles(dir).size();
        try (FileBackend b = Stores.open(dir, "autoCompact=false")) {
            CorruptStoreException e = assertThrows(CorruptStoreException.class, b::compact);
            assertTrue(e.location().startsWith(firstSegment.toString()), e.getMessage());
            assertTrue(Stores.segmentFiles(dir).contains(firstSegment), "the damaged segment is kept");
            assertTrue(Stores.segmentFiles(dir).size() >= segments);
            assertEquals(value(id + 1, 2), string(b.read(id + 1)), "the store stays usable");
            assertThrows(CorruptStoreException.class, () -> b.read(id));
        }
    }

    @Test
    void deletedEverythingCompactsToAlmostNothing(@TempDir Path dir) {
        try (FileBackend b = Stores.open(dir, "segmentSize=8k&autoCompact=false")) {
            long first = b.allocateIds(200);
            WriteSet w = new WriteSet();
            for (long id = first; id < first + 200; id++) {
                w.put(id, bytes(value(id, 0)));
            }
            b.commit(w);
            WriteSet d = new WriteSet();
            for (long id = first; id < first + 200; id++) {
                d.delete(id);
            }
            b.commit(d);
            b.compact();
            assertEquals(0, b.statistics().objects());
            assertTrue(b.statistics().bytesOnDisk() < 4096, b.statistics().toString());
            assertNull(b.read(first));
        }
    }
}
