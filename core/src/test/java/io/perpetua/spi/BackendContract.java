package io.perpetua.spi;

import io.perpetua.PersistentStoreException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The contract every {@link Backend} must pass: the behaviour {@link Backend}'s Javadoc
 * promises, checked through real opens, commits, closes and reopens. A backend is done when it
 * passes this suite.
 *
 * <h2>How a store module uses it</h2>
 * Depend on core's test-jar and JUnit in test scope (versions come from the parent):
 * <pre>{@code
 * <dependency>
 *   <groupId>io.perpetua</groupId>
 *   <artifactId>perpetua-core</artifactId>
 *   <type>test-jar</type>
 *   <scope>test</scope>
 * </dependency>
 * }</pre>
 * and extend this class in the module's tests, implementing the two hooks:
 * <pre>{@code
 * class RocksBackendContractTest extends BackendContract {
 *     protected Backend open(Path dir) {
 *         return Backends.open(URI.create("rocksdb:" + dir.toUri().getRawPath()));
 *     }
 *     protected Backend openFailingAfter(Path dir, int operations) {
 *         return RocksBackend.openForTest(dir, new FailAfter(operations)); // the module's own seam
 *     }
 * }
 * }</pre>
 * Surefire runs the inherited tests as the subclass's own ({@code mvn -pl store-x test
 * -Dtest=RocksBackendContractTest}). Each test gets a fresh empty directory from
 * {@link TempDir}; the suite closes every backend it opens, and opens a directory again only
 * after closing the previous backend on it (stores may hold a lock per directory).
 *
 * <h2>What a failure injection must do</h2>
 * {@link #openFailingAfter(Path, int)} must return a backend whose next {@link Backend#commit}
 * throws {@link StorageException} after that many of the write set's operations were applied or
 * written (a backend that writes a batch in one call may fail while building the batch). The
 * suite then checks that nothing of that write set is visible, neither through the same backend
 * (which may instead have closed itself, throwing a {@link PersistentStoreException}) nor after
 * a reopen.
 *
 * <p>The suite makes no timing assertions; its concurrency test runs a bounded number of rounds.
 */
public abstract class BackendContract {

    /** Opens (creating if needed, or reopening) the store kept in dir. */
    protected abstract Backend open(Path dir);

    /**
     * Opens the store kept in dir such that its next commit fails with a StorageException after
     * {@code operations} of the write set's operations have been applied/written (a backend that
     * writes a batch in one call may fail while building the batch).
     */
    protected abstract Backend openFailingAfter(Path dir, int operations);

    // ---------------------------------------------------------------- basic reads and writes

    @Test
    void writeSetWithEveryKindOfOperationIsAppliedAndSurvivesReopen(@TempDir Path dir) {
        long a;
        long b;
        long c;
        try (Backend backend = open(dir)) {
            a = backend.allocateIds(3);
            b = a + 1;
            c = a + 2;
            backend.commit(new WriteSet()
                    .put(a, bytes("a1"))
                    .put(b, bytes("b1"))
                    .bind("gone", b)
                    .classDescriptor(1, bytes("descriptor one")));
            backend.commit(new WriteSet()
                    .put(c, bytes("c1"))
                    .put(a, bytes("a2"))
                    .delete(b)
                    .bind("root", a)
                    .bind("other", c)
                    .unbind("gone")
                    .classDescriptor(2, bytes("descriptor two")));
            assertSecondState(backend, a, b, c);
        }
        try (Backend backend = open(dir)) {
            assertSecondState(backend, a, b, c);
        }
    }

    private static void assertSecondState(Backend backend, long a, long b, long c) {
        assertRecord("a2", backend.read(a));
        assertNull(backend.read(b), "deleted record");
        assertRecord("c1", backend.read(c));
        assertEquals(a, backend.lookup("root"));
        assertEquals(c, backend.lookup("other"));
        assertEquals(0, backend.lookup("gone"), "unbound name");
        assertEquals(new TreeMap<>(Map.of("other", c, "root", a)), backend.names());
        Map<Integer, byte[]> descriptors = backend.classDescriptors();
        assertEquals(2, descriptors.size(), "descriptors: " + descriptors.keySet());
        assertRecord("descriptor one", descriptors.get(1));
        assertRecord("descriptor two", descriptors.get(2));
    }

    @Test
    void readOfMissingIdIsNull(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            long id = backend.allocateIds(1);
            assertNull(backend.read(id), "allocated but never written");
            assertNull(backend.read(id + 1_000_000), "never allocated");
            backend.commit(new WriteSet().put(id, bytes("x")));
            assertNull(backend.read(id + 1), "neighbour of a written id");
        }
    }

    @Test
    void readManyIsAlignedWithRepeatsAndMissingIds(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            long first = backend.allocateIds(4);
            backend.commit(new WriteSet()
                    .put(first, bytes("zero"))
                    .put(first + 2, bytes("two"))
                    .put(first + 3, new byte[0]));
            long[] ids = {first + 2, first + 1, first, first + 2, first + 99, first, first + 3};
            byte[][] records = backend.readMany(ids);
            assertEquals(ids.length, records.length);
            assertRecord("two", records[0]);
            assertNull(records[1]);
            assertRecord("zero", records[2]);
            assertRecord("two", records[3]);
            assertNull(records[4]);
            assertRecord("zero", records[5]);
            assertArrayEquals(new byte[0], records[6]);
            assertEquals(0, backend.readMany(new long[0]).length);
            // Repeated ids give arrays the caller owns separately.
            records[0][0] = 'X';
            assertRecord("two", records[3]);
        }
    }

    @Test
    void overwriteAndDelete(@TempDir Path dir) {
        long id;
        long other;
        try (Backend backend = open(dir)) {
            id = backend.allocateIds(1);
            other = backend.allocateIds(1);
            backend.commit(new WriteSet().put(id, bytes("first version")).put(other, bytes("other")));
            backend.commit(new WriteSet().put(id, bytes("second, longer version")));
            assertRecord("second, longer version", backend.read(id));
            backend.commit(new WriteSet().put(id, bytes("3")));
            assertRecord("3", backend.read(id));
            backend.commit(new WriteSet().delete(other));
            assertNull(backend.read(other));
            backend.commit(new WriteSet().delete(other).delete(backend.allocateIds(1)));
            assertNull(backend.read(other), "deleting a missing record is allowed");
            backend.commit(new WriteSet().put(other, bytes("back again")));
        }
        try (Backend backend = open(dir)) {
            assertRecord("3", backend.read(id));
            assertRecord("back again", backend.read(other));
            backend.commit(new WriteSet().delete(id));
        }
        try (Backend backend = open(dir)) {
            assertNull(backend.read(id));
            assertRecord("back again", backend.read(other));
        }
    }

    @Test
    void recordIdsListEveryRecordAndNoDeletedOne(@TempDir Path dir) {
        long first;
        try (Backend backend = open(dir)) {
            assertEquals(0, backend.recordIds().length, "a new store has no records");
            first = backend.allocateIds(3000);
            WriteSet writes = new WriteSet();
            for (long id = first; id < first + 3000; id++) {
                writes.put(id, bytes("r" + id));
            }
            backend.commit(writes.bind("root", first));
            WriteSet deletes = new WriteSet();
            for (long id = first; id < first + 3000; id += 3) {
                deletes.delete(id);
            }
            backend.commit(deletes.put(first + 1, bytes("overwritten")));
            assertEquals(expectedIds(first), sorted(backend.recordIds()));
        }
        try (Backend backend = open(dir)) {
            assertEquals(expectedIds(first), sorted(backend.recordIds()), "after reopen");
        }
    }

    private static List<Long> expectedIds(long first) {
        List<Long> ids = new ArrayList<>();
        for (long id = first; id < first + 3000; id++) {
            if ((id - first) % 3 != 0) {
                ids.add(id);
            }
        }
        return ids;
    }

    private static List<Long> sorted(long[] ids) {
        return Arrays.stream(ids).sorted().boxed().toList();
    }

    @Test
    void readReturnsArraysTheCallerOwns(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            long id = backend.allocateIds(1);
            backend.commit(new WriteSet().put(id, bytes("abc")).classDescriptor(7, bytes("desc")));
            backend.read(id)[0] = 'X';
            backend.readMany(new long[] {id})[0][1] = 'X';
            backend.classDescriptors().get(7)[0] = 'X';
            assertRecord("abc", backend.read(id));
            assertRecord("desc", backend.classDescriptors().get(7));
        }
    }

    // ---------------------------------------------------------------- names and descriptors

    @Test
    void namesBindRebindUnbindAndListSorted(@TempDir Path dir) {
        long first;
        try (Backend backend = open(dir)) {
            assertEquals(0, backend.lookup("missing"));
            assertTrue(backend.names().isEmpty());
            first = backend.allocateIds(6);
            backend.commit(new WriteSet()
                    .bind("zebra", first)
                    .bind("apple", first + 1)
                    .bind("Mango", first + 2)
                    .bind("apple.pie", first + 3)
                    .bind("\u00e9clair \u2615", first + 4)
                    .bind("\uD83C\uDF70 cake", first + 5)); // a character outside the BMP: a surrogate pair
            SortedMap<String, Long> names = backend.names();
            assertEquals(List.of("Mango", "apple", "apple.pie", "zebra", "\u00e9clair \u2615", "\uD83C\uDF70 cake"),
                    new ArrayList<>(names.keySet()), "names in String order");
            assertEquals(first + 4, backend.lookup("\u00e9clair \u2615"));

            backend.commit(new WriteSet().bind("zebra", first + 1).unbind("apple").unbind("never bound"));
            assertEquals(first + 1, backend.lookup("zebra"), "rebound");
            assertEquals(0, backend.lookup("apple"), "unbound");
            // The snapshot taken earlier is the caller's and does not change.
            assertEquals(first + 1, names.get("apple"));
            names.clear();
            assertEquals(5, backend.names().size(), "clearing a snapshot changes nothing");
        }
        try (Backend backend = open(dir)) {
            TreeMap<String, Long> expected = new TreeMap<>();
            expected.put("Mango", first + 2);
            expected.put("apple.pie", first + 3);
            expected.put("zebra", first + 1);
            expected.put("\u00e9clair \u2615", first + 4);
            expected.put("\uD83C\uDF70 cake", first + 5);
            assertEquals(expected, backend.names());
            assertEquals(first + 5, backend.lookup("\uD83C\uDF70 cake"));
            assertEquals(first + 3, backend.lookup("apple.pie"));
        }
    }

    @Test
    void classDescriptorsAccumulate(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            assertTrue(backend.classDescriptors().isEmpty());
            backend.commit(new WriteSet().classDescriptor(1, bytes("one")).classDescriptor(2, bytes("two")));
            backend.commit(new WriteSet().classDescriptor(3, bytes("three")));
            assertDescriptors(backend, Map.of(1, "one", 2, "two", 3, "three"));
        }
        try (Backend backend = open(dir)) {
            assertDescriptors(backend, Map.of(1, "one", 2, "two", 3, "three"));
            backend.commit(new WriteSet().classDescriptor(100, bytes("hundred")));
        }
        try (Backend backend = open(dir)) {
            assertDescriptors(backend, Map.of(1, "one", 2, "two", 3, "three", 100, "hundred"));
        }
    }

    private static void assertDescriptors(Backend backend, Map<Integer, String> expected) {
        Map<Integer, String> actual = new TreeMap<>();
        backend.classDescriptors().forEach((id, bytes) -> actual.put(id, new String(bytes, StandardCharsets.UTF_8)));
        assertEquals(new TreeMap<>(expected), actual);
    }

    // ---------------------------------------------------------------- ids

    @Test
    void allocatedIdRangesArePositiveDisjointAndNeverReusedAcrossReopen(@TempDir Path dir) {
        TreeMap<Long, Long> ranges = new TreeMap<>(); // first -> end (exclusive)
        Random random = new Random(42);
        for (int session = 0; session < 12; session++) {
            try (Backend backend = open(dir)) {
                for (int i = 0; i < 200; i++) {
                    int count = i % 50 == 0 ? 1 + random.nextInt(100_000) : 1 + random.nextInt(20);
                    long first = backend.allocateIds(count);
                    addDisjoint(ranges, first, count);
                }
                if (session % 3 == 0) {
                    // Using some ids must not matter either.
                    long id = backend.allocateIds(1);
                    addDisjoint(ranges, id, 1);
                    backend.commit(new WriteSet().put(id, bytes("used")));
                }
            }
        }
        assertEquals(12 * 200 + 4, ranges.size());
    }

    @Test
    void concurrentAllocationsAreDisjoint(@TempDir Path dir) throws Exception {
        try (Backend backend = open(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<long[]>>> futures = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int seed = t;
                    futures.add(pool.submit(() -> {
                        Random random = new Random(seed);
                        List<long[]> mine = new ArrayList<>();
                        for (int i = 0; i < 500; i++) {
                            int count = 1 + random.nextInt(8);
                            mine.add(new long[] {backend.allocateIds(count), count});
                        }
                        return mine;
                    }));
                }
                TreeMap<Long, Long> ranges = new TreeMap<>();
                for (Future<List<long[]>> f : futures) {
                    for (long[] range : f.get(5, TimeUnit.MINUTES)) {
                        addDisjoint(ranges, range[0], (int) range[1]);
                    }
                }
                assertEquals(2000, ranges.size());
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static void addDisjoint(TreeMap<Long, Long> ranges, long first, int count) {
        assertTrue(first > 0, "ids are positive, got " + first);
        long end = first + count;
        assertTrue(end > first, "range overflows: " + first + " + " + count);
        Map.Entry<Long, Long> below = ranges.floorEntry(first);
        if (below != null) {
            assertTrue(below.getValue() <= first, "range [" + first + ", " + end + ") overlaps ["
                    + below.getKey() + ", " + below.getValue() + ")");
        }
        Map.Entry<Long, Long> above = ranges.ceilingEntry(first);
        if (above != null) {
            assertTrue(end <= above.getKey(), "range [" + first + ", " + end + ") overlaps ["
                    + above.getKey() + ", " + above.getValue() + ")");
        }
        ranges.put(first, end);
    }

    // ---------------------------------------------------------------- atomicity under failure

    /** The write set the failure tests try to commit on top of {@link #baseState}. */
    private static WriteSet failingWriteSet(long first) {
        return new WriteSet()
                .put(first, bytes("r0 overwritten"))
                .put(first + 1, bytes("r1 overwritten, and longer than before"))
                .put(first + 5, bytes("r5 new"))
                .put(first + 6, new byte[0])
                .put(first + 7, bytes("r7 new"))
                .delete(first + 2)
                .delete(first + 3)
                .bind("new name", first + 5)
                .bind("b", first + 6)
                .unbind("a")
                .unbind("c")
                .classDescriptor(2, bytes("descriptor two"))
                .classDescriptor(3, bytes("descriptor three"));
    }

    static IntStream failurePoints() {
        int size = failingWriteSet(1).size();
        return IntStream.of(0, 1, size / 2, size - 1);
    }

    private static WriteSet baseState(long first) {
        return new WriteSet()
                .put(first, bytes("r0"))
                .put(first + 1, bytes("r1"))
                .put(first + 2, bytes("r2"))
                .put(first + 3, bytes("r3"))
                .put(first + 4, bytes("r4"))
                .bind("a", first)
                .bind("b", first + 1)
                .bind("c", first + 2)
                .classDescriptor(1, bytes("descriptor one"));
    }

    @ParameterizedTest(name = "failing after {0} operation(s)")
    @MethodSource("failurePoints")
    void failedCommitLeavesTheStoreExactlyAsBefore(int operations, @TempDir Path dir) {
        long first;
        long[] ids;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(10);
            backend.commit(baseState(first));
        }
        ids = LongRange.of(first, 10);
        Snapshot before;
        try (Backend backend = open(dir)) {
            before = Snapshot.of(backend, ids);
        }
        WriteSet followUp = new WriteSet().put(first + 8, bytes("follow-up")).bind("follow-up", first + 8);
        boolean followUpCommitted = false;
        try (Backend backend = openFailingAfter(dir, operations)) {
            WriteSet failing = failingWriteSet(first);
            StorageException e = assertThrows(StorageException.class, () -> backend.commit(failing),
                    "the commit was made to fail after " + operations + " of " + failing.size() + " operations");
            assertNotNull(e.getMessage());
            try {
                assertEquals(before, Snapshot.of(backend, ids), "the same backend after the failed commit");
                backend.commit(followUp);
                followUpCommitted = true;
                assertRecord("follow-up", backend.read(first + 8));
            } catch (PersistentStoreException closedItself) {
                // Allowed: the backend latched itself closed after the failure. It must say why.
                assertNotNull(closedItself.getMessage(), "a Perpetua exception needs a message");
            }
        }
        try (Backend backend = open(dir)) {
            Snapshot after = Snapshot.of(backend, ids);
            if (followUpCommitted) {
                assertEquals(before.with(first + 8, "follow-up", "follow-up"), after, "after reopen");
            } else {
                assertEquals(before, after, "after reopen");
            }
            // Usable again: the whole write set commits now.
            backend.commit(failingWriteSet(first));
            assertRecord("r7 new", backend.read(first + 7));
            assertNull(backend.read(first + 2));
            assertEquals(first + 5, backend.lookup("new name"));
            assertEquals(3, backend.classDescriptors().size());
        }
        try (Backend backend = open(dir)) {
            assertRecord("r1 overwritten, and longer than before", backend.read(first + 1));
            assertEquals(0, backend.lookup("a"));
            assertEquals(first + 6, backend.lookup("b"));
            assertArrayEquals(new byte[0], backend.read(first + 6));
        }
    }

    @Test
    void failedLargeCommitLeavesNothing(@TempDir Path dir) {
        long first;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(1000);
            backend.commit(new WriteSet().put(first, bytes("kept")).bind("kept", first));
        }
        WriteSet big = new WriteSet();
        for (int i = 0; i < 1000; i++) {
            big.put(first + i, bytes("big " + i));
        }
        big.bind("kept", first + 999);
        try (Backend backend = openFailingAfter(dir, 700)) {
            assertThrows(StorageException.class, () -> backend.commit(big));
        }
        try (Backend backend = open(dir)) {
            assertRecord("kept", backend.read(first));
            assertEquals(first, backend.lookup("kept"));
            byte[][] records = backend.readMany(LongRange.of(first + 1, 999));
            for (int i = 0; i < records.length; i++) {
                assertNull(records[i], "record " + (first + 1 + i) + " of the failed commit");
            }
            assertEquals(1, backend.statistics().objects());
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Test
    void everyMethodThrowsStoreClosedExceptionAfterCloseAndCloseIsIdempotent(@TempDir Path dir) {
        Backend backend = open(dir);
        long id = backend.allocateIds(1);
        backend.commit(new WriteSet().put(id, bytes("x")).bind("x", id));
        backend.close();
        backend.close();
        Map<String, Executable> calls = new LinkedHashMap<>();
        calls.put("read", () -> backend.read(id));
        calls.put("readMany", () -> backend.readMany(new long[] {id}));
        calls.put("recordIds", backend::recordIds);
        calls.put("lookup", () -> backend.lookup("x"));
        calls.put("names", backend::names);
        calls.put("classDescriptors", backend::classDescriptors);
        calls.put("allocateIds", () -> backend.allocateIds(1));
        calls.put("commit", () -> backend.commit(new WriteSet().put(id, bytes("y"))));
        calls.put("commit(empty)", () -> backend.commit(new WriteSet()));
        calls.put("statistics", backend::statistics);
        calls.put("location", backend::location);
        calls.forEach((name, call) -> assertThrows(StoreClosedException.class, call, name + " after close"));
        backend.close();
        try (Backend reopened = open(dir)) {
            assertRecord("x", reopened.read(id));
        }
    }

    @Test
    void secondOpenWhileOpenThrowsStoreLockedException(@TempDir Path dir) {
        long id;
        try (Backend backend = open(dir)) {
            id = backend.allocateIds(1);
            backend.commit(new WriteSet().put(id, bytes("x")));
            StoreLockedException e = assertThrows(StoreLockedException.class, () -> open(dir).close());
            assertNotNull(e.location());
            assertRecord("x", backend.read(id), "the first backend is unharmed");
        }
        try (Backend backend = open(dir)) {
            assertRecord("x", backend.read(id));
        }
    }

    @Test
    void emptyWriteSetCommitChangesNothing(@TempDir Path dir) {
        long id;
        try (Backend backend = open(dir)) {
            backend.commit(new WriteSet());
            id = backend.allocateIds(1);
            backend.commit(new WriteSet().put(id, bytes("x")));
            backend.commit(new WriteSet());
            assertRecord("x", backend.read(id));
        }
        try (Backend backend = open(dir)) {
            backend.commit(new WriteSet());
            assertRecord("x", backend.read(id));
            assertEquals(1, backend.statistics().objects());
        }
    }

    @Test
    void replacesOverwriteAndKeepCountsExact(@TempDir Path dir) {
        long first;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(2);
            backend.commit(new WriteSet().put(first, bytes("a")).put(first + 1, bytes("b")));
            WriteSet replacing = new WriteSet().replace(first, bytes("A")).put(first + 1, bytes("B"));
            assertTrue(replacing.replaces(first));
            assertFalse(replacing.replaces(first + 1));
            backend.commit(replacing);
            assertRecord("A", backend.read(first));
            assertRecord("B", backend.read(first + 1));
            assertEquals(2, backend.statistics().objects(), "a replace adds no object");
            WriteSet dropped = new WriteSet().replace(first + 1, bytes("x")).delete(first + 1);
            assertFalse(dropped.replaces(first + 1), "a later delete drops the promise");
            backend.commit(dropped);
            assertNull(backend.read(first + 1));
            assertEquals(1, backend.statistics().objects());
        }
        try (Backend backend = open(dir)) {
            assertRecord("A", backend.read(first));
            assertEquals(1, backend.statistics().objects());
        }
    }

    @Test
    void statisticsCountObjectsAndNames(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            BackendStatistics empty = backend.statistics();
            assertEquals(0, empty.objects());
            assertEquals(0, empty.names());
            assertTrue(empty.bytesOnDisk() >= 0);
            long first = backend.allocateIds(3);
            backend.commit(new WriteSet().put(first, bytes("a")).put(first + 1, bytes("b"))
                    .put(first + 2, bytes("c")).bind("a", first).bind("b", first + 1));
            assertEquals(3, backend.statistics().objects());
            assertEquals(2, backend.statistics().names());
            backend.commit(new WriteSet().delete(first + 2).put(first, bytes("A")).unbind("b"));
            assertEquals(2, backend.statistics().objects());
            assertEquals(1, backend.statistics().names());
        }
        try (Backend backend = open(dir)) {
            BackendStatistics statistics = backend.statistics();
            assertEquals(2, statistics.objects());
            assertEquals(1, statistics.names());
            assertTrue(statistics.bytesOnDisk() >= 0);
        }
    }

    @Test
    void locationIsNotEmpty(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            assertNotNull(backend.location());
            assertFalse(backend.location().isBlank());
        }
    }

    // ---------------------------------------------------------------- sizes

    @Test
    void largeAndEmptyRecordsRoundTrip(@TempDir Path dir) {
        byte[] large = new byte[1 << 20];
        new Random(7).nextBytes(large);
        long first;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(3);
            backend.commit(new WriteSet().put(first, large).put(first + 1, new byte[0]).put(first + 2, bytes("small")));
            assertArrayEquals(large, backend.read(first));
            assertArrayEquals(new byte[0], backend.read(first + 1), "an empty record is not a missing one");
        }
        try (Backend backend = open(dir)) {
            assertArrayEquals(large, backend.read(first));
            byte[][] records = backend.readMany(new long[] {first + 1, first, first + 2});
            assertArrayEquals(new byte[0], records[0]);
            assertArrayEquals(large, records[1]);
            assertRecord("small", records[2]);
            // Replace the large record by a small one and back.
            backend.commit(new WriteSet().put(first, bytes("tiny")));
            assertRecord("tiny", backend.read(first));
        }
        try (Backend backend = open(dir)) {
            assertRecord("tiny", backend.read(first));
        }
    }

    @Test
    void tenThousandRecordsInOneCommit(@TempDir Path dir) {
        int n = 10_000;
        long first;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(n);
            WriteSet writes = new WriteSet();
            for (int i = 0; i < n; i++) {
                writes.put(first + i, content(first + i, i));
            }
            writes.bind("first", first).bind("last", first + n - 1);
            backend.commit(writes);
            assertAll(backend.readMany(LongRange.of(first, n)), first);
            assertEquals(n, backend.statistics().objects());
        }
        try (Backend backend = open(dir)) {
            assertAll(backend.readMany(LongRange.of(first, n)), first);
            assertEquals(n, backend.statistics().objects());
            assertEquals(first + n - 1, backend.lookup("last"));
        }
    }

    private static void assertAll(byte[][] records, long first) {
        for (int i = 0; i < records.length; i++) {
            if (!Arrays.equals(content(first + i, i), records[i])) {
                fail("record " + (first + i) + " differs: " + Arrays.toString(records[i]));
            }
        }
    }

    private static byte[] content(long id, int i) {
        return ("record " + id + " #" + i + " " + "x".repeat(i % 37)).getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void concurrentReadersSeeAllOfAWriteSetOrNone(@TempDir Path dir) throws Exception {
        int records = 16;
        int rounds = 300;
        int readers = 3;
        try (Backend backend = open(dir)) {
            long first = backend.allocateIds(records);
            long[] ids = LongRange.of(first, records);
            backend.commit(roundWriteSet(ids, 0));
            AtomicBoolean writerDone = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(readers + 1);
            try {
                List<Future<Integer>> readerResults = new ArrayList<>();
                for (int r = 0; r < readers; r++) {
                    readerResults.add(pool.submit(() -> {
                        int reads = 0;
                        int lastSeen = 0;
                        // Bounded by the writer, and by a cap in case the writer dies.
                        while (reads < 1_000_000 && (!writerDone.get() || reads < 10)) {
                            int seen = roundOf(ids, backend.readMany(ids));
                            assertTrue(seen >= lastSeen, "round " + seen + " read after round " + lastSeen);
                            lastSeen = seen;
                            reads++;
                        }
                        return lastSeen;
                    }));
                }
                Future<?> writer = pool.submit(() -> {
                    try {
                        for (int round = 1; round <= rounds; round++) {
                            backend.commit(roundWriteSet(ids, round));
                        }
                    } finally {
                        writerDone.set(true);
                    }
                    return null;
                });
                writer.get(10, TimeUnit.MINUTES);
                for (Future<Integer> reader : readerResults) {
                    reader.get(10, TimeUnit.MINUTES);
                }
                assertEquals(rounds, roundOf(ids, backend.readMany(ids)));
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static WriteSet roundWriteSet(long[] ids, int round) {
        WriteSet writes = new WriteSet();
        for (int i = 0; i < ids.length; i++) {
            // Records of different lengths, so that a torn write set cannot look whole.
            writes.put(ids[i], (ids[i] + ":" + round + ":" + "r".repeat((round + i) % 50)).getBytes(StandardCharsets.UTF_8));
        }
        return writes;
    }

    /** @return the one round all records carry; fails if they disagree */
    private static int roundOf(long[] ids, byte[][] records) {
        int round = -1;
        for (int i = 0; i < ids.length; i++) {
            assertNotNull(records[i], "record " + ids[i] + " missing");
            String[] parts = new String(records[i], StandardCharsets.UTF_8).split(":");
            assertEquals(Long.toString(ids[i]), parts[0], "readMany is aligned with its ids");
            int r = Integer.parseInt(parts[1]);
            if (round == -1) {
                round = r;
            } else if (r != round) {
                fail("one readMany saw rounds " + round + " and " + r + ": a write set was seen in part");
            }
        }
        return round;
    }

    // ---------------------------------------------------------------- helpers

    /** @return the UTF-8 bytes of a string */
    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertRecord(String expected, byte[] actual) {
        assertRecord(expected, actual, "record");
    }

    private static void assertRecord(String expected, byte[] actual, String what) {
        assertNotNull(actual, what + ": expected \"" + expected + "\" but there is none");
        assertEquals(expected, new String(actual, StandardCharsets.UTF_8), what);
    }

    private static final class LongRange {
        static long[] of(long first, int count) {
            long[] ids = new long[count];
            for (int i = 0; i < count; i++) {
                ids[i] = first + i;
            }
            return ids;
        }
    }

    /** Everything visible in a store, for comparing states: some records, all names and descriptors. */
    private record Snapshot(Map<Long, String> records, SortedMap<String, Long> names, Map<Integer, String> descriptors) {

        static Snapshot of(Backend backend, long[] ids) {
            Map<Long, String> records = new TreeMap<>();
            byte[][] read = backend.readMany(ids);
            for (int i = 0; i < ids.length; i++) {
                // Compare reads one by one with readMany as well.
                byte[] single = backend.read(ids[i]);
                assertArrayEquals(read[i], single, "read and readMany of " + ids[i]);
                records.put(ids[i], read[i] == null ? "<none>" : HexFormat.of().formatHex(read[i]));
            }
            Map<Integer, String> descriptors = new TreeMap<>();
            backend.classDescriptors().forEach((id, bytes) -> descriptors.put(id, HexFormat.of().formatHex(bytes)));
            return new Snapshot(records, backend.names(), descriptors);
        }

        Snapshot with(long id, String record, String name) {
            Map<Long, String> r = new TreeMap<>(records);
            r.put(id, HexFormat.of().formatHex(bytes(record)));
            SortedMap<String, Long> n = new TreeMap<>(names);
            n.put(name, id);
            return new Snapshot(r, n, descriptors);
        }
    }
}
