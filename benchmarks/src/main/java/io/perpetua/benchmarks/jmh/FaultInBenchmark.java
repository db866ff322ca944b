package io.perpetua.benchmarks.jmh;

import io.perpetua.PersistentStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.RocksDBException;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Cold fetch of one object: the fault-in of one hollow OO1 part (hollow to filled, the backend
 * read included) through the public API, against a raw RocksDB {@code get} of the very same
 * record, in the same run.
 *
 * <h2>What one operation is</h2>
 * Each measured iteration is one single shot of {@value #BATCH} operations
 * ({@code SingleShotTime}, score per operation). Before it, untimed, the store is opened afresh
 * ({@code PersistentStore.open}: a new kernel with nothing resident, a new RocksDB block cache),
 * the root {@code "oo1"} is fetched and the index (the root and its 20 chunks of 1,024 part
 * references, 21 records) is made resident, so that every part is a hollow shell; and
 * {@value #BATCH} distinct part ids are drawn. The shot then reads x, y and type of each of
 * those parts, in random order: each read is exactly one fault-in of one object never touched
 * since the open (one backend read, one decode, the part's 3 outgoing and about 3 incoming
 * connections becoming shells, and those stored in the part's record as its satellites, about
 * 3, filled from it). JIT state is warm (warm-up iterations do the same on other
 * ids); the data is cold for the kernel and for RocksDB's block cache, and warm in the operating
 * system's page cache on both sides.
 *
 * <h2>The stores ({@code store})</h2>
 * <ul>
 *   <li>{@code rocksdb}: {@code PersistentStore.open("rocksdb:/dir")}.</li>
 *   <li>{@code file}: {@code PersistentStore.open("file:/dir")}, the same database.</li>
 *   <li>{@code memory}: {@code memory:name}, closed and reopened the same way (a named memory
 *       store outlives close): the backend read is a map lookup, so this is the kernel's own
 *       cost of a fault-in (decode, shells, table), the "kernel" part of the two above.</li>
 *   <li>{@code raw}: the baseline. The {@code rocksdb} store, built the same way and then
 *       compacted (by RocksDB, in place, with the backend's settings), is opened read-only with
 *       the RocksDB API and the same table settings as perpetua-store-rocksdb (own 32 MiB block
 *       cache, Bloom filter, LZ4, 4 KiB blocks, index and filter blocks in the cache), the same
 *       21 index records are read, and each operation is one {@code db.get} of the part's own
 *       record (same key, same bytes, same SST file, same LSM shape) never read since the open.
 *       The {@code rocksdb} row is compacted the same way before it is measured, so the two
 *       read identical files with identical block-cache state.</li>
 * </ul>
 * Ids are drawn from one generator with a fixed seed, so every row reads the same parts in the
 * same order. Targets (store-rocksdb issue): {@code rocksdb / raw ≤ 1.5}; the file store is
 * reported against the same baseline.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar FaultInBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"}) // RocksDB JNI: no JDK 24+ warning
public class FaultInBenchmark {

    /** Fault-ins (or gets) per measured shot. */
    public static final int BATCH = 1000;

    /** One store and the batch of ids of the current iteration. */
    @State(Scope.Benchmark)
    public static class Fixture {
        @Param({"rocksdb", "file", "memory", "raw"})
        public String store;

        /** Parts in the database (20,000: OO1 small; 200,000: OO1 large, about 15 s to build). */
        @Param({"20000"})
        public int parts;

        Path dir;
        String uri;
        KernelModel model;
        PersistentStore open;
        KernelFixtures.Raw raw;
        long[] partIds;
        long[] indexIds;
        int[] batch;
        final SplittableRandom random = new SplittableRandom(7);
        long sink;
        long readsBefore;

        @Setup(Level.Trial)
        public void build() {
            KernelFixtures.loadContendedLockNode();
            model = KernelFixtures.model();
            switch (store) {
                case "rocksdb", "raw" -> {
                    dir = KernelFixtures.tempDirectory("perpetua-jmh-fault");
                    uri = "rocksdb:" + dir.resolve("store");
                }
                case "file" -> {
                    dir = KernelFixtures.tempDirectory("perpetua-jmh-fault");
                    uri = "file:" + dir.resolve("store");
                }
                case "memory" -> uri = "memory:jmh-fault-" + System.nanoTime();
                default -> throw new IllegalArgumentException(store);
            }
            KernelFixtures.buildOo1(uri, parts);
            if (dir != null && uri.startsWith("rocksdb:")) {
                try (KernelFixtures.Raw r = new KernelFixtures.Raw(dir.resolve("store"), false)) {
                    r.flushAndCompact();
                }
            }
            if (store.equals("raw")) {
                // The ids of the parts and of the index records, from the store itself.
                try (PersistentStore s = KernelFixtures.open(uri)) {
                    Object root = s.fetch("oo1");
                    model.attach(root);
                    partIds = new long[parts + 1];
                    for (int id = 1; id <= parts; id++) {
                        partIds[id] = KernelFixtures.id(model.part(id));
                    }
                    Object[] chunks = model.chunks();
                    indexIds = new long[chunks.length + 1];
                    indexIds[0] = KernelFixtures.id(root);
                    for (int c = 0; c < chunks.length; c++) {
                        indexIds[c + 1] = KernelFixtures.id(chunks[c]);
                    }
                    s.close();
                    try (KernelFixtures.Raw r = new KernelFixtures.Raw(dir.resolve("store"), true)) {
                        // connections have no records: each is a satellite in one of its parts' records
                        System.out.printf("%nrecord sizes (bytes, mean): part %.1f (with its satellite connections),"
                                        + " chunk %.1f, root %d%n",
                                meanSize(r, java.util.Arrays.copyOfRange(partIds, 1, parts + 1)),
                                meanSize(r, java.util.Arrays.copyOfRange(indexIds, 1, indexIds.length)),
                                (long) meanSize(r, new long[] {indexIds[0]}));
                    }
                }
            }
        }

        private static double meanSize(KernelFixtures.Raw r, long[] ids) {
            long bytes = 0;
            try {
                for (long id : ids) {
                    bytes += r.db.get(r.records, KernelFixtures.key(id)).length;
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
            return (double) bytes / ids.length;
        }

        @Setup(Level.Iteration)
        public void reopen() throws RocksDBException {
            closeStores();
            batch = KernelFixtures.distinct(random, BATCH, parts);
            if (store.equals("raw")) {
                raw = new KernelFixtures.Raw(dir.resolve("store"), true);
                for (long id : indexIds) {
                    sink += raw.db.get(raw.records, KernelFixtures.key(id)).length;
                }
            } else {
                open = KernelFixtures.open(uri);
                if (model.attach(open.fetch("oo1")) != parts) {
                    throw new IllegalStateException("wrong part count");
                }
                readsBefore = open.statistics().recordsRead();
            }
        }

        /** Checks that the shot did what it claims: exactly one record read per operation. */
        @TearDown(Level.Iteration)
        public void check() {
            if (open != null) {
                long reads = open.statistics().recordsRead() - readsBefore;
                if (reads != BATCH) {
                    throw new IllegalStateException(store + ": " + reads + " records read for " + BATCH + " fault-ins");
                }
            }
        }

        private void closeStores() {
            if (open != null) {
                open.close();
                open = null;
            }
            if (raw != null) {
                raw.close();
                raw = null;
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            closeStores();
            KernelFixtures.delete(dir);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long coldFetch(Fixture f) throws RocksDBException {
        long digest = 0;
        if (f.raw != null) {
            for (int id : f.batch) {
                byte[] v = f.raw.db.get(f.raw.records, KernelFixtures.key(f.partIds[id]));
                digest += v.length + v[v.length - 1];
            }
        } else {
            for (int id : f.batch) {
                digest += f.model.touch(id);
            }
        }
        return digest;
    }
}
