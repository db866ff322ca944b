package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.NullProcedure.Answer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * One phase of one row on one size, in the current JVM: the load (generate, create, make
 * persistent, stabilize, heap held, terminate, size on disk), or one operation (open a fresh
 * store, run 1 cold, runs 2 to 10 warm, then the hot runs). The driver {@link Oo1} runs each
 * phase in a JVM of its own, so that each operation's run 1 is cold: a fresh JVM and a freshly
 * opened store; tests run phases in-process.
 *
 * <p>The result is a {@link Properties}: {@code status} ({@code ok}, {@code skipped},
 * {@code failed}), {@code message}, {@code version}, and per phase the figures (nanoseconds) and
 * the answers the null procedure consumed, one per run, for the driver to cross-check.
 */
public final class RowRun {

    /** Cold plus warm runs. */
    public static final int RUNS = 10;
    /** The hot figure is the median of at most this many last runs. */
    public static final int HOT_WINDOW = 20;

    /**
     * What a phase needs to know.
     *
     * @param row the system
     * @param size the database size
     * @param seed the master seed
     * @param hotRuns extra runs after the ten (0: no hot figure)
     * @param jdbcUrl the server for {@link Row#JDBC_URL}, else null
     * @param jdbcUser may be null
     * @param jdbcPassword may be null
     */
    public record Settings(Row row, Size size, long seed, int hotRuns, String jdbcUrl,
                           String jdbcUser, String jdbcPassword) {

        /** @return the same settings for another row */
        public Settings with(Row other) {
            return new Settings(other, size, seed, hotRuns, jdbcUrl, jdbcUser, jdbcPassword);
        }
    }

    private RowRun() {
    }

    /**
     * The load phase: generates the database, creates the store in {@code directory}, makes
     * the database persistent and stabilizes it (timed together: the load time), measures the
     * heap the row then holds ({@code heap.bytes}: live objects after the load, less those
     * before it; every row still refers to its database, so a store's objects are all
     * resident), terminates, and measures the store's size.
     */
    public static Properties load(Settings s, Path directory) {
        Properties p = new Properties();
        Implementation impl = s.row().create(s.jdbcUrl(), s.jdbcUser(), s.jdbcPassword());
        try {
            long g0 = System.nanoTime();
            Oo1Data data = Oo1Data.generate(s.size().parts, s.seed());
            long g1 = System.nanoTime();
            Files.createDirectories(directory);
            long heapBefore = liveHeapBytes();
            long t0 = System.nanoTime();
            impl.create(directory);
            impl.makeDatabasePersistent(data);
            impl.stabilize();
            long t1 = System.nanoTime();
            // the generated data is live in both figures, so only what the row keeps counts
            p.setProperty("heap.bytes", Long.toString(liveHeapBytes() - heapBefore));
            p.setProperty("version", impl.version());
            impl.terminate();
            p.setProperty("generate.nanos", Long.toString(g1 - g0));
            p.setProperty("load.nanos", Long.toString(t1 - t0));
            p.setProperty("size.bytes", Long.toString(impl.stores() ? impl.sizeOnDisk(directory) : 0));
            p.setProperty("status", "ok");
        } catch (Throwable e) {
            fail(p, e);
        } finally {
            terminateQuietly(impl);
        }
        return p;
    }

    /**
     * One operation's phase: opens the store loaded in {@code directory} (the transient row
     * builds its database again), times {@link #RUNS} + hot runs, and records each run's answer.
     * The insert phase then verifies what it inserted, after closing and reopening the store.
     */
    public static Properties operation(Settings s, Operation op, Path directory) {
        Properties p = new Properties();
        Implementation impl = s.row().create(s.jdbcUrl(), s.jdbcUser(), s.jdbcPassword());
        try {
            int n = s.size().parts;
            long o0 = System.nanoTime();
            open(impl, s, directory);
            long o1 = System.nanoTime();
            p.setProperty("version", impl.version());
            p.setProperty("open.nanos", Long.toString(o1 - o0));
            SplittableRandom random = Oo1Data.operationRandom(s.seed(), op);
            int total = RUNS + s.hotRuns();
            long[] times = new long[total];
            List<Answer> answers = new ArrayList<>(total);
            int[] ids = new int[Operation.LOOKUP_PARTS];
            int parts = n;
            for (int run = 0; run < total; run++) {
                Oo1Data batch = null;
                int root = 0;
                switch (op) {
                    case LOOKUP -> {
                        for (int i = 0; i < ids.length; i++) {
                            ids[i] = 1 + random.nextInt(n);
                        }
                    }
                    case TRAVERSAL, REVERSE -> root = 1 + random.nextInt(n);
                    case INSERT -> batch = Oo1Data.insertBatch(random, parts);
                }
                NullProcedure.reset();
                long t0 = System.nanoTime();
                switch (op) {
                    case LOOKUP -> impl.lookup(ids);
                    case TRAVERSAL -> impl.traverse(root, Operation.HOPS);
                    case REVERSE -> impl.reverseTraverse(root, Operation.HOPS);
                    case INSERT -> {
                        impl.insert(batch, parts + 1);
                        impl.stabilize();
                    }
                }
                times[run] = System.nanoTime() - t0;
                answers.add(NullProcedure.answer());
                if (batch != null) {
                    parts += batch.parts;
                }
            }
            p.setProperty("times", Arrays.stream(times).mapToObj(Long::toString)
                    .collect(Collectors.joining(",")));
            p.setProperty("answers", answers.stream().map(Answer::toString)
                    .collect(Collectors.joining(",")));
            if (op == Operation.INSERT) {
                p.setProperty("verify", verifyInserts(impl, s, directory, n, parts));
            }
            p.setProperty("status", "ok");
        } catch (Throwable e) {
            fail(p, e);
        } finally {
            terminateQuietly(impl);
        }
        return p;
    }

