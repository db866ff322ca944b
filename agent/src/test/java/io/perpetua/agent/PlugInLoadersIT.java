package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.AGENT;
import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plug-ins in class loaders of their own, as application servers and plug-in hosts load them,
 * in a forked JVM with the real agent: a loader the host drops is collected, as without the
 * agent, once the plug-in's store is closed, whether it stored, read or changed objects of its
 * rewritten classes.
 */
class PlugInLoadersIT {

    /**
     * The host keeps two stores of its own open throughout; each deploy of the plug-in opens the
     * plug-in's store on disk with the plug-in's loader as the context class loader, stores or
     * reads and changes its objects (rewritten classes, an array written by rewritten code, a
     * list), and closes it; the host then drops the loader.
     */
    @Test
    void aDroppedPlugInLoaderIsCollectedOnceItsStoreIsClosed(@TempDir Path dir) throws Exception {
        Path plugin = dir.resolve("plugin");
        Path host = dir.resolve("host");
        Run javac = javac(plugin, AGENT.toString(), write(dir, "acme/Plugin.java", """
                package acme;
                import io.perpetua.PersistentStore;
                import java.util.ArrayList;
                import java.util.List;
                import java.util.function.Function;
                public class Plugin implements Function<PersistentStore, String> {
                    static class Part {
                        int weight;
                    }
                    static class Item {
                        String name;
                        Part[] parts;
                        List<String> tags = new ArrayList<>();
                    }
                    public String apply(PersistentStore store) {
                        if (!store.isBound("item")) {
                            Item item = new Item();
                            item.name = "first";
                            item.parts = new Part[] {new Part()};
                            item.parts[0].weight = 3;
                            item.tags.add("a");
                            store.inTransaction(() -> store.persist(item, "item"));
                            return "stored";
                        }
                        Item item = store.fetch("item", Item.class);
                        store.inTransaction(() -> {
                            item.parts[0].weight++;
                            item.parts[0] = item.parts[0];
                            item.tags.add("b");
                        });
                        return "read " + item.name + " " + item.parts[0].weight + " " + item.tags;
                    }
                }
                """));
        assertEquals(0, javac.exit(), javac::toString);
        javac = javac(host, AGENT.toString(), write(dir, "host/Host.java", """
                package host;
                import io.perpetua.PersistentStore;
                import java.lang.ref.WeakReference;
                import java.net.URL;
                import java.net.URLClassLoader;
                import java.nio.file.Path;
                import java.util.function.Function;
                public class Host {
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore own = PersistentStore.open("memory:");
                             PersistentStore other = PersistentStore.open("memory:")) {
                            own.inTransaction(() -> own.persist(new java.util.ArrayList<>(java.util.List.of("host")), "list"));
                            WeakReference<ClassLoader> first = deploy(args[0], args[1]);
                            WeakReference<ClassLoader> second = deploy(args[0], args[1]);
                            // a store keeps the arrays written since its last commit or abort (README, Known limits)
                            own.inTransaction(() -> own.fetch("list"));
                            other.beginTransaction();
                            other.abortTransaction();
                            for (int i = 0; i < 300 && (first.get() != null || second.get() != null); i++) {
                                System.gc();
                                Thread.sleep(20);
                            }
                            System.out.println("collected=" + (first.get() == null) + "," + (second.get() == null));
                        }
                    }
                    @SuppressWarnings("unchecked")
                    static WeakReference<ClassLoader> deploy(String store, String plugin) throws Exception {
                        URLClassLoader loader = new URLClassLoader(new URL[] {Path.of(plugin).toUri().toURL()},
                                Host.class.getClassLoader());
                        Thread thread = Thread.currentThread();
                        ClassLoader was = thread.getContextClassLoader();
                        thread.setContextClassLoader(loader);
                        try (PersistentStore s = PersistentStore.open(store)) {
                            Function<PersistentStore, String> p = (Function<PersistentStore, String>)
                                    loader.loadClass("acme.Plugin").getConstructor().newInstance();
                            System.out.println(p.apply(s));
                        } finally {
                            thread.setContextClassLoader(was);
                            loader.close();
                        }
                        return new WeakReference<>(loader);
                    }
                }
                """));
        assertEquals(0, javac.exit(), javac::toString);
        String cp = host + File.pathSeparator + jarOnTestClassPath("perpetua-store-file");
        Run run = ForkedJvm.java(JDK17, List.of(agent("failFast")), cp, 120, "host.Host",
                "file:" + dir.resolve("store"), plugin.toString());
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().startsWith("stored\nread first 4 [a, b]\n"), run::toString);
        assertTrue(run.out().contains("collected=true,true\n"), run::toString);
    }

    /**
     * A host that defines a class in a loader of its own whose parent is the bootstrap loader
     * (as Byte Buddy does for Mockito's helpers, the OpenTelemetry agent for its own classes, an
     * isolating plug-in host for its plug-ins): the class cannot see perpetua-core, so it is left
     * as it is (rewritten, it failed to load: {@code NoClassDefFoundError} of
     * {@code io.perpetua.runtime.Persistent}), and said so; the host's own classes are rewritten.
     */
    @Test
    void aClassOfALoaderThatDoesNotSeePerpetuaCoreIsLeftAsItIs(@TempDir Path dir) throws Exception {
        Path plugin = dir.resolve("plugin");
        Path host = dir.resolve("host");
        Run javac = javac(plugin, "", write(dir, "acme/Isolated.java", """
                package acme;
                public class Isolated {
                    int count = 2;
                    int[] counts = {1, 2};
                    public String toString() {
                        counts[0] = count;
                        return "isolated " + counts[0] + counts[1];
                    }
                }
                """));
        assertEquals(0, javac.exit(), javac::toString);
        javac = javac(host, "", write(dir, "host/IsolatingHost.java", """
                package host;
                import java.nio.file.Files;
                import java.nio.file.Path;
                public class IsolatingHost {
                    static class Isolating extends ClassLoader {
                        final byte[] bytes;
                        Isolating(byte[] bytes) {
                            super("isolating", null); // parent: the bootstrap loader
                            this.bytes = bytes;
                        }
                        @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
                            if (name.equals("acme.Isolated")) {
                                return defineClass(name, bytes, 0, bytes.length);
                            }
                            throw new ClassNotFoundException(name);
                        }
                    }
                    /** A sandbox: its parent is the application's loader, but it refuses Perpetua's packages. */
                    static class Sandboxing extends ClassLoader {
                        final byte[] bytes;
                        Sandboxing(byte[] bytes) {
                            super("sandboxing", IsolatingHost.class.getClassLoader());
                            this.bytes = bytes;
                        }
                        @Override protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                            if (name.startsWith("io.perpetua.")) {
                                throw new SecurityException("sandboxed: " + name);
                            }
                            if (name.equals("acme.Isolated")) {
                                synchronized (getClassLoadingLock(name)) {
                                    Class<?> c = findLoadedClass(name);
                                    return c != null ? c : defineClass(name, bytes, 0, bytes.length);
                                }
                            }
                            return super.loadClass(name, resolve);
                        }
                    }
                    int defined;
                    public static void main(String[] args) throws Exception {
                        IsolatingHost self = new IsolatingHost();
                        for (int i = 0; i < 3; i++) {
                            byte[] bytes = Files.readAllBytes(Path.of(args[0], "acme/Isolated.class"));
                            ClassLoader loader = i < 2 ? new Isolating(bytes) : new Sandboxing(bytes);
                            Class<?> c = Class.forName("acme.Isolated", true, loader);
                            System.out.println(c.getDeclaredConstructor().newInstance());
                            self.defined++;
                        }
                        System.out.println("defined " + self.defined + ", arrays " + System.getProperty("perpetua.arrays"));
                    }
                }
                """));
        assertEquals(0, javac.exit(), javac::toString);
        Run run = ForkedJvm.java(JDK17, List.of(agent("verbose,failFast")), host.toString(), 120, "host.IsolatingHost",
                plugin.toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals("isolated 22\nisolated 22\nisolated 22\ndefined 3, arrays compared: acme.Isolated is not rewritten: its class"
                + " loader (host.IsolatingHost$Isolating 'isolating') does not see perpetua-core"
                + " (io.perpetua.runtime.Persistent), so a rewritten class could not be defined: left as it is, its"
                + " instances cannot be made persistent\n", run.out(), run::toString);
        assertTrue(run.err().contains("[perpetua] skipped acme.Isolated: its class loader"), run::toString);
        assertTrue(run.err().contains("[perpetua] skipped acme.Isolated: its class loader (host.IsolatingHost$Sandboxing"
                + " 'sandboxing') does not see perpetua-core (io.perpetua.runtime.Persistent: java.lang.SecurityException"),
                run::toString);
        assertTrue(run.err().contains("[perpetua] rewritten host.IsolatingHost: persistent-capable"), run::toString);
    }

    private static Path write(Path dir, String name, String source) throws Exception {
        Path file = dir.resolve("src").resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        return file;
    }

    private static Run javac(Path out, String classPath, Path source) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(JDK17.resolve("bin/javac").toString(), "--release", "17",
                "-d", out.toString()));
        if (!classPath.isEmpty()) {
            cmd.addAll(List.of("-cp", classPath));
        }
        cmd.add(source.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        p.waitFor(120, TimeUnit.SECONDS);
        return new Run(p.exitValue(), output, "");
    }
}
