package io.perpetua.store.rocksdb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class of the test class path, with its standard output read line
 * by line. The child's {@code java.io.tmpdir} is a directory of the test's own, so that what the
 * child leaves there (the kept copy of RocksDB's native library, {@link NativeLibrary}) goes with
 * the test.
 */
final class ForkedJvm implements AutoCloseable {
    private static final String END = "\u0000end";

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder transcript = new StringBuilder();

    private ForkedJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the child died; END follows
            }
            lines.add(END);
        }, "forked-jvm-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java -cp <test class path> mainClass args}, its standard error merged into
     * its standard output.
     */
    static ForkedJvm start(Path tmpDir, Class<?> mainClass, String... args) throws IOException {
        return start(tmpDir, List.of(), mainClass, args);
    }

    /** Starts the child as {@link #start(Path, Class, String...)} does, with more JVM options. */
    static ForkedJvm start(Path tmpDir, List<String> jvmOptions, Class<?> mainClass, String... args) throws IOException {
        return start(tmpDir, jvmOptions, System.getProperty("java.class.path"), mainClass, args);
    }

    /** Starts the child as {@link #start(Path, List, Class, String...)} does, on another class path. */
    static ForkedJvm start(Path tmpDir, List<String> jvmOptions, String classPath, Class<?> mainClass, String... args)
            throws IOException {
        Files.createDirectories(tmpDir);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("--enable-native-access=ALL-UNNAMED"); // RocksDB's JNI library: no JDK 24+ warning (JEP 472)
        command.add("-Djava.io.tmpdir=" + tmpDir);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        return new ForkedJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /**
     * Waits for the next line of output.
     *
     * @return the line, or null if the child ended its output first
     */
    String nextLine(long timeout, TimeUnit unit) throws InterruptedException {
        String line = lines.poll(timeout, unit);
        if (line == null) {
            throw new AssertionError("no output from the child within " + timeout + " " + unit
                    + "; so far:\n" + transcript);
        }
        if (line.equals(END)) {
            lines.add(END);
            return null;
        }
        transcript.append(line).append('\n');
        return line;
    }

    /** Waits for a line starting with {@code prefix}, skipping others; fails if output ends first. */
    String awaitLine(String prefix, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = nextLine(Math.max(1, left), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("the child ended without printing " + prefix + "; its output:\n" + transcript);
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    Process process() {
        return process;
    }

    String transcript() {
        return transcript.toString();
    }

    /** Kills the child with SIGKILL (on Unix, {@link Process#destroyForcibly()}) and waits for it. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(1, TimeUnit.MINUTES);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