    private static void open(Implementation impl, Settings s, Path directory) throws Exception {
        if (impl.stores()) {
            impl.initiate(directory);
            impl.fetchDatabase();
        } else {
            impl.create(directory);
            impl.makeDatabasePersistent(Oo1Data.generate(s.size().parts, s.seed()));
            impl.stabilize();
        }
    }

    /**
     * Reads back what the insert runs wrote, from a reopened store: a lookup of every inserted
     * part, a traversal from the last one (their outgoing connections), a reverse traversal
     * from the first target of the first one (the targets' incoming lists).
     */
    private static String verifyInserts(Implementation impl, Settings s, Path directory, int n,
                                        int parts) throws Exception {
        if (impl.stores()) {
            impl.terminate();
            impl.initiate(directory);
            impl.fetchDatabase();
        }
        int[] inserted = new int[parts - n];
        for (int i = 0; i < inserted.length; i++) {
            inserted[i] = n + 1 + i;
        }
        NullProcedure.reset();
        impl.lookup(inserted);
        Answer lookup = NullProcedure.answer();
        NullProcedure.reset();
        impl.traverse(parts, Operation.HOPS);
        Answer traversal = NullProcedure.answer();
        int firstTarget = Oo1Data.insertBatch(Oo1Data.operationRandom(s.seed(), Operation.INSERT), n).to[0];
        NullProcedure.reset();
        impl.reverseTraverse(firstTarget, 3);
        Answer reverse = NullProcedure.answer();
        return lookup + ";" + traversal + ";" + reverse;
    }

    /**
     * @return the bytes of live objects on the heap: {@code used} right after two collections
     *         that {@link System#gc()} asks for (with G1 and the other collectors of the JDK, a
     *         full, compacting collection each unless the JVM was told otherwise)
     */
    static long liveHeapBytes() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void fail(Properties p, Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        String[] lines = w.toString().split("\\R");
        p.setProperty("status", "failed");
        p.setProperty("message", String.join(" | ", Arrays.asList(lines).subList(0, Math.min(6, lines.length))));
    }

    private static void terminateQuietly(Implementation impl) {
        try {
            impl.terminate();
        } catch (Throwable ignored) {
            // already failed or already closed
        }
    }

    /** Halts this JVM when its standard input ends (the driver holding the pipe is gone). */
    private static void haltWhenStdinCloses() {
        Thread watch = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // the driver writes nothing; only the end of the pipe matters
                }
            } catch (IOException e) {
                // the pipe is broken: the driver is gone as well
            }
            Runtime.getRuntime().halt(3);
        }, "oo1-driver-watch");
        watch.setDaemon(true);
        watch.start();
    }

    /**
     * @return true if this JVM runs the domain classes rewritten by the Perpetua agent
     */
    public static boolean agentActive() {
        try {
            Class<?> persistent = Class.forName("io.perpetua.runtime.Persistent");
            return persistent.isAssignableFrom(io.perpetua.benchmarks.oo1.model.Part.class);
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Child JVM entry: {@code --row R --size S --phase load|lookup|traversal|reverse|insert
     * --dir D --seed N --hot H --result FILE [--jdbc-url U --jdbc-user U --jdbc-password P]
     * [--until-stdin-closes true]}. Writes the result properties to FILE and prints one progress
     * line. With {@code --until-stdin-closes true} (the driver's way) the JVM also halts as soon as
     * its standard input reaches its end, which it does when the driver that holds the other end
     * of the pipe is gone, killed included: a phase does not outlive its driver.
     */
    public static void main(String[] args) throws IOException {
        Row row = null;
        Size size = null;
        String phase = null;
        Path dir = null;
        Path result = null;
        long seed = Oo1.DEFAULT_SEED;
        int hot = Oo1.DEFAULT_HOT_RUNS;
        String url = null;
        String user = null;
        String password = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--row" -> row = Row.of(v);
                case "--size" -> size = Size.of(v);
                case "--phase" -> phase = v;
                case "--dir" -> dir = Path.of(v);
                case "--result" -> result = Path.of(v);
                case "--seed" -> seed = Long.parseLong(v);
                case "--hot" -> hot = Integer.parseInt(v);
                case "--jdbc-url" -> url = v;
                case "--jdbc-user" -> user = v;
                case "--jdbc-password" -> password = v;
                case "--until-stdin-closes" -> {
                    if (Boolean.parseBoolean(v)) {
                        haltWhenStdinCloses();
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (row == null || size == null || phase == null || dir == null || result == null) {
            throw new IllegalArgumentException("need --row, --size, --phase, --dir and --result");
        }
        Settings s = new Settings(row, size, seed, hot, url, user, password);
        Properties p;
        if (row.needsAgent() && !agentActive()) {
            p = new Properties();
            p.setProperty("status", "skipped");
            p.setProperty("message", "agent not available: the domain classes were not rewritten"
                    + " (no -javaagent, or the agent did not rewrite them)");
        } else if (phase.equals("load")) {
            p = load(s, dir);
        } else {
            p = operation(s, Operation.valueOf(phase.toUpperCase(Locale.ROOT)), dir);
        }
        try (OutputStream out = Files.newOutputStream(result)) {
            p.store(out, null);
        }
        System.out.println(Report.progressLine(s, phase, p));
        System.out.flush();
        // RocksDB and EclipseStore may leave non-daemon threads behind a failure
        System.exit(0);
    }
}
