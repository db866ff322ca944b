package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.AGENT;
import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two copies of perpetua-core in one JVM, in a forked JVM with the real {@code -javaagent}: a
 * web application bundles perpetua-core and the file store and is loaded child-first (as a
 * servlet container loads {@code WEB-INF/lib}), while the agent jar puts its own copy of core on
 * the system class path. The application opens a store, fetches a persistent array and has a
 * library class of the application class path write it. That class logs the write into its own
 * loader's copy of the array write log, which the store (of the other copy) never reads: the
 * second copy must make every store compare every resident array, or the change is lost.
 */
class TwoCoreCopiesIT {
    private static final String CHILD_FIRST = """
            package host;
            import java.net.*;
            import java.util.*;
            public class Main {
                static class ChildFirst extends URLClassLoader {
                    ChildFirst(URL[] u, ClassLoader p) { super(u, p); }
                    @Override protected Class<?> loadClass(String n, boolean r) throws ClassNotFoundException {
                        synchronized (getClassLoadingLock(n)) {
                            Class<?> c = findLoadedClass(n);
                            if (c == null && !n.startsWith("java.")) {
                                try { c = findClass(n); } catch (ClassNotFoundException e) { }
                            }
                            return c != null ? c : super.loadClass(n, r);
                        }
                    }
                    @Override public URL getResource(String n) { URL u = findResource(n); return u != null ? u : super.getResource(n); }
                    @Override public Enumeration<URL> getResources(String n) throws java.io.IOException { return findResources(n); }
                }
                public static void main(String[] a) throws Exception {
                    List<URL> urls = new ArrayList<>();
                    for (int i = 1; i < a.length; i++) urls.add(java.nio.file.Path.of(a[i]).toUri().toURL());
                    ClassLoader webApp = new ChildFirst(urls.toArray(URL[]::new), Main.class.getClassLoader());
                    Thread.currentThread().setContextClassLoader(webApp);
                    Class<?> app = webApp.loadClass("webapp.App");
                    if (app.getClassLoader() != webApp
                            || webApp.loadClass("io.perpetua.PersistentStore") == Class.forName("io.perpetua.PersistentStore")) {
                        throw new AssertionError("the web application does not have a copy of core of its own");
                    }
                    System.out.println(app.getMethod("run", String.class).invoke(null, a[0]));
                }
            }
            """;

    /** A library on the application class path (a container's lib/, a host's API jar): it writes into an array it is given. */
    private static final String LIBRARY = """
            package host;
            public class Util { public static void increment(int[] a, int i) { a[i]++; } }
            """;

    private static final String WEB_APP = """
            package webapp;
            import io.perpetua.PersistentStore;
            import java.util.Arrays;
            public class App {
                public static String run(String dir) {
                    String path = "file:" + dir;
                    try (PersistentStore s = PersistentStore.open(path)) {
                        s.inTransaction(() -> s.persist(new int[3], "hits"));
                    }
                    StringBuilder out = new StringBuilder();
                    try (PersistentStore s = PersistentStore.open(path)) {
                        int[] hits = s.fetch("hits", int[].class);
                        s.inTransaction(() -> host.Util.increment(hits, 0));
                        s.inTransaction(() -> host.Util.increment(hits, 1)); // the second copy known at the start
                        out.append("in memory ").append(Arrays.toString(hits));
                    }
                    try (PersistentStore s = PersistentStore.open(path)) {
                        out.append(", reopened ").append(Arrays.toString(s.fetch("hits", int[].class)));
                    }
                    return out.toString();
                }
            }
            """;

    @Test
    void anArrayWrittenThroughTheOtherCopysBarrierIsCommitted(@TempDir Path dir) throws Exception {
        Path host = compile(dir, "host", AGENT.toString(), CHILD_FIRST, LIBRARY);
        Path webApp = compile(dir, "webapp", host + File.pathSeparator + AGENT, WEB_APP);
        Run run = ForkedJvm.java(JDK17, List.of(agent("failFast")), host.toString(), 180, "host.Main",
                dir.resolve("store").toString(), webApp.toString(), jarOnTestClassPath("perpetua-core"),
                jarOnTestClassPath("perpetua-store-file"));
        assertEquals(0, run.exit(), run::toString);
        assertEquals("in memory [1, 1, 0], reopened [1, 1, 0]\n", run.out(), run::toString);
        String warning = "[perpetua] WARNING two copies of perpetua-core are loaded in this JVM";
        assertTrue(run.err().contains(warning), run::toString);
        assertEquals(run.err().indexOf(warning), run.err().lastIndexOf(warning), run::toString); // once
    }

    private static Path compile(Path dir, String name, String classPath, String... sources) throws Exception {
        Path src = dir.resolve(name + "-src");
        Path out = dir.resolve(name + "-classes");
        Files.createDirectories(src);
        List<String> cmd = new java.util.ArrayList<>(List.of(JDK17.resolve("bin/javac").toString(), "--release", "17",
                "-cp", classPath, "-d", out.toString()));
        for (String source : sources) {
            String simple = source.replaceAll("(?s).*?public class (\\w+).*", "$1");
            Path file = src.resolve(simple + ".java");
            Files.writeString(file, source);
            cmd.add(file.toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, output);
        return out;
    }
}
