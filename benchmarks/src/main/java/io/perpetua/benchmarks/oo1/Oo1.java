package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.NullProcedure.Answer;
import io.perpetua.benchmarks.oo1.RowResult.Status;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The OO1 comparison driver (spec: {@code shared/design/oo1.md}). For each size and row it runs
 * the load and then each operation in a JVM of its own (same java, same class path, a fixed
 * heap; the Perpetua rows with {@code -javaagent}), cross-checks every row's answers against the
 * transient reference, and prints and writes the tables, the JSON and the SVG chart.
 *
 * <pre>
 * java -cp ... io.perpetua.benchmarks.oo1.Oo1 [--sizes tiny,small,large]
 *     [--rows transient,perpetua-rocksdb,perpetua-rocksdb-preload,perpetua-file,rocksdb,eclipsestore,jdbc,jdbc-url]
 *     [--jdbc-url jdbc:postgresql://host/db --jdbc-user u --jdbc-password p]
 *     [--out dir] [--hot 30] [--heap 4g] [--seed n] [--agent perpetua-agent.jar]
 * </pre>
 * The agent jar defaults to the system property {@code oo1.agent}. The row {@code jdbc-url} runs
 * when {@code --jdbc-url} is given (and only then). Exit status: 0 when every row ran (or was
 * skipped: no agent jar, no server), 1 when a row was WRONG or FAILED (the results are written
 * all the same), 2 for a bad option (nothing runs); {@code --help} prints this usage and exits 0.
 */
public final class Oo1 {

    /** The master seed: 1 January 1992, OO1's year. */
    public static final long DEFAULT_SEED = 19920101L;
    /** Extra runs after the ten, for the hot figure (median of the last {@value RowRun#HOT_WINDOW}). */
    public static final int DEFAULT_HOT_RUNS = 100;
    /** The most extra runs {@code --hot} takes. */
    static final int MAX_HOT_RUNS = 1_000_000;

    private final List<Size> sizes = new ArrayList<>(List.of(Size.SMALL));
    private final Set<Row> rows = new LinkedHashSet<>();
    private String jdbcUrl;
    private String jdbcUser;
    private String jdbcPassword;
    private Path out = Path.of("results");
    private int hotRuns = DEFAULT_HOT_RUNS;
    private String heap = "4g";
    private long seed = DEFAULT_SEED;
    private Path agent;
    private final Map<String, String> environment = new LinkedHashMap<>();
    /** Guards {@link #child} and {@link #stopping}. */
    private final Object phases = new Object();
    /** The phase JVM running now, or null. */
    private Process child;
    /** Set when this JVM is shutting down: no phase starts any more. */
    private boolean stopping;

    private Oo1() {
    }

    /** The usage line, as {@code --help} prints it. */
    static final String USAGE = "usage: Oo1 [--sizes tiny,small,large] [--rows transient,perpetua-rocksdb,"
            + "perpetua-rocksdb-preload,perpetua-file,rocksdb,eclipsestore,jdbc,jdbc-url] [--jdbc-url URL"
            + " [--jdbc-user U] [--jdbc-password P]] [--out DIR] [--hot N] [--heap 4g] [--seed N] [--agent JAR]";

    public static void main(String[] args) throws Exception {
        int status = execute(args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Parses the options and runs the comparison.
     *
     * @return the exit status: 0 when every row ran or was skipped, 1 when a row was WRONG or
     *         FAILED, 2 for a bad option (reported on {@code System.err}; nothing ran)
     */
    static int execute(String[] args) throws Exception {
        Oo1 oo1 = new Oo1();
        try {
            if (!oo1.parse(args)) {
                System.out.println(USAGE);
                return 0;
            }
        } catch (IllegalArgumentException e) {
            System.err.println("oo1: " + e.getMessage());
            return 2;
        }
        return oo1.run();
    }

    /** @return false if the usage was asked for ({@code --help}) */
    private boolean parse(String[] raw) {
        List<String> args = new ArrayList<>();
        for (String a : raw) { // exec:exec passes ${oo1.args} as one argument, maybe empty
            for (String part : a.trim().split("\\s+")) {
                if (!part.isEmpty()) {
                    args.add(part);
                }
            }
        }
        if (args.contains("--help") || args.contains("-h")) {
            return false;
        }
        String agentProperty = System.getProperty("oo1.agent");
        agent = agentProperty == null || agentProperty.isBlank() ? null : Path.of(agentProperty);
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!OPTIONS.contains(a)) {
                throw new IllegalArgumentException("unknown option " + a + " (try --help)");
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args.get(++i);
            switch (a) {
                case "--sizes" -> {
                    sizes.clear();
                    for (String s : v.split(",")) {
                        sizes.add(Size.of(s));
                    }
                }
                case "--rows" -> {
                    for (String r : v.split(",")) {
                        rows.add(Row.of(r));
                    }
                }
                case "--jdbc-url" -> jdbcUrl = v;
                case "--jdbc-user" -> jdbcUser = v;
                case "--jdbc-password" -> jdbcPassword = v;
                case "--out" -> out = Path.of(v);
                case "--hot" -> hotRuns = (int) number(a, v, 0, MAX_HOT_RUNS);
                case "--heap" -> {
                    if (!v.matches("[1-9][0-9]*[kKmMgGtT]?")) {
                        throw new IllegalArgumentException("option --heap takes a heap size as -Xmx does (512m, 4g),"
                                + " not '" + v + "'");
                    }
                    heap = v;
                }
                case "--seed" -> seed = number(a, v, Long.MIN_VALUE, Long.MAX_VALUE);
                case "--agent" -> agent = Path.of(v);
                default -> throw new AssertionError(a);
            }
        }
        if (rows.contains(Row.JDBC_URL) && jdbcUrl == null) {
            throw new IllegalArgumentException("row jdbc-url needs the server's URL: --jdbc-url URL");
        }
        if (rows.isEmpty()) {
            for (Row r : Row.values()) {
                if (r != Row.JDBC_URL) {
                    rows.add(r);
                }
            }
        }
        rows.remove(Row.JDBC_URL);
        if (jdbcUrl != null) {
            rows.add(Row.JDBC_URL);
        }
        return true;
    }

    private static final Set<String> OPTIONS = Set.of("--sizes", "--rows", "--jdbc-url", "--jdbc-user",
            "--jdbc-password", "--out", "--hot", "--heap", "--seed", "--agent");

    /** @return the value of a whole-number option, {@code min} to {@code max} */
    private static long number(String option, String value, long min, long max) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + option + " takes a whole number, not '" + value + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("option " + option + " takes a number from " + min + " to " + max
                    + ", not " + value);
        }
        return n;
    }

    /** @return 1 if a row was WRONG or FAILED on some size, else 0 */
    private int run() throws Exception {
        long start = System.nanoTime();
        List<String> bad = new ArrayList<>();
        describeEnvironment();
        Files.createDirectories(out);
        Path work = Files.createTempDirectory("perpetua-oo1-");
        // stopped by a signal (SIGTERM, SIGINT, a CI timeout): stop the phase, delete the stores
        Thread cleanup = new Thread(() -> stop(work), "oo1-stop");
        Runtime.getRuntime().addShutdownHook(cleanup);
        System.out.printf(Locale.ROOT, "OO1 comparison: sizes %s, rows %s; one JVM per phase (-Xmx%s); results in %s%n",
                sizes.stream().map(Size::id).toList(), rows.stream().map(r -> r.id).toList(), heap,
                out.toAbsolutePath());
        System.out.println("Machine: " + environment.get("machine") + "; JDK " + environment.get("jdk"));
        try {
            for (Size size : sizes) {
                for (RowResult r : runSize(size, work)) {
                    if (r.status == Status.WRONG || r.status == Status.FAILED) {
                        bad.add(size.id() + " " + r.row.id + " " + r.status.name().toLowerCase(Locale.ROOT));
                    }
                }
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // shutting down: the hook stops the phase and deletes the directory
            }
            Files2.deleteTree(work);
        }
        System.out.printf(Locale.ROOT, "%nDone in %.1f s.%n", (System.nanoTime() - start) / 1e9);
        if (!bad.isEmpty()) {
            System.err.println("oo1: " + bad.size() + (bad.size() == 1 ? " row" : " rows") + " wrong or failed: "
                    + String.join(", ", bad) + " (see the table's status lines)");
            return 1;
        }
        return 0;
    }

    /** @return the rows' results */
    private List<RowResult> runSize(Size size, Path work) throws Exception {
        long t0 = System.nanoTime();
        System.out.printf(Locale.ROOT, "%n== %s: %,d parts, %,d connections, seed %d ==%n", size.id(), size.parts,
                size.parts * Oo1Data.FAN_OUT, seed);
        RowRun.Settings settings = new RowRun.Settings(Row.TRANSIENT, size, seed, hotRuns, jdbcUrl, jdbcUser,
                jdbcPassword);
        Map<Operation, Properties> reference = reference(settings, work);
        List<RowResult> results = new ArrayList<>();
        for (Row row : rows) {
            RowResult r = runRow(settings.with(row), work);
            if (r.status == Status.OK) {
                crossCheck(r, reference);
            }
            results.add(r);
        }
        environment.put("hotRuns", Integer.toString(hotRuns));
        String text = Report.tables(size, results, environment);
        System.out.print(text);
        List<String> notes = notes();
        Files.writeString(out.resolve("oo1-" + size.id() + ".txt"), text + "\nNotes:\n- "
                + String.join("\n- ", notes) + "\n", StandardCharsets.UTF_8);
        Files.writeString(out.resolve("oo1-" + size.id() + ".json"),
                Report.json(size, seed, results, environment, notes), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("oo1-" + size.id() + ".svg"), Report.svg(size, results, environment),
                StandardCharsets.UTF_8);
        System.out.printf(Locale.ROOT, "%s done in %.1f s; wrote %s/oo1-%s.{txt,json,svg}%n", size.id(),
                (System.nanoTime() - t0) / 1e9, out, size.id());
        return results;
    }

    /** The reference answers: the transient row's, computed in this JVM, untimed. */
    private Map<Operation, Properties> reference(RowRun.Settings settings, Path work) {
        Map<Operation, Properties> ref = new LinkedHashMap<>();
        for (Operation op : Operation.values()) {
            Properties p = RowRun.operation(settings, op, work.resolve("reference"));
            if (!"ok".equals(p.getProperty("status"))) {
                throw new IllegalStateException("reference " + op.id() + " failed: " + p.getProperty("message"));
            }
            ref.put(op, p);
        }
        return ref;
    }

    private RowResult runRow(RowRun.Settings s, Path work) throws Exception {
        RowResult r = new RowResult(s.row());
        if (s.row().needsAgent() && (agent == null || !Files.isRegularFile(agent))) {
            r.mark(Status.SKIPPED, "agent not available: no agent jar" + (agent == null ? " (set -Doo1.agent or --agent)"
                    : " at " + agent) + "; build it with mvn install");
            System.out.printf(Locale.ROOT, "  [%s] %-17s skipped: %s%n", s.size().id(), s.row().id, r.message);
            return r;
        }
        if (s.row() == Row.JDBC_URL) {
            String why = unreachable(s);
            if (why != null) {
                r.mark(Status.SKIPPED, "server not reachable: " + why);
                System.out.printf(Locale.ROOT, "  [%s] %-17s skipped: %s%n", s.size().id(), s.row().id, r.message);
                return r;
            }
        }
        Path dir = work.resolve(s.size().id() + "-" + s.row().id);
        Files2.deleteTree(dir);
        try {
            r.load = fork(s, "load", dir, work);
            if (!absorb(r, "load", r.load)) {
                return r;
            }
            for (Operation op : Operation.values()) {
                Properties p = fork(s, op.id(), dir, work);
                r.operations.put(op, p);
                if (!absorb(r, op.id(), p)) {
                    return r;
                }
            }
            return r;
        } finally {
            Files2.deleteTree(dir);
        }
    }

    private static boolean absorb(RowResult r, String phase, Properties p) {
        if (p.getProperty("version") != null) {
            r.version = p.getProperty("version");
        }
        String status = p.getProperty("status", "failed");
        if (status.equals("ok")) {
            return true;
        }
        r.mark(status.equals("skipped") ? Status.SKIPPED : Status.FAILED,
                (status.equals("skipped") ? "" : phase + ": ") + p.getProperty("message", "no result"));
        return false;
    }

    private static String unreachable(RowRun.Settings s) {
        DriverManager.setLoginTimeout(10);
        try (Connection c = DriverManager.getConnection(s.jdbcUrl(), s.jdbcUser(), s.jdbcPassword())) {
            return c.isValid(10) ? null : "connection not valid";
        } catch (Exception e) {
            return e.getMessage();
        }
    }

    /**
     * The shutdown hook of a run: no phase starts any more, the running one is stopped (its JVM
     * asked to end, then killed after 10 s) and the work directory with the stores is deleted.
     */
    private void stop(Path work) {
        Process p;
        synchronized (phases) {
            stopping = true;
            p = child;
        }
        if (p != null) {
            p.destroy();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        for (int attempt = 0; attempt < 3 && Files.exists(work); attempt++) {
            try { // the main thread may be deleting in there too
                Files2.deleteTree(work);
            } catch (IOException | RuntimeException e) {
                if (attempt == 2) {
                    System.err.println("oo1: could not delete " + work + ": " + e);
                }
            }
        }
    }

    /** Runs one phase in a new JVM and returns its result properties. */
    private Properties fork(RowRun.Settings s, String phase, Path dir, Path work) throws IOException, InterruptedException {
        Path result = work.resolve(s.size().id() + "-" + s.row().id + "-" + phase + ".properties");
        Path log = work.resolve(s.size().id() + "-" + s.row().id + "-" + phase + ".log");
        Files.deleteIfExists(result);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("--enable-native-access=ALL-UNNAMED"); // RocksDB's JNI library: no JDK 24+ warning (JEP 472)
        cmd.add("-Dperpetua.version=" + environment.getOrDefault("perpetua", "?"));
        if (s.row().needsAgent()) {
            cmd.add("-javaagent:" + agent.toAbsolutePath());
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RowRun.class.getName());
        add(cmd, "--row", s.row().id);
        add(cmd, "--size", s.size().id());
        add(cmd, "--phase", phase);
        add(cmd, "--dir", dir.toString());
        add(cmd, "--result", result.toString());
        add(cmd, "--seed", Long.toString(s.seed()));
        add(cmd, "--hot", Integer.toString(s.hotRuns()));
        add(cmd, "--until-stdin-closes", "true"); // the phase ends if this JVM is killed
        if (s.row() == Row.JDBC_URL) {
            add(cmd, "--jdbc-url", s.jdbcUrl());
            if (s.jdbcUser() != null) {
                add(cmd, "--jdbc-user", s.jdbcUser());
            }
            if (s.jdbcPassword() != null) {
                add(cmd, "--jdbc-password", s.jdbcPassword());
            }
        }
        Process p;
        synchronized (phases) {
            if (stopping) {
                throw new IllegalStateException("stopped: the JVM is shutting down");
            }
            p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
            child = p;
        }
        // the child's progress lines, through this JVM's System.out (not its file descriptor)
        Thread copier = new Thread(() -> {
            try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    System.out.println(line);
                }
            } catch (IOException e) {
                // the child is gone; its result file says what happened
            }
        }, "oo1-child-output");
        copier.setDaemon(true);
        copier.start();
        long minutes = switch (s.size()) {
            case TINY -> 5;
            case SMALL -> 15;
            case LARGE -> 90;
        };
        Properties props = new Properties();
        boolean finished;
        try {
            finished = p.waitFor(minutes, TimeUnit.MINUTES);
            if (!finished) {
                p.destroyForcibly();
                p.waitFor();
            }
        } finally {
            synchronized (phases) {
                child = null;
            }
        }
        copier.join(10_000);
        if (!finished) {
            props.setProperty("status", "failed");
            props.setProperty("message", "timed out after " + minutes + " min");
        } else if (Files.exists(result)) {
            try (InputStream in = Files.newInputStream(result)) {
                props.load(in);
            }
        } else {
            props.setProperty("status", "failed");
            props.setProperty("message", "JVM exited with " + p.exitValue() + ": " + tail(log));
        }
        if (!"ok".equals(props.getProperty("status")) && Files.exists(log) && Files.size(log) > 0) {
            System.out.println("    stderr of that JVM (last lines): " + tail(log));
        }
        return props;
    }

    private static void add(List<String> cmd, String option, String value) {
        cmd.add(option);
        cmd.add(value);
    }

    private static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "";
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
    }

    /** Marks a row WRONG if any of its answers differ from the reference's. */
    static void crossCheck(RowResult r, Map<Operation, Properties> reference) {
        for (Operation op : Operation.values()) {
            Properties mine = r.operations.get(op);
            Properties ref = reference.get(op);
            if (mine == null) {
                continue;
            }
            String[] a = mine.getProperty("answers", "").split(",");
            String[] b = ref.getProperty("answers", "").split(",");
            for (int i = 0; i < Math.max(a.length, b.length); i++) {
                String x = i < a.length ? a[i] : "(none)";
                String y = i < b.length ? b[i] : "(none)";
                if (!x.equals(y)) {
                    r.mark(Status.WRONG, String.format(Locale.ROOT,
                            "%s run %d consumed %s (sum x+y / visits / type hashes), transient Java %s",
                            op.id(), i + 1, describe(x), describe(y)));
                    return;
                }
            }
            if (!Objects.equals(mine.getProperty("verify"), ref.getProperty("verify"))) {
                r.mark(Status.WRONG, "inserted parts read back after reopening: " + mine.getProperty("verify")
                        + ", transient Java " + ref.getProperty("verify"));
                return;
            }
        }
    }

    private static String describe(String answer) {
        try {
            Answer a = Answer.parse(answer);
            return a.sum() + " / " + a.visits() + " / " + a.types();
        } catch (RuntimeException e) {
            return answer;
        }
    }

    private void describeEnvironment() {
        int cores = Runtime.getRuntime().availableProcessors();
        long memory = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            memory = os.getTotalMemorySize();
        }
        String cpu = cpuModel();
        environment.put("machine", String.format(Locale.ROOT, "%d cores%s, %.1f GiB memory, %s %s %s", cores,
                cpu.isEmpty() ? "" : " (" + cpu + ")", memory / (1024.0 * 1024 * 1024), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch")));
        environment.put("cores", Integer.toString(cores));
        environment.put("memoryBytes", Long.toString(memory));
        environment.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        environment.put("heap", "-Xmx" + heap + " per JVM, default GC");
        String v = System.getProperty("perpetua.version");
        environment.put("perpetua", v == null ? "?" : v);
        environment.put("agent", agent == null ? "(none)" : agent.toAbsolutePath().toString());
        environment.put("pageCache", "not dropped between phases (OS page cache is warm; 'cold' means a fresh JVM"
                + " and a freshly opened store)");
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return "";
    }

    private List<String> notes() {
        List<String> n = new ArrayList<>();
        n.add("Each phase (load; lookup; traversal; reverse traversal; insert) of each row runs in a JVM of its own,"
                + " so every operation's run 1 is cold: a fresh JVM and a freshly opened store. 'open' is the time to"
                + " open the store and fetch the database root (EclipseStore loads its whole graph then).");
        n.add("The OS page cache is not dropped: cold runs read store files the load has just written.");
        n.add("Answers (sum of x+y, visits, type hashes the null procedure consumed, every run; the inserted parts"
                + " read back after reopening) are checked against transient Java; a row that differs is WRONG, not timed.");
        n.add("Insert: 100 parts with 3 connections each, timed with the index update and the commit. Durability of"
                + " that commit: Perpetua sync=true (default) and raw RocksDB WriteOptions.sync=true fsync it;"
                + " EclipseStore storeAll (default NIO file system) and H2 (WRITE_DELAY=0) write it to their files"
                + " before they return, without fsync, so it survives the process dying, not a power failure (H2 2.x"
                + " has no setting to fsync a commit: it syncs on close and on CHECKPOINT SYNC; with its default"
                + " write delay a commit writes nothing and is lost if the process dies within 500 ms);"
                + " PostgreSQL (--jdbc-url) fsyncs its WAL per commit with its default settings.");
        n.add("Load: building each system's representation from the generated numbers and committing it; the"
                + " transient row's load is building the objects.");
        n.add("Hot: " + hotRuns + " extra runs after the ten, median of the last " + Math.min(hotRuns, RowRun.HOT_WINDOW)
                + ". Insert runs go on growing the database by 100 parts each.");
        return n;
    }
}
