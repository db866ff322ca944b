package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A runtime image may leave out {@code java.sql} (what {@code jdeps --print-module-deps} gives an
 * application that never uses JDBC): in a forked JVM limited to {@code java.base} and
 * {@code java.instrument}, the holders that are not a {@code java.sql} class (a BitSet, a plain
 * Object lock, the two locks, a SecureRandom, a Date) are written and read back, and a Date
 * subclass of the program's is refused as any class Perpetua does not know. Both threw
 * {@code NoClassDefFoundError: java/sql/Timestamp}: the test for the three {@code java.sql}
 * names loaded the class that reads them.
 */
class WithoutJavaSqlTest {

    @Test
    void holdersReadBackWithoutTheJavaSqlModule() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "--limit-modules", "java.base,java.instrument", "-cp",
                System.getProperty("java.class.path"), Probe.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertTrue(out.contains("java.sql present: false"), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("a Date subclass: io.perpetua.NotPersistableException"), out);
        assertTrue(out.contains("read: [{0, 2}, java.lang.Object, java.util.concurrent.locks.ReentrantLock,"
                + " java.util.concurrent.locks.ReentrantReadWriteLock, java.security.SecureRandom, 1600000000000]"), out);
    }

    /** Run in the forked JVM: stores the holders, reopens the store and reads them. */
    public static final class Probe {
        public static void main(String[] args) {
            System.out.println("java.sql present: " + ModuleLayer.boot().findModule("java.sql").isPresent());
            String uri = TestStores.newUri();
            try (PersistentStore store = TestStores.open(uri)) {
                store.inTransaction(() -> {
                    List<Node> holders = new ArrayList<>();
                    for (Object h : List.of(BitSet.valueOf(new long[] {5}), new Object(), new ReentrantLock(),
                            new ReentrantReadWriteLock(), new SecureRandom(), new Date(1_600_000_000_000L))) {
                        Node n = new Node("holder");
                        n.any(h); // a field: a plain Object is stored only there
                        holders.add(n);
                    }
                    Node root = new Node("root");
                    root.any(holders);
                    store.persist(root, "root");
                });
            }
            try (PersistentStore store = TestStores.open(uri)) { // a Date subclass of the program's is no holder
                store.inTransaction(() -> {
                    Node day = new Node("day");
                    day.any(new Date(5) { });
                    store.persist(day, "day");
                });
            } catch (RuntimeException e) {
                System.out.println("a Date subclass: " + e.getClass().getName());
            }
            try (PersistentStore store = TestStores.open(uri)) {
                List<Object> holders = new ArrayList<>();
                for (Object n : (List<?>) store.fetch("root", Node.class).any()) {
                    holders.add(((Node) n).any());
                }
                List<String> read = new ArrayList<>();
                read.add(holders.get(0).toString());
                for (Object h : holders.subList(1, 5)) {
                    read.add(h.getClass().getName());
                }
                read.add(String.valueOf(((Date) holders.get(5)).getTime()));
                System.out.println("read: " + read);
            }
        }
    }
}
