package io.perpetua.store.file;

import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.perpetua.store.file.Stores.bytes;
import static io.perpetua.store.file.Stores.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The space of deleted records comes back whatever the sessions look like: a program that
 * deletes most of its store and closes at once (its background maintenance never ran), a later
 * session that only reads, a store whose whole log fits in the active segment.
 */
class ReclaimAcrossSessionsTest {
    private static final int OBJECTS = 5000;
    private static final String SMALL = "segmentSize=64k";

    private static String value(long id) {
        return "object " + id + " " + "v".repeat(80);
    }

    /** Stores {@link #OBJECTS} objects in commits of 100, names the first "keep"; returns its id. */
    private static long load(Path dir, String query) {
        try (FileBackend b = Stores.open(dir, query)) {
            long first = b.allocateIds(OBJECTS);
            for (long id = first; id < first + OBJECTS; id += 100) {
                WriteSet w = new WriteSet();
                for (long i = id; i < id + 100; i++) {
                    w.put(i, bytes(value(i)));
                }
                b.commit(w);
            }
            b.commit(new WriteSet().bind("keep", first));
            return first;
        }
    }

    /** Deletes every object but "keep" in one commit (as collectGarbage does). */
    private static void deleteAllButOne(FileBackend b, long first) {
        WriteSet d = new WriteSet();
        for (long id = first + 1; id < first + OBJECTS; id++) {
            d.delete(id);
        }
        b.commit(d);
    }

    private static long filesOnDisk(Path dir) {
        return Stores.segmentFiles(dir).stream().mapToLong(Stores::size).sum() + Stores.size(dir.resolve(Checkpoint.FILE));
    }

    private static void assertOnlyKeepIsLeft(Path dir, long first) {
        try (FileBackend b = Stores.open(dir, "autoCompact=false")) {
            assertEquals(1, b.statistics().objects());
            assertEquals(first, b.lookup("keep"));
            assertEquals(value(first), string(b.read(first)));
            assertNull(b.read(first + 1));
            assertNull(b.read(first + OBJECTS - 1));
        }
    }

    @Test
    void garbageAnEarlierSessionLeftIsCompactedInTheBackgroundOfTheNextOpen(@TempDir Path dir) throws Exception {
        long first = load(dir, SMALL);
        try (FileBackend b = Stores.open(dir, SMALL + "&autoCompact=false")) {
            deleteAllButOne(b, first); // a session that closes before its maintenance runs
        }
        long before = filesOnDisk(dir);
        assertTrue(before > 400 * 1024, before + " bytes");
        try (FileBackend b = Stores.open(dir, SMALL)) {
            // A session that only reads: nothing it does triggers maintenance.
            assertEquals(value(first), string(b.read(first)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (b.statistics().bytesOnDisk() > 64 * 1024 && System.nanoTime() < deadline) {
                Thread.sleep(20); // a bounded wait for the background thread, not a timing assertion
            }
            assertTrue(b.statistics().bytesOnDisk() <= 64 * 1024, "the store still holds "
                    + b.statistics().bytesOnDisk() + " bytes for one object (" + before + " before)");
        }
        assertTrue(Stores.segmentFiles(dir).size() <= 2, Stores.segmentFiles(dir).toString());
        assertOnlyKeepIsLeft(dir, first);
    }

    @Test
    void closeDeletesSegmentsThatHoldOnlyGarbage(@TempDir Path dir) {
        long first = load(dir, SMALL);
        try (FileBackend b = Stores.open(dir, SMALL + "&autoCompact=false")) {
            deleteAllButOne(b, first);
            // The 5,000 deletion records (85 KB) fill a segment of their own; a commit after
            // them seals it, and it holds nothing live.
            b.commit(new WriteSet().put(first, bytes(value(first))));
        }
        int segments = Stores.segmentFiles(dir).size();
        assertTrue(segments >= 8, segments + " segments");
        Stores.open(dir, SMALL).close(); // opened and closed at once: the background had no time
        assertTrue(filesOnDisk(dir) <= 64 * 1024, filesOnDisk(dir) + " bytes in " + Stores.segmentFiles(dir));
        assertOnlyKeepIsLeft(dir, first);
    }

    @Test
    void anActiveSegmentMostlyGarbageIsSealedAndCompacted(@TempDir Path dir) throws Exception {
        // Everything fits in one segment, which is never sealed by new writes.
        String oneSegment = "segmentSize=1m";
        long first = load(dir, oneSegment);
        assertEquals(1, Stores.segmentFiles(dir).size());
        try (FileBackend b = Stores.open(dir, oneSegment)) {
            deleteAllButOne(b, first);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (b.statistics().bytesOnDisk() > 64 * 1024 && System.nanoTime() < deadline) {
                Thread.sleep(20); // a bounded wait for the background thread, not a timing assertion
            }
            assertTrue(b.statistics().bytesOnDisk() <= 64 * 1024, "the store still holds "
                    + b.statistics().bytesOnDisk() + " bytes for one object");
        }
        assertOnlyKeepIsLeft(dir, first);
    }

    @Test
    void anActiveSegmentMostlyGarbageIsCompactedByTheNextOpenOrClose(@TempDir Path dir) {
        String oneSegment = "segmentSize=1m";
        long first = load(dir, oneSegment);
        try (FileBackend b = Stores.open(dir, oneSegment + "&autoCompact=false")) {
            deleteAllButOne(b, first);
        }
        assertTrue(filesOnDisk(dir) > 400 * 1024, filesOnDisk(dir) + " bytes");
        Stores.open(dir, oneSegment).close();
        assertTrue(filesOnDisk(dir) <= 64 * 1024, filesOnDisk(dir) + " bytes in " + Stores.segmentFiles(dir));
        assertOnlyKeepIsLeft(dir, first);
    }

    @Test
    void aSmallStoreOverwritingItsRecordsKeepsOneSegment(@TempDir Path dir) {
        // Below a quarter segment of garbage the active segment is left alone: a small store is
        // not given a new segment for every few records it overwrites.
        try (FileBackend b = Stores.open(dir, "segmentSize=1m")) {
            long id = b.allocateIds(1);
            for (int v = 0; v < 1000; v++) {
                b.commit(new WriteSet().put(id, bytes(value(id) + v)));
            }
        }
        Stores.open(dir, "segmentSize=1m").close();
        assertEquals(1, Stores.segmentFiles(dir).size(), Stores.segmentFiles(dir).toString());
    }
}
