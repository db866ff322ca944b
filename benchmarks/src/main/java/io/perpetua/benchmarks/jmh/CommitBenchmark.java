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
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Commit cost per object: one transaction that makes {@code n} objects persistent
 * ({@code change=new}) or changes one field of each of {@code n} resident persistent objects
 * ({@code change=dirty}), then commits; against a raw RocksDB {@code WriteBatch} of {@code n}
 * records of similar size in the same run.
 *
 * <p>The object is a flat {@code Item} (an OO1 part without connections: 3 ints, a long, a
 * 9-character string; Perpetua's record about 40 bytes); new ones are made persistent one by
 * one with {@code store.persist(item)} and dropped after the commit (they are clean then, held
 * weakly by the kernel, and collected), so the resident set does not grow; dirty ones are the
 * same {@code n} objects, made persistent in the setup, every time. The raw side encodes
 * {@code n} records of 30 bytes (new keys, or the same {@code n} keys) and writes them in one
 * batch. One operation is one commit: the per-object cost is the slope between {@code n} values,
 * the fixed cost of a commit the value at {@code n=1}.
 *
 * <p>{@code store}: {@code rocksdb}, {@code file} (durable, the default), {@code -nosync}
 * variants ({@code ?sync=false}: no fsync, so the kernel's and the backend's CPU cost),
 * {@code memory} (no backend cost to speak of: the kernel alone), and {@code raw} /
 * {@code raw-nosync} (RocksDB with perpetua-store-rocksdb's settings, {@code setSync(true|false)}).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar CommitBenchmark}; a subset, e.g.
 * {@code -p store=rocksdb-nosync,memory,raw-nosync -p n=1,1000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"}) // RocksDB JNI: no JDK 24+ warning
public class CommitBenchmark {

    @State(Scope.Benchmark)
    public static class Fixture {
        @Param({"rocksdb", "rocksdb-nosync", "file", "file-nosync", "memory", "raw", "raw-nosync"})
        public String store;

        @Param({"new", "dirty"})
        public String change;

        @Param({"1", "100", "1000"})
        public int n;

        Path dir;
        KernelModel model;
        PersistentStore open;
        KernelFixtures.Raw raw;
        WriteOptions rawWrite;
        Object[] items;
        int next = 1;
        int value;

        @Setup(Level.Trial)
        public void setUp() {
            boolean newObjects = switch (change) {
                case "new" -> true;
                case "dirty" -> false;
                default -> throw new IllegalArgumentException(change);
            };
            if (store.startsWith("raw")) {
                dir = KernelFixtures.tempDirectory("perpetua-jmh-commit");
                raw = new KernelFixtures.Raw(dir.resolve("store"), false);
                rawWrite = new WriteOptions().setSync(!store.endsWith("-nosync"));
                next = newObjects ? 1 : n + 1;
                return;
            }
            String uri;
            if (store.equals("memory")) {
                uri = "memory:";
            } else {
                dir = KernelFixtures.tempDirectory("perpetua-jmh-commit");
                String scheme = store.replace("-nosync", "");
                if (!scheme.equals("rocksdb") && !scheme.equals("file")) {
                    throw new IllegalArgumentException(store);
                }
                uri = scheme + ":" + dir.resolve("store") + (store.endsWith("-nosync") ? "?sync=false" : "");
            }
            model = KernelFixtures.model();
            open = KernelFixtures.open(uri);
            if (!newObjects) {
                items = new Object[n];
                open.beginTransaction();
                for (int i = 0; i < n; i++) {
                    items[i] = model.newItem(next++);
                    open.persist(items[i]);
                }
                open.commitTransaction();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            if (open != null) {
                open.close();
            }
            if (raw != null) {
                rawWrite.close();
                raw.close();
            }
            KernelFixtures.delete(dir);
        }
    }

    @Benchmark
    public int commit(Fixture f) throws RocksDBException {
        if (f.raw != null) {
            boolean fresh = f.change.equals("new");
            int v = ++f.value;
            try (WriteBatch batch = new WriteBatch()) {
                for (int i = 0; i < f.n; i++) {
                    int id = fresh ? f.next++ : i + 1;
                    batch.put(KernelFixtures.key(id), item(id, v));
                }
                f.raw.db.write(f.rawWrite, batch);
            }
            return v;
        }
        f.open.beginTransaction();
        if (f.items == null) {
            for (int i = 0; i < f.n; i++) {
                f.open.persist(f.model.newItem(f.next++));
            }
        } else {
            f.model.touchItems(f.items, ++f.value);
        }
        f.open.commitTransaction();
        return f.next;
    }

    /** The raw record of an item: id, x, y (4 each), build (8), type (10). */
    private static byte[] item(int id, int x) {
        byte[] b = new byte[30];
        RawOo1.putInt(b, 0, id);
        RawOo1.putInt(b, 4, x);
        RawOo1.putInt(b, 8, id * 13 % 100_000);
        RawOo1.putInt(b, 16, id % 3_650);
        String type = "part-type" + id % 10;
        for (int i = 0; i < type.length(); i++) {
            b[20 + i] = (byte) type.charAt(i);
        }
        return b;
    }
}
