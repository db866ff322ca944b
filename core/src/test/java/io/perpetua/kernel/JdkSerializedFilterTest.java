package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JDK object stored by its serialization is read through the JVM's own deserialization filter
 * too ({@code jdk.serialFilter}), not around it: in a forked JVM whose filter refuses
 * {@code java.util.Random}, a stored Random cannot be read (a clear error naming it), and a
 * stored Calendar, which the filter lets through, can.
 */
class JdkSerializedFilterTest {

    @Test
    void theJvmsSerialFilterStillApplies() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Djdk.serialFilter=!java.util.Random", "-cp",
                System.getProperty("java.class.path"), Probe.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("calendar read: 1600000000000"), out);
        assertTrue(out.contains("random refused: java.util.Random"), out);
    }

    /** Run in the forked JVM: stores a Calendar and a Random, reopens, reads both. */
    public static final class Probe {
        public static void main(String[] args) {
            String uri = TestStores.newUri();
            try (PersistentStore store = TestStores.open(uri)) {
                store.inTransaction(() -> {
                    java.util.GregorianCalendar calendar = new java.util.GregorianCalendar();
                    calendar.setTimeInMillis(1_600_000_000_000L);
                    Node c = new Node("calendar");
                    c.any(calendar);
                    store.persist(c, "calendar");
                    Node r = new Node("random");
                    r.any(new java.util.Random(1));
                    store.persist(r, "random");
                });
            }
            try (PersistentStore store = TestStores.open(uri)) {
                Object calendar = store.fetch("calendar", Node.class).any();
                System.out.println("calendar read: " + ((java.util.Calendar) calendar).getTimeInMillis());
                try {
                    System.out.println("random read: " + store.fetch("random", Node.class).any());
                } catch (IncompatibleClassChangeException e) {
                    System.out.println("random refused: " + e.className() + " " + e.getMessage());
                }
            }
        }
    }
}
