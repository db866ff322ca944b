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

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The commit of an OO1 insert: 100 new parts with 300 new connections, through the public API,
 * against a raw RocksDB {@code WriteBatch} of the same records, in the same run; durable on both
 * sides ({@code sync=true}, the product's default, and {@code WriteOptions.setSync(true)}).
 *
 * <h2>What one operation is</h2>
 * The store holds an OO1 database of {@code parts} parts (20,000: OO1 small), built once per
 * fork. Before each operation, untimed ({@code Level.Invocation}): the targets of the 300 new
 * connections are drawn with OO1's locality rule and made resident (Perpetua: fault-in of each
 * target part; raw: {@code db.get} of each target's record), and a transaction is begun. The
 * operation (one {@code SingleShotTime} shot, so one commit per measurement) then
 * <ul>
 *   <li>Perpetua ({@code rocksdb}, {@code file}): creates the 100 parts and 300 connections,
 *       appends each connection to its target's incoming array, adds the parts to the index,
 *       and commits. The commit writes the 100 parts (each holding its 3 new connections as
 *       satellites), each changed target, the changed index chunk(s) and the root.</li>
 *   <li>{@code raw} ({@link RawOo1}): encodes the new parts holding their connections, the
 *       changed targets, the chunk and the root by hand and writes them in one synced
 *       {@code WriteBatch}, on a database with the table settings of
 *       perpetua-store-rocksdb.</li>
 * </ul>
 * The record counts of both sides are printed at the end of each fork ("records per commit"):
 * about 300 on both sides, each connection stored in its source part's record. With
 * {@code session=kept} each side keeps what it made resident (Perpetua's objects stay reachable
 * from the resident index, as in an application); with {@code fresh} each side starts each
 * operation from a freshly opened database (Perpetua: its store, so nothing is resident but what
 * the operation reads; raw: its RocksDB, whose index stays in memory). Both reopen so that both
 * commit right after an open, when RocksDB compacts what its recovery flushed and a first write
 * can wait behind that; until session 18 only Perpetua reopened, and paid that alone. Either way
 * the database grows by 100 parts per operation (6,000 over a default run).
 *
 * <h2>JIT warm-up</h2>
 * Before the trial, each side runs {@code jitWarmup} inserts and commits (2,000 by default) on
 * scratch databases of {@value #WARMUP_PARTS} parts, a new one every {@value #WARMUP_ROUND}
 * commits, the same store kind and session, deleted after: what is measured then runs as a
 * long-running program runs it, compiled, without the measured database growing by the
 * warm-up's parts. JMH's own warm-up iterations did not get there: one commit each, 20 of
 * them, and on two cores the JIT's single C2 thread took hundreds of milliseconds per
 * recompilation of the commit path (every new receiver class or first-taken branch sends it
 * back), so about half the forks measured Perpetua's commit partly in C1's profiling code, at
 * up to twice the time (JFR's compilation events, session 24). Until session 29 the warm-up was
 * 300 commits: too few for the methods a commit calls once (the commit's phases), which C2
 * compiles whole only after 600 calls (HotSpot's {@code Tier4MinInvocationThreshold}, raised
 * further while the compile queue is long), however long their loops. -XX:+PrintCompilation
 * showed the commit's build phase in C1's profiling code when the measurement began, and
 * compiled by C2 during it; the JIT's compilation time per 250 warm-up commits (Intel, 2 cores)
 * stayed between 0.5 and 1.4 s for the first 1,500 and fell below 0.1 s after. And one class
 * load undid the warm-up until session 29: see {@link KernelFixtures#loadContendedLockNode}.
 * {@code -p jitWarmup=0} measures the cold case.
 *
 * <p>Target (store-rocksdb issue): {@code rocksdb / raw ≤ 2}; the file store against the same
 * baseline. Run: {@code java -jar benchmarks/target/benchmarks.jar Oo1CommitBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 20)
@Measurement(iterations = 40)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"}) // RocksDB JNI: no JDK 24+ warning
public class Oo1CommitBenchmark {

    /** New parts per commit. */
    public static final int NEW_PARTS = 100;
    /** Parts of the scratch database the JIT warm-up runs on. */
    public static final int WARMUP_PARTS = 2_000;
    /** Warm-up commits per scratch database: each grows by {@value #NEW_PARTS} parts a commit. */
    public static final int WARMUP_ROUND = 250;

    @State(Scope.Benchmark)
    public static class Fixture {
        @Param({"rocksdb", "file", "raw"})
        public String store;

        /** Sync every commit (the comparison is durable on both sides). */
        @Param({"true"})
        public boolean sync;

        @Param({"20000"})
        public int parts;

        /**
         * What is resident when the commit runs. {@code kept}: everything earlier operations made
         * resident stays so, as in a long-running application (the object table grows with them;
         * before the array write log, the commit compared every resident array too).
         * {@code fresh}: the store (raw: the database) is closed and reopened before each
         * operation (untimed), so only what the operation touches is resident.
         */
        @Param({"kept", "fresh"})
        public String session;

        /** Inserts and commits run on scratch databases before the trial (see "JIT warm-up"). */
        @Param({"2000"})
        public int jitWarmup;

        /** Whether {@link #tearDown} prints the records per commit (not for the warm-up's scratch fixture). */
        boolean report = true;

        Path dir;
        String uri;
        KernelModel model;
        PersistentStore open;
        RawOo1 raw;
        final SplittableRandom random = new SplittableRandom(11);
        long written;
        long commits;

        @Setup(Level.Trial)
        public void build() throws RocksDBException {
            if (jitWarmup > 0) {
                KernelFixtures.loadContendedLockNode();
                warmUp();
            }
            dir = KernelFixtures.tempDirectory("perpetua-jmh-oo1commit");
            if (store.equals("raw")) {
                raw = new RawOo1(dir.resolve("store"), sync);
                raw.build(parts, KernelFixtures.SEED);
                return;
            }
            uri = switch (store) {
                case "rocksdb", "file" -> store + ":" + dir.resolve("store") + "?sync=" + sync;
                default -> throw new IllegalArgumentException(store);
            };
            model = KernelFixtures.model();
            KernelFixtures.buildOo1(uri, parts);
            open = KernelFixtures.open(uri);
            model.attach(open.fetch("oo1"));
            count(-1);
        }

        /**
         * Runs {@link #jitWarmup} operations on scratch fixtures of this one's kind, a new one
         * every {@link #WARMUP_ROUND} operations (so that none grows large), each deleted after.
         */
        private void warmUp() throws RocksDBException {
            Oo1CommitBenchmark operation = new Oo1CommitBenchmark();
            for (int done = 0; done < jitWarmup; ) {
                Fixture scratch = new Fixture();
                scratch.store = store;
                scratch.sync = sync;
                scratch.parts = WARMUP_PARTS;
                scratch.session = session;
                scratch.jitWarmup = 0;
                scratch.report = false;
                scratch.build();
                for (int i = 0; i < WARMUP_ROUND && done < jitWarmup; i++, done++) {
                    scratch.prepare();
                    operation.insertAndCommit(scratch);
                }
                scratch.tearDown();
            }
        }

        /** Adds the open store's record and commit counts, times {@code sign}, to the totals. */
        private void count(int sign) {
            written += sign * open.statistics().recordsWritten();
            commits += sign * open.statistics().commits();
        }

        @Setup(Level.Invocation)
        public void prepare() throws RocksDBException {
            if (raw != null) {
                if (session.equals("fresh")) {
                    raw.reopen();
                }
                raw.prepareInsert(NEW_PARTS, random);
            } else {
                if (session.equals("fresh")) {
                    count(1);
                    open.close();
                    open = KernelFixtures.open(uri);
                    model.attach(open.fetch("oo1"));
                    count(-1);
                }
                model.prepareInsert(NEW_PARTS, random);
                open.beginTransaction();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            if (raw != null) {
                if (report) {
                    System.out.printf("%n%s: %.1f records per commit%n", store, (double) raw.recordsWritten / raw.commits);
                }
                raw.close();
            } else {
                count(1);
                if (report) {
                    System.out.printf("%n%s: %.1f records per commit%n", store, (double) written / commits);
                }
                open.close();
            }
            KernelFixtures.delete(dir);
        }
    }

    @Benchmark
    public int insertAndCommit(Fixture f) throws RocksDBException {
        if (f.raw != null) {
            f.raw.insertAndCommit();
            return 0;
        }
        int first = f.model.insert();
        f.open.commitTransaction();
        return first;
    }
}
