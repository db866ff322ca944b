package io.perpetua.spi;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Kills a process that is writing to a store with SIGKILL, again and again, and checks after
 * each kill that the store kept every acknowledged transaction and no transaction in part.
 *
 * <h2>What one round does</h2>
 * <ol>
 *   <li>Starts a child JVM (the same {@code java} as this one, this JVM's class path) running
 *       {@link CrashWriter} (or {@link Builder#mainClass(String) another main}) on the store
 *       URI. The child commits numbered transactions and prints {@code ACK n} after each.</li>
 *   <li>After the first {@code ACK}, waits a random time (at most
 *       {@link Builder#maxDelayMillis(long)}) and kills the child with
 *       {@link Process#destroyForcibly()} (SIGKILL on Linux and macOS: no shutdown hook, no
 *       finally block, no flush runs).</li>
 *   <li>Reopens the store in this JVM (with {@link Backends#open(URI)} or
 *       {@link Builder#opener(Function) the given opener}) and checks with
 *       {@link CrashWriter#verify(Backend)}: every acknowledged transaction is present, no
 *       transaction is present in part, at most one transaction beyond the last acknowledged
 *       one is present (the one whose {@code ACK} the kill cut off), no id serves twice.</li>
 *   <li>Commits one more transaction itself, checks it, and closes the store: the store is
 *       usable after the crash.</li>
 * </ol>
 * A failed check throws {@link AssertionError} with the round, the seed and the child's
 * standard error.
 *
 * <h2>Usage from a store module</h2>
 * <pre>{@code
 * @Test
 * void survivesSigkill(@TempDir Path dir) {
 *     CrashHarness.Report report = CrashHarness.run("file:" + dir.toUri().getRawPath(), 20, 42);
 *     assertTrue(report.acknowledged() > 0);
 * }
 * }</pre>
 * The store's provider must be found by {@link java.util.ServiceLoader} on the test class path
 * (it is, for the module's own {@code META-INF/services} entry). A store that wants to be
 * killed in the middle of other work (a compaction) gives its own main class, which calls
 * {@link CrashWriter#run(Backend, java.io.PrintStream, int, java.util.function.LongConsumer)}
 * with a callback, and any JVM arguments through {@link #builder(String)}.
 *
 * <h2>Class path under Maven Surefire</h2>
 * The child gets this JVM's class path: {@code java.class.path}, where a jar whose manifest has
 * a {@code Class-Path} (Surefire's default "manifest-only" booter jar) is expanded into the
 * entries it names, plus the URLs of the context class loader if it is a
 * {@link URLClassLoader} (Surefire's isolated class loader, {@code useSystemClassLoader=false}).
 * Surefire's defaults ({@code forkCount=1}, {@code useSystemClassLoader=true},
 * {@code useManifestOnlyJar=true}) therefore need no configuration. Not supported:
 * {@code forkCount=0} with an in-process class realm that is not a {@code URLClassLoader}.
 *
 * <p>Not thread-safe; one run at a time per store. Runs take a few seconds per kill (a JVM
 * start each).
 */
public final class CrashHarness {

    private final Builder config;

    private CrashHarness(Builder config) {
        this.config = config;
    }

    /**
     * Runs {@code kills} rounds with the default child ({@link CrashWriter}) and settings.
     *
     * @param storeUri the store's URI, e.g. {@code file:/tmp/x}; the store may be new or hold
     *                 transactions of an earlier run of the harness (and nothing else)
     * @param kills how many times to kill the child, at least 1 (stores use 20 or more)
     * @param seed seeds the random kill delays, for reproducing a failure
     * @return what happened
     * @throws AssertionError if the store lost or tore a transaction
     */
    public static Report run(String storeUri, int kills, long seed) {
        return builder(storeUri).kills(kills).seed(seed).run();
    }

    /** @return a builder for a run on {@code storeUri} with the default settings */
    public static Builder builder(String storeUri) {
        return new Builder(storeUri);
    }

    /**
     * What a run did.
     *
     * @param kills how many times the child was killed
     * @param acknowledged how many transactions the children acknowledged in all
     * @param unacknowledgedFound how many times a transaction committed but not yet acknowledged
     *                            when the kill came was found (the kill fell between the commit
     *                            and the {@code ACK})
     * @param lastTransaction the last transaction in the store at the end
     */
    public record Report(int kills, long acknowledged, int unacknowledgedFound, long lastTransaction) {
    }

    /** Settings of a run. Not thread-safe; {@link #run()} may be called more than once. */
    public static final class Builder {
        private final String storeUri;
        private int kills = 20;
        private long seed = 1;
        private long maxDelayMillis = 400;
        private long firstAckTimeoutSeconds = 120;
        private int maxPayload = CrashWriter.DEFAULT_MAX_PAYLOAD;
        private String mainClass = CrashWriter.class.getName();
        private final List<String> jvmArgs = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        private final List<String> extraChildArgs = new ArrayList<>();
        private Function<URI, Backend> opener = Backends::open;

        private Builder(String storeUri) {
            this.storeUri = Objects.requireNonNull(storeUri, "storeUri");
            URI.create(storeUri); // fail early on a malformed URI
        }

        /** @param kills how many rounds, at least 1; default 20 */
        public Builder kills(int kills) {
            if (kills < 1) {
                throw new IllegalArgumentException("kills must be at least 1: " + kills);
            }
            this.kills = kills;
            return this;
        }

        /** @param seed seeds the kill delays; default 1 */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** @param millis the longest wait between the first {@code ACK} and the kill; default 400 */
        public Builder maxDelayMillis(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("millis must be at least 0: " + millis);
            }
            this.maxDelayMillis = millis;
            return this;
        }

        /**
         * @param seconds how long a child may take to open the store and acknowledge its first
         *                transaction before the run fails (a hang guard, not a measurement);
         *                default 120
         */
        public Builder firstAckTimeoutSeconds(long seconds) {
            this.firstAckTimeoutSeconds = seconds;
            return this;
        }

        /** @param bytes the upper bound of a record's payload, at least 1; default 2048 */
        public Builder maxPayload(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("bytes must be at least 1: " + bytes);
            }
            this.maxPayload = bytes;
            return this;
        }

        /**
         * @param className the child's main class; it is called with the store URI and the
         *                  maximum payload, then the {@link #childArgs extra arguments}, and must
         *                  speak {@link CrashWriter}'s protocol (best: call
         *                  {@link CrashWriter#haltWhenParentGoesAway()} and
         *                  {@link CrashWriter#run}); default {@link CrashWriter}
         */
        public Builder mainClass(String className) {
            this.mainClass = Objects.requireNonNull(className, "className");
            return this;
        }

        /** @param args JVM arguments added to the child's (system properties, heap size) */
        public Builder jvmArgs(String... args) {
            jvmArgs.addAll(Arrays.asList(args));
            return this;
        }

        /** @param args arguments passed to the child's main after the URI and the maximum payload */
        public Builder childArgs(String... args) {
            extraChildArgs.addAll(Arrays.asList(args));
            return this;
        }

        /**
         * @param opener how this JVM opens the store after a kill; default
         *               {@link Backends#open(URI)}
         */
        public Builder opener(Function<URI, Backend> opener) {
            this.opener = Objects.requireNonNull(opener, "opener");
            return this;
        }

        /**
         * Runs the rounds.
         *
         * @return what happened
         * @throws AssertionError if a check fails
         */
        public Report run() {
            return new CrashHarness(this).runRounds();
        }
    }

    // ---------------------------------------------------------------- the rounds

    private Report runRounds() {
        Random random = new Random(config.seed);
        URI uri = URI.create(config.storeUri);
        long expectedReady;
        try (Backend backend = config.opener.apply(uri)) {
            expectedReady = CrashWriter.verify(backend).last();
        }
        long acknowledged = 0;
        int unacknowledgedFound = 0;
        for (int round = 1; round <= config.kills; round++) {
            long delay = config.maxDelayMillis == 0 ? 0 : (long) (random.nextDouble() * config.maxDelayMillis);
            Round r = new Round(round, delay, expectedReady);
            try {
                r.runChild();
                acknowledged += r.lastAck - expectedReady;
                CrashWriter.State found;
                try (Backend backend = config.opener.apply(uri)) {
                    try {
                        found = CrashWriter.verify(backend);
                    } catch (AssertionError e) {
                        throw r.failure("after the kill the store is damaged: " + e.getMessage(), e);
                    }
                    if (found.last() < r.lastAck) {
                        throw r.failure("transaction " + r.lastAck + " was acknowledged but the store ends at "
                                + found.last(), null);
                    }
                    if (found.last() > r.lastAck + 1) {
                        throw r.failure("the store holds transaction " + found.last() + " but only " + r.lastAck
                                + " was acknowledged (and one more may have been in flight)", null);
                    }
                    if (found.last() == r.lastAck + 1) {
                        unacknowledgedFound++;
                    }
                    // Usable after the crash: one more transaction, from this JVM.
                    CrashWriter.State next = CrashWriter.commitTransaction(backend, found.last() + 1, found, config.maxPayload);
                    CrashWriter.State head = CrashWriter.head(backend);
                    if (!head.equals(next)) {
                        throw r.failure("a commit after the crash is not visible: " + head + " instead of " + next, null);
                    }
                    expectedReady = next.last();
                }
            } finally {
                r.deleteOutput(); // a failure has already copied the child's stderr into its message
            }
        }
        try (Backend backend = config.opener.apply(uri)) {
            long last = CrashWriter.verify(backend).last();
            return new Report(config.kills, acknowledged, unacknowledgedFound, last);
        }
    }

    /** One child process, from start to kill. */
    private final class Round {
        private final int number;
        private final long delayMillis;
        private final long expectedReady;
        private final Path stderr;
        private final Path stdout;
        private volatile long lastAck;
        private final AtomicReference<String> protocolError = new AtomicReference<>();

        Round(int number, long delayMillis, long expectedReady) {
            this.number = number;
            this.delayMillis = delayMillis;
            this.expectedReady = expectedReady;
            this.lastAck = expectedReady;
            try {
                this.stderr = Files.createTempFile("perpetua-crash-child-", ".err");
                this.stdout = Files.createTempFile("perpetua-crash-child-", ".out");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void runChild() {
            List<String> command = new ArrayList<>();
            command.add(javaBinary());
            command.add("--enable-native-access=ALL-UNNAMED"); // a JNI backend (RocksDB): no JDK 24+ warning (JEP 472)
            command.addAll(config.jvmArgs);
            command.add("-cp");
            command.add(childClassPath());
            command.add(config.mainClass);
            command.add(config.storeUri);
            command.add(Integer.toString(config.maxPayload));
            command.addAll(config.extraChildArgs);
            Process process;
            try {
                // stdout goes to a file that the reader tails: reading a dead child's pipe races
                // with the JDK, which drains and closes it when the child exits ("Stream closed").
                process = new ProcessBuilder(command)
                        .redirectError(stderr.toFile())
                        .redirectOutput(stdout.toFile())
                        .redirectInput(ProcessBuilder.Redirect.PIPE)
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + command, e);
            }
            try {
                CountDownLatch firstAck = new CountDownLatch(1);
                Thread reader = new Thread(() -> readProtocol(process, stdout, firstAck), "crash-harness-reader-" + number);
                reader.setDaemon(true);
                reader.start();
                if (!awaitFirstAck(process, firstAck)) {
                    throw failure("the child acknowledged no transaction within "
                            + config.firstAckTimeoutSeconds + " s (exit: " + exitOf(process) + ")", null);
                }
                Thread.sleep(delayMillis);
                if (!process.isAlive()) {
                    throw failure("the child ended by itself with exit code " + process.exitValue(), null);
                }
                process.destroyForcibly();
                if (!process.waitFor(2, TimeUnit.MINUTES)) {
                    throw failure("the child did not die after SIGKILL", null);
                }
                // All output the child wrote before it died is in the pipe: read it all.
                reader.join(TimeUnit.MINUTES.toMillis(2));
                if (reader.isAlive()) {
                    throw failure("the child's output did not end after it died", null);
                }
                if (protocolError.get() != null) {
                    throw failure(protocolError.get(), null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure("interrupted", e);
            } finally {
                process.destroyForcibly();
                try {
                    process.getOutputStream().close();
                } catch (IOException ignored) {
                    // The child is gone.
                }
            }
        }

        private boolean awaitFirstAck(Process process, CountDownLatch firstAck) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.firstAckTimeoutSeconds);
            while (System.nanoTime() < deadline) {
                if (firstAck.await(50, TimeUnit.MILLISECONDS)) {
                    return true;
                }
                if (!process.isAlive() && firstAck.getCount() > 0) {
                    // Let the reader finish the last lines.
                    return firstAck.await(5, TimeUnit.SECONDS);
                }
            }
            return false;
        }

        /** Tails the child's output file until the child is dead and every byte it wrote is read. */
        private void readProtocol(Process process, Path stdout, CountDownLatch firstAck) {
            try (BufferedReader in = Files.newBufferedReader(stdout, StandardCharsets.UTF_8)) {
                boolean ready = false;
                StringBuilder pending = new StringBuilder();
                while (true) {
                    boolean dead = !process.isAlive(); // checked before the read: a dead child writes no more
                    int c = in.read();
                    if (c < 0) {
                        if (dead) {
                            break;
                        }
                        Thread.sleep(2);
                        continue;
                    }
                    if (c != '\n') {
                        pending.append((char) c);
                        continue;
                    }
                    String line = pending.toString();
                    pending.setLength(0);
                    if (line.startsWith("READY ")) {
                        long m = Long.parseLong(line.substring(6).trim());
                        if (m != expectedReady) {
                            protocolError.compareAndSet(null, "the child found transaction " + m
                                    + " as the last one, but the store was left at " + expectedReady);
                        }
                        ready = true;
                    } else if (line.startsWith("ACK ")) {
                        long n = Long.parseLong(line.substring(4).trim());
                        if (!ready || n != lastAck + 1) {
                            protocolError.compareAndSet(null, "unexpected \"" + line + "\" after "
                                    + (ready ? "ACK " + lastAck : "no READY"));
                        }
                        lastAck = n;
                        firstAck.countDown();
                    }
                    // Other lines (the child's own logging) are ignored; so is a last line cut by the kill.
                }
            } catch (IOException | RuntimeException e) {
                protocolError.compareAndSet(null, "cannot read the child's output: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                protocolError.compareAndSet(null, "interrupted while reading the child's output");
            }
        }

        AssertionError failure(String message, Throwable cause) {
            String text = "crash round " + number + " of " + config.kills + " (seed " + config.seed
                    + ", kill " + delayMillis + " ms after the first ACK, last ACK " + lastAck + ") on "
                    + config.storeUri + ": " + message + childStderr();
            return new AssertionError(text, cause);
        }

        private String childStderr() {
            try {
                String text = Files.readString(stderr, StandardCharsets.UTF_8);
                if (text.isBlank()) {
                    return "";
                }
                if (text.length() > 8000) {
                    text = "..." + text.substring(text.length() - 8000);
                }
                return "\n--- child stderr ---\n" + text;
            } catch (IOException e) {
                return "\n(child stderr unreadable: " + e + ")";
            }
        }

        void deleteOutput() {
            try {
                Files.deleteIfExists(stderr);
                Files.deleteIfExists(stdout);
            } catch (IOException ignored) {
                // A temporary file left behind is harmless.
            }
        }

        private String exitOf(Process process) {
            return process.isAlive() ? "still running" : Integer.toString(process.exitValue());
        }
    }

    // ---------------------------------------------------------------- the child's command line

    /** @return the {@code java} launcher of this JVM */
    static String javaBinary() {
        Path java = Paths.get(System.getProperty("java.home"), "bin",
                System.getProperty("os.name", "").startsWith("Windows") ? "java.exe" : "java");
        if (Files.isExecutable(java)) {
            return java.toString();
        }
        return ProcessHandle.current().info().command()
                .orElseThrow(() -> new IllegalStateException("cannot find the java launcher under " + java));
    }

    /**
     * @return this JVM's class path with manifest-only jars expanded and the context class
     *         loader's URLs added, in order, without duplicates
     */
    public static String childClassPath() {
        return childClassPath(System.getProperty("java.class.path", ""), Thread.currentThread().getContextClassLoader());
    }

    /** {@link #childClassPath()} for a given {@code java.class.path} and class loader (may be null). */
    static String childClassPath(String javaClassPath, ClassLoader loader) {
        Set<String> entries = new LinkedHashSet<>();
        for (String entry : javaClassPath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                addWithManifestClassPath(entries, Paths.get(entry).toAbsolutePath());
            }
        }
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader urls) {
                for (URL url : urls.getURLs()) {
                    try {
                        if ("file".equals(url.getProtocol())) {
                            addWithManifestClassPath(entries, Paths.get(url.toURI()));
                        }
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        // Not a local file: a child cannot use it anyway.
                    }
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void addWithManifestClassPath(Set<String> entries, Path path) {
        if (!entries.add(path.toString())) {
            return;
        }
        if (!Files.isRegularFile(path) || !path.getFileName().toString().endsWith(".jar")) {
            return;
        }
        String classPath;
        try (JarFile jar = new JarFile(path.toFile())) {
            Manifest manifest = jar.getManifest();
            classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        } catch (IOException e) {
            return; // Not a readable jar; the child will complain if it matters.
        }
        if (classPath == null) {
            return;
        }
        URI base = path.toUri();
        for (String ref : classPath.trim().split("\\s+")) {
            if (ref.isEmpty()) {
                continue;
            }
            try {
                URI resolved = base.resolve(ref);
                if ("file".equals(resolved.getScheme())) {
                    addWithManifestClassPath(entries, Paths.get(resolved));
                }
            } catch (IllegalArgumentException e) {
                // A malformed entry; the JVM ignores those too.
            }
        }
    }
}
