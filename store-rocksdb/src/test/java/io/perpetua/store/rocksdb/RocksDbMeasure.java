package io.perpetua.store.rocksdb;

import io.perpetua.spi.WriteSet;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The measurement behind {@link RocksDbTuning#DEFAULT}: not a test (no JUnit, no assertion on
 * time), a program to run by hand when the settings are revisited:
 * <pre>{@code
 * mvn -q -pl store-rocksdb test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt -Dmdep.includeScope=test
 * java -cp store-rocksdb/target/test-classes:store-rocksdb/target/classes:$(cat cp.txt) \
 *      io.perpetua.store.rocksdb.RocksDbMeasure [records] [rounds]
 * }</pre>
 *
 * <h2>What it does, per variant of the settings</h2>
 * <ol>
 * <li>Loads {@code records} (default 200,000) OO1-sized parts of 100 bytes (an id, a type
 *     string, coordinates, a date, three connections with their own ids, types and lengths),
 *     on every other id, so that the odd ids are absent but inside the key range, in commits
 *     of 1,000; flushes and compacts; then overwrites 10% of them (OO1's update) and flushes
 *     again, so that an L0 file lies over the bottom level, as in a live store.</li>
 * <li>Reopens the store (the block cache starts empty; the operating system's page cache is
 *     warm, so "cold" measures RocksDB's own work: index and filter lookups, block reads,
 *     checksums, decompression), then times 200,000 random lookups of present ids, then of
 *     absent ids, then the present ones again (warm).</li>
 * </ol>
 * Each variant is measured {@code rounds} times (default 3), round-robin, and the median is
 * printed, in nanoseconds per operation and as a ratio to the default settings. Lookups are
 * timed in CPU time of the reading thread (steady on a shared machine); loads and updates in
 * wall time, since RocksDB's background threads take part in them.
 */
public final class RocksDbMeasure {

    private RocksDbMeasure() {
    }

    public static void main(String[] args) throws IOException {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        RocksDbTuning base = RocksDbTuning.DEFAULT;
        Map<String, RocksDbTuning> variants = new LinkedHashMap<>();
        variants.put("default", base);
        variants.put("no bloom filter", new RocksDbTuning(0, base.blockCacheBytes(), base.lz4(), base.blockSize()));
        variants.put("no compression", new RocksDbTuning(base.bloomBitsPerKey(), base.blockCacheBytes(), false, base.blockSize()));
        variants.put("cache 8 MiB", new RocksDbTuning(base.bloomBitsPerKey(), 8L << 20, base.lz4(), base.blockSize()));
        variants.put("cache 128 MiB", new RocksDbTuning(base.bloomBitsPerKey(), 128L << 20, base.lz4(), base.blockSize()));
        variants.put("block 16 KiB", new RocksDbTuning(base.bloomBitsPerKey(), base.blockCacheBytes(), base.lz4(), 16 << 10));

        System.out.printf("%d records of 100 bytes, median of %d rounds, ns per operation%n", records, rounds);
        // Round-robin over the variants, so that noise from other processes spreads evenly.
        Map<String, List<double[]>> results = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, RocksDbTuning> variant : variants.entrySet()) {
                results.computeIfAbsent(variant.getKey(), k -> new ArrayList<>())
                        .add(measure(variant.getValue(), records, round));
            }
        }
        System.out.printf("%-16s %9s %9s %9s %9s %9s %9s %11s%n", "variant", "load/rec", "cold hit", "cold miss",
                "warm hit", "update", "mget/rec", "disk bytes");
        double[] reference = null;
        for (Map.Entry<String, List<double[]>> variant : results.entrySet()) {
            double[] m = median(variant.getValue());
            if (reference == null) {
                reference = m;
            }
            System.out.printf("%-16s %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %11.0f%n", variant.getKey(),
                    m[0], m[1], m[2], m[3], m[4], m[5], m[6]);
            System.out.printf("%-16s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %11.2f%n", "  ratio",
                    m[0] / reference[0], m[1] / reference[1], m[2] / reference[2], m[3] / reference[3],
                    m[4] / reference[4], m[5] / reference[5], m[6] / reference[6]);
        }
    }

    /**
     * @return ns per loaded record, per cold hit, cold miss, warm hit, per updated record, per
     *         record of a 1,000-id readMany (what a commit's exact counting costs per
     *         overwritten record), and the bytes on disk
     */
    private static double[] measure(RocksDbTuning tuning, int records, int round) throws IOException {
        Path dir = Files.createTempDirectory("perpetua-measure");
        try {
            SplittableRandom random = new SplittableRandom(42 + round);
            long first;
            long loadNanos;
            long updateNanos;
            int updates = records / 10;
            try (RocksDbBackend backend = RocksDbBackend.open(dir, false, tuning)) {
                first = backend.allocateIds(2 * records);
                long start = System.nanoTime();
                for (int done = 0; done < records; ) {
                    WriteSet writes = new WriteSet();
                    for (int i = 0; i < 1000 && done < records; i++, done++) {
                        long id = first + 2L * done;
                        writes.put(id, part(id, first, records, random));
                    }
                    backend.commit(writes);
                }
                backend.flushAndCompact();
                loadNanos = System.nanoTime() - start;
                start = System.nanoTime();
                for (int done = 0; done < updates; ) {
                    WriteSet writes = new WriteSet();
                    for (int i = 0; i < 1000 && done < updates; i++, done++) {
                        long id = first + 2L * random.nextInt(records);
                        writes.put(id, part(id, first, records, random));
                    }
                    backend.commit(writes);
                }
                updateNanos = System.nanoTime() - start;
                backend.flush();
            }
            long diskBytes;
            double coldHit;
            double coldMiss;
            double warmHit;
            double multiGet;
            try (RocksDbBackend backend = RocksDbBackend.open(dir, false, tuning)) {
                diskBytes = dataBytes(dir);
                long[] present = new long[records];
                long[] absent = new long[records];
                for (int i = 0; i < records; i++) {
                    present[i] = first + 2L * random.nextInt(records);
                    absent[i] = first + 2L * random.nextInt(records) + 1;
                }
                coldHit = lookups(backend, present, true);
                coldMiss = lookups(backend, absent, false);
                warmHit = lookups(backend, present, true);
                long start = cpuNanos();
                for (int i = 0; i + 1000 <= records; i += 1000) {
                    backend.readMany(Arrays.copyOfRange(present, i, i + 1000));
                }
                multiGet = (double) (cpuNanos() - start) / (records - records % 1000);
            }
            return new double[] {(double) loadNanos / records, coldHit, coldMiss, warmHit,
                    (double) updateNanos / updates, multiGet, diskBytes};
        } finally {
            delete(dir);
        }
    }

    private static double lookups(RocksDbBackend backend, long[] ids, boolean present) {
        long found = 0;
        long start = cpuNanos();
        for (long id : ids) {
            if (backend.read(id) != null) {
                found++;
            }
        }
        long nanos = cpuNanos() - start;
        if (found != (present ? ids.length : 0)) {
            throw new IllegalStateException("found " + found + " of " + ids.length + " (present: " + present + ")");
        }
        return (double) nanos / ids.length;
    }

    /**
     * The CPU time of this thread: lookups served from the operating system's page cache are
     * CPU work, and on a machine shared with other jobs this is far steadier than wall time.
     */
    private static long cpuNanos() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    /** An OO1 part: 100 bytes. */
    private static byte[] part(long id, long first, int records, SplittableRandom random) {
        ByteBuffer buffer = ByteBuffer.allocate(100);
        buffer.putLong(id);
        buffer.put(("part-type" + random.nextInt(10)).getBytes(StandardCharsets.US_ASCII));
        buffer.putInt(random.nextInt(100_000)).putInt(random.nextInt(100_000));
        buffer.putLong(1_700_000_000_000L + random.nextInt(1_000_000_000));
        for (int c = 0; c < 3; c++) {
            // OO1: 90% of connections go to a part with a close id
            long to = random.nextInt(10) < 9
                    ? Math.min(first + 2L * (records - 1), Math.max(first, id + 2L * (random.nextInt(200) - 100)))
                    : first + 2L * random.nextInt(records);
            buffer.putLong(to);
            buffer.put(("conn-type" + random.nextInt(10)).getBytes(StandardCharsets.US_ASCII));
            buffer.putInt(random.nextInt(1000));
        }
        return buffer.array();
    }

    private static double[] median(List<double[]> results) {
        double[] median = new double[results.get(0).length];
        for (int k = 0; k < median.length; k++) {
            int column = k;
            double[] values = results.stream().mapToDouble(r -> r[column]).sorted().toArray();
            median[k] = values[values.length / 2];
        }
        return median;
    }

    /** The SST and log bytes: the data, without RocksDB's info LOG files. */
    private static long dataBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> {
                String name = p.getFileName().toString();
                return name.endsWith(".sst") || name.endsWith(".log");
            }).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
