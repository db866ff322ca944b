package io.perpetua.benchmarks.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * What the agent adds to a program's start: every class of one library loaded and initialized,
 * in fresh JVMs, with {@code -javaagent} and without, alternating, in the same run. The agent
 * rewrites each application class as it is loaded (ASM, in code that is itself running for the
 * first time), so a program pays per class it loads, whether or not it ever stores an instance.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.perpetua.benchmarks.startup.AgentStartup \
 *     [--agent agent/target/perpetua-agent-0.1.0-SNAPSHOT.jar] [--package org/h2] [--runs 7] [--out benchmarks/results]
 * </pre>
 * The classes are those under {@code --package} in the jar or folder this class was loaded from
 * (by default H2's, about a thousand, which the benchmarks' class path holds for OO1's JDBC row).
 * A class whose initializer fails (an optional dependency missing) counts as loaded; each child
 * prints how many, and both sides must agree. The agent jar defaults to the system property
 * {@code oo1.agent}, as for OO1.
 */
public final class AgentStartup {
    private static final String CHILD = "--child";

    private AgentStartup() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(CHILD)) {
            System.out.println(child(args[1], args.length > 2 ? args[2] : null));
            return;
        }
        String agent = System.getProperty("oo1.agent");
        String pkg = "org/h2";
        int runs = 7;
        Path out = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--agent" -> agent = args[i + 1];
                case "--package" -> pkg = args[i + 1];
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--out" -> out = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (agent == null || !Files.isRegularFile(Path.of(agent))) {
            throw new IllegalArgumentException("no agent jar (--agent or -Doo1.agent): " + agent);
        }
        double[] plain = new double[runs];
        double[] rewritten = new double[runs];
        String plainCount = null;
        String rewrittenCount = null;
        for (int r = 0; r < runs; r++) {
            String[] p = fork(null, pkg);
            String[] a = fork(agent, pkg);
            plain[r] = Double.parseDouble(p[1]);
            rewritten[r] = Double.parseDouble(a[1]);
            plainCount = p[0];
            rewrittenCount = a[0];
            System.out.printf(Locale.ROOT, "run %d: without the agent %.1f ms, with it %.1f ms%n", r + 1, plain[r], rewritten[r]);
        }
        if (!plainCount.equals(rewrittenCount)) {
            throw new IllegalStateException("the two sides loaded different classes: " + plainCount + " against "
                    + rewrittenCount);
        }
        int classes = Integer.parseInt(plainCount.split(" ")[0]);
        double p = median(plain);
        double a = median(rewritten);
        String report = String.format(Locale.ROOT, """
                Agent start-up: the %s classes under %s (%s), loaded and initialized once each in a fresh JVM,
                %d runs of each side, alternating. Medians:
                  without the agent %8.1f ms
                  with the agent    %8.1f ms   (%.2fx; %.2f ms more per class)
                Java %s, %d processors.
                """, classes, pkg.replace('/', '.'), plainCount, runs, p, a, a / p, (a - p) / classes,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        System.out.print(report);
        if (out != null) {
            Files.createDirectories(out);
            Files.writeString(out.resolve("agent-startup.txt"), report);
        }
    }

    /** @return the child's count line and its time in milliseconds */
    private static String[] fork(String agent, String pkg) throws IOException, InterruptedException {
        String output = java(agent == null ? List.of() : List.of("-javaagent:" + agent), AgentStartup.class.getName(),
                CHILD, pkg);
        String last = output.lines().filter(l -> l.startsWith("loaded ")).reduce((a, b) -> b)
                .orElseThrow(() -> new IllegalStateException("the child printed no count:\n" + output));
        // "loaded N classes (F initializers failed) in T ms"
        String[] words = last.split(" ");
        String count = words[1] + " classes, " + last.substring(last.indexOf('(') + 1, last.indexOf(')'));
        return new String[] {count, words[words.length - 2]};
    }

    /**
     * Runs a main class in a new JVM with this JVM's java and class path.
     *
     * @param jvmOptions options before the class path ({@code -javaagent:...}, say)
     * @param mainAndArgs the main class, then its arguments
     * @return what it printed, standard error included
     * @throws IllegalStateException if it exits with a status other than 0 (the message holds
     *         the command and the output)
     */
    public static String java(List<String> jvmOptions, String... mainAndArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.addAll(List.of(mainAndArgs));
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        if (status != 0) {
            throw new IllegalStateException("exit status " + status + " (" + String.join(" ", cmd) + "):\n" + output);
        }
        return output;
    }

    /**
     * Loads and initializes every class under a package, in name order, in this JVM.
     *
     * @param pkg the package, as a path ({@code org/h2})
     * @param anchor a class of the jar or folder to take the classes from, or null for the one
     *        this class comes from
     * @return a line: how many classes, how many initializers failed, how long it took
     */
    public static String child(String pkg, String anchor) throws IOException, ClassNotFoundException {
        ClassLoader loader = AgentStartup.class.getClassLoader();
        Class<?> from = anchor == null ? AgentStartup.class : Class.forName(anchor, false, loader);
        Path source = Path.of(java.net.URI.create(from.getProtectionDomain().getCodeSource().getLocation().toString()));
        List<String> names = new ArrayList<>();
        List<String> entries = new ArrayList<>();
        if (Files.isDirectory(source)) {
            try (var files = Files.walk(source.resolve(pkg))) {
                files.forEach(f -> entries.add(source.relativize(f).toString().replace('\\', '/')));
            }
        } else {
            try (JarFile jar = new JarFile(source.toFile())) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    entries.add(e.nextElement().getName());
                }
            }
        }
        for (String entry : entries) {
            // not package-info or module-info, which are no classes to load
            if (entry.startsWith(pkg + "/") && entry.endsWith(".class") && !entry.contains("-")) {
                names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
            }
        }
        names.sort(null);
        int failed = 0;
        long t = System.nanoTime();
        for (String name : names) {
            try {
                Class.forName(name, true, loader);
            } catch (Throwable e) { // an optional dependency absent, say: the class was still loaded and rewritten
                failed++;
            }
        }
        double ms = (System.nanoTime() - t) / 1e6;
        return String.format(Locale.ROOT, "loaded %d classes (%d initializers failed) in %.1f ms", names.size(), failed, ms);
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
