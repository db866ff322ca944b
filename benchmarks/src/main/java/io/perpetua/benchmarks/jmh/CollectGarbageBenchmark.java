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

import java.util.concurrent.TimeUnit;

/**
 * {@link PersistentStore#collectGarbage()} on the OO1 database, against {@link
 * PersistentStore#preload} of the same store in the same run: both read every record reachable
 * from the root once; the collection only looks for references in the bytes and then lists the
 * store's ids, where the preload builds and fills every object.
 *
 * <p>One operation is one single shot on a store opened just before it (untimed) with nothing
 * resident; the JIT is warm, RocksDB's block cache cold, the operating system's page cache warm.
 * Every part is reachable, so the collection deletes nothing: what is measured is its marking
 * and its listing, which it pays whatever it finds.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar CollectGarbageBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 15)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"}) // RocksDB JNI: no JDK 24+ warning
public class CollectGarbageBenchmark {

    /** The store, opened afresh for each shot. */
    @State(Scope.Benchmark)
    public static class Fixture {
        @Param({"collectGarbage", "preload"})
        public String operation;

        @Param({"rocksdb", "file"})
        public String store;

        /** Parts in the database (20,000: OO1 small). */
        @Param({"20000"})
        public int parts;

        String uri;
        PersistentStore open;

        @Setup(Level.Trial)
        public void build() {
            uri = store + ":" + KernelFixtures.tempDirectory("perpetua-jmh-gc").resolve("store");
            KernelFixtures.buildOo1(uri, parts);
        }

        @Setup(Level.Iteration)
        public void open() {
            open = KernelFixtures.open(uri);
        }

        @TearDown(Level.Iteration)
        public void close() {
            open.close();
        }
    }

    @Benchmark
    public long run(Fixture f) {
        if (f.operation.equals("preload")) {
            return f.open.preload("oo1");
        }
        long deleted = f.open.collectGarbage();
        if (deleted != 0) {
            throw new IllegalStateException(deleted + " records deleted from a store where everything is reachable");
        }
        return deleted;
    }
}
