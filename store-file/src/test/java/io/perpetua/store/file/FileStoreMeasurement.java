package io.perpetua.store.file;

import io.perpetua.spi.WriteSet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A standalone measurement, not a test (numbers come from here, never from a timed unit test).
 * Builds stores shaped like OO1's record counts and reports load time, size on disk, the time to
 * open (cleanly closed, and after a crash with a full checkpoint interval to replay), read and
 * commit latencies. Run:
 * <pre>
 * java -Xmx2g -cp target/classes:target/test-classes:PERPETUA_CORE_JAR \
 *     io.perpetua.store.file.FileStoreMeasurement [directory]
 * </pre>
 * The page cache stays warm (dropping it needs root): the cold-disk open time adds the time to
 * read the checkpoint file once, sequentially, whose size is printed.
 */
public final class FileStoreMeasurement {
    private FileStoreMeasurement() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("open")) {
            // A fresh JVM's open: class loading and an unwarmed JIT included.
            long s = System.nanoTime();
            try (FileBackend b = Stores.open(Path.of(args[1]), "")) {
                long t = System.nanoTime() - s;
                System.out.printf("open in a fresh JVM: %.0f ms, %,d objects%n", t / 1e6, b.statistics().objects());
            }
            return;
        }
        if (args.length == 2 && args[0].equals("build")) {
            build(Path.of(args[1]), 1_400_000, new SplittableRandom(1));
            return;
        }
        Path root = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("perpetua-file-measure");
        System.out.println("java " + System.getProperty("java.version") + ", " + Runtime.getRuntime().availableProcessors()
                + " cpus, directory " + root);
        measure(root.resolve("small"), "OO1 small-like: 140,000 records of 20-100 bytes", 140_000);
        measure(root.resolve("large"), "OO1 large-like: 1,400,000 records of 20-100 bytes", 1_400_000);
        latencies(root.resolve("latency"));
        deleteTree(root);
    }

    private static void measure(Path dir, String title, int records) throws Exception {
        System.out.println();
        System.out.println("== " + title);
        SplittableRandom random = new SplittableRandom(1);
        long t0 = System.nanoTime();
        long payload = build(dir, records, random);
        long first = 1;
        long load = System.nanoTime() - t0;
        report(dir, title, records, random, payload, load, first);
    }

    /** @return the payload bytes written */
    private static long build(Path dir, int records, SplittableRandom random) {
        long payload = 0;
        long first;
        try (FileBackend b = Stores.open(dir, "")) {
            first = b.allocateIds(records);
            for (int start = 0; start < records; start += 10_000) {
                WriteSet w = new WriteSet();
                for (int i = start; i < Math.min(records, start + 10_000); i++) {
                    byte[] v = new byte[20 + random.nextInt(81)];
                    random.nextBytes(v);
                    payload += v.length;
                    w.put(first + i, v);
                }
                if (start == 0) {
                    w.bind("root", first);
                }
                b.commit(w);
            }
        }
        return payload;
    }

    private static void report(Path dir, String title, int records, SplittableRandom random, long payload, long load,
            long first) throws Exception {
        long size = directorySize(dir);
        System.out.printf("load (commits of 10,000, fsync each, close with checkpoint): %.2f s%n", load / 1e9);
        System.out.printf("payload %,d bytes; store %,d bytes on disk (%.2f x payload); checkpoint %,d bytes%n",
                payload, size, (double) size / payload, Files.size(dir.resolve(Checkpoint.FILE)));

        long[] opens = new long[7];
        for (int i = 0; i < opens.length; i++) {
            System.gc();
            long s = System.nanoTime();
            FileBackend b = Stores.open(dir, "");
            opens[i] = System.nanoTime() - s;
            if (i == opens.length - 1) {
                System.gc();
                Runtime rt = Runtime.getRuntime();
                System.out.printf("heap in use with the store open: %,d MB%n", (rt.totalMemory() - rt.freeMemory()) >> 20);
                readLatency(b, first, records);
            }
            b.close();
        }
        Arrays.sort(opens);
        System.out.printf("open, cleanly closed store: min %.0f ms, median %.0f ms, max %.0f ms (%d runs)%n",
                opens[0] / 1e6, opens[opens.length / 2] / 1e6, opens[opens.length - 1] / 1e6, opens.length);

        // A crash with the most log a crash can leave to replay: just under checkpointBytes.
        Path image = dir.resolveSibling(dir.getFileName() + "-crash");
        try (FileBackend b = Stores.open(dir, "autoCompact=false")) {
            long written = 0;
            long limit = Options.DEFAULT.checkpointBytes() - (2 << 20);
            while (written < limit) {
                WriteSet w = new WriteSet();
                for (int i = 0; i < 10_000; i++) {
                    byte[] v = new byte[20 + random.nextInt(81)];
                    random.nextBytes(v);
                    written += v.length + Format.PUT_OVERHEAD;
                    w.put(first + random.nextInt(records), v);
                }
                b.commit(w);
            }
            Stores.copy(dir, image);
            System.out.printf("crash image with %,d bytes of log after the checkpoint%n", written);
        }
        long s = System.nanoTime();
        try (FileBackend b = Stores.open(image, "")) {
            long opened = System.nanoTime() - s;
            System.out.printf("open after a crash (checkpoint + replay): %.0f ms%n", opened / 1e6);
            if (b.statistics().objects() != records) {
                throw new AssertionError("objects: " + b.statistics().objects());
            }
        }
        deleteTree(image);
        deleteTree(dir);
    }

    private static void readLatency(FileBackend b, long first, int records) {
        SplittableRandom random = new SplittableRandom(5);
        int n = 20_000;
        long s = System.nanoTime();
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += b.read(first + random.nextInt(records)).length;
        }
        long t = System.nanoTime() - s;
        System.out.printf("random read right after open (page cache warm): %.1f us/read (%d reads, %,d bytes)%n",
                t / 1e3 / n, n, bytes);
    }

    private static void latencies(Path dir) throws Exception {
        System.out.println();
        System.out.println("== commit latency, one record of 60 bytes per commit");
        for (String sync : new String[] {"true", "false"}) {
            Path d = dir.resolve("sync-" + sync);
            try (FileBackend b = Stores.open(d, "sync=" + sync)) {
                long first = b.allocateIds(10_000);
                byte[] v = new byte[60];
                int n = sync.equals("true") ? 500 : 20_000;
                for (int i = 0; i < Math.min(n, 200); i++) {
                    b.commit(new WriteSet().put(first + i, v)); // warm-up
                }
                long s = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    b.commit(new WriteSet().put(first + (i % 10_000), v));
                }
                long t = System.nanoTime() - s;
                System.out.printf("sync=%s: %.1f us/commit (%d commits)%n", sync, t / 1e3 / n, n);
            }
        }
    }

    private static long directorySize(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
