package io.perpetua.agent;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the forked JVMs of the end-to-end tests: the JDKs they run on, the real agent jar (the
 * shaded jar, built in the package phase), and the jars of the test class path that an
 * application's class path is made of.
 */
public final class ForkedJvm {
    public static final Path AGENT = Path.of(System.getProperty("perpetua.agentJar", "target/perpetua-agent.jar"));
    public static final Path JDK17 = Path.of(System.getProperty("java.home"));
    public static final Path NEWEST = Path.of(System.getProperty("perpetua.newestJdk", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    private ForkedJvm() {
    }

    /** What a forked JVM did: its exit status and its two output streams. */
    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    /** @return the jar of the test class path whose name starts with {@code prefix} (not a test-jar) */
    public static String jarOnTestClassPath(String prefix) {
        return onTestClassPath(prefix, false);
    }

    /** @return the test-jar ({@code *-tests.jar}) of the test class path whose name starts with {@code prefix} */
    static String testJarOnTestClassPath(String prefix) {
        return onTestClassPath(prefix, true);
    }

    private static String onTestClassPath(String prefix, boolean testJar) {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (name.startsWith(prefix) && name.endsWith(".jar") && name.endsWith("-tests.jar") == testJar) {
                return entry;
            }
        }
        throw new AssertionError("no " + prefix + "*" + (testJar ? "-tests" : "") + ".jar on the test class path");
    }

    /** @return the folder of this module's compiled test classes (the applications run by the tests) */
    static String testClasses() throws Exception {
        return Path.of(ForkedJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** @return the option that starts the real agent, with its options if any */
    public static String agent(String options) {
        return "-javaagent:" + AGENT + (options.isEmpty() ? "" : "=" + options);
    }

    /** Runs {@code java} of a JDK to its end (at most {@code seconds}), its output captured in files. */
    static Run java(Path jdk, List<String> jvmArgs, String classPath, int seconds, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.resolve("bin/java").toString());
        cmd.add("-Xshare:auto");
        cmd.add("--enable-native-access=ALL-UNNAMED"); // RocksDB's JNI library: no JDK 24+ warning (JEP 472)
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.addAll(Arrays.asList(args));
        Path out = Files.createTempFile("e2e", ".out");
        Path err = Files.createTempFile("e2e", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out after " + seconds + " s: " + cmd);
            }
            return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
