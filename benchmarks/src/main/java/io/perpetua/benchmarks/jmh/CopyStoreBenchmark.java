package io.perpetua.benchmarks.jmh;

import io.perpetua.PersistentStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@link PersistentStore#copyTo} of the OO1 database from RocksDB into a new store, against
 * hand-written code on the RocksDB API that copies the same records (an iterator over the
 * records, write batches of 4 MiB, each synced, as the copy's commits are) in the same run.
 *
 * <p>One operation is one single shot: the target is a new directory, opened, written and
 * closed inside the shot, by both; the source is opened just before it (untimed). The JIT is
 * warm, RocksDB's block cache cold, the operating system's page cache warm.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar CopyStoreBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 15)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"}) // RocksDB JNI: no JDK 24+ warning
public class CopyStoreBenchmark {

    /** The source store, built once; a new target for each shot. */
    @State(Scope.Benchmark)
    public static class Fixture {
        /** {@code copyTo} into RocksDB or into the file store, or the raw RocksDB copy. */
        @Param({"copyTo-rocksdb", "copyTo-file", "raw-rocksdb"})
        public String operation;

        /** Parts in the database (20,000: OO1 small). */
        @Param({"20000"})
        public int parts;

        Path sourceDir;
        Path targets;
        Path target;
        PersistentStore source;
        KernelFixtures.Raw rawSource;
        int shot;

        @Setup(Level.Trial)
        public void build() {
            sourceDir = KernelFixtures.tempDirectory("perpetua-jmh-copy").resolve("store");
            targets = KernelFixtures.tempDirectory("perpetua-jmh-copy-targets");
            KernelFixtures.buildOo1("rocksdb:" + sourceDir, parts);
        }

        @Setup(Level.Iteration)
        public void open() {
            target = targets.resolve("copy-" + shot++);
            if (operation.startsWith("raw")) {
                rawSource = new KernelFixtures.Raw(sourceDir, true);
            } else {
                source = KernelFixtures.open("rocksdb:" + sourceDir);
            }
        }

        @TearDown(Level.Iteration)
        public void close() {
            if (rawSource != null) {
                rawSource.close();
                rawSource = null;
            }
            if (source != null) {
                source.close();
                source = null;
            }
            KernelFixtures.delete(target);
        }

        @TearDown(Level.Trial)
        public void deleteAll() {
            KernelFixtures.delete(sourceDir.getParent());
            KernelFixtures.delete(targets);
        }
    }

    @Benchmark
    public long run(Fixture f) throws RocksDBException {
        return switch (f.operation) {
            case "copyTo-rocksdb" -> f.source.copyTo("rocksdb:" + f.target);
            case "copyTo-file" -> f.source.copyTo("file:" + f.target);
            case "raw-rocksdb" -> rawCopy(f.rawSource, f.target);
            default -> throw new IllegalArgumentException(f.operation);
        };
    }

    /** Copies every record into a new database, in synced batches of about 4 MiB. */
    private static long rawCopy(KernelFixtures.Raw from, Path dir) throws RocksDBException {
        long copied = 0;
        try (KernelFixtures.Raw to = new KernelFixtures.Raw(dir, false);
             WriteOptions sync = new WriteOptions().setSync(true);
             RocksIterator it = from.db.newIterator(from.records)) {
            WriteBatch batch = new WriteBatch();
            long bytes = 0;
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] value = it.value();
                batch.put(to.records, it.key(), value);
                bytes += value.length;
                copied++;
                if (bytes >= 4 << 20) {
                    to.db.write(sync, batch);
                    batch.close();
                    batch = new WriteBatch();
                    bytes = 0;
                }
            }
            it.status();
            to.db.write(sync, batch);
            batch.close();
        }
        return copied;
    }
}
