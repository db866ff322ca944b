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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JDK object stored by its serialization is read through the JVM's own deserialization filter
 * too ({@code jdk.serialFilter}), not around it: in a forked JVM whose filter refuses
 * {@code java.util.Random}, a stored Random cannot be read (a clear error naming it), and a
 * stored Calendar, which the filter lets through, can. And Perpetua's own filter bounds the arrays
 * a damaged form may ask for.
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

    /**
     * A serialized form whose array length is damaged (an AtomicIntegerArray of three claiming
     * two billion elements) is a malformed record, refused before the JVM allocates the array:
     * not an OutOfMemoryError (DamagedRecordsTest found it).
     */
    @Test
    void aDamagedArrayLengthIsAMalformedRecordNotAnAllocation() {
        byte[] bytes = JdkSerialized.write(new java.util.concurrent.atomic.AtomicIntegerArray(new int[] {7, 7, 7}), "x", null);
        byte[] lengthThenFirst = {0, 0, 0, 3, 0, 0, 0, 7};
        int at = indexOf(bytes, lengthThenFirst);
        assertTrue(at > 0, "the array's length is in the stream");
        bytes[at] = 0x7f;
        bytes[at + 1] = bytes[at + 2] = bytes[at + 3] = (byte) 0xff;
        ByteIn.MalformedRecord e = assertThrows(ByteIn.MalformedRecord.class,
                () -> JdkSerialized.read(bytes, "java.util.concurrent.atomic.AtomicIntegerArray", null));
        assertTrue(e.getMessage().contains("an array of 2147483647 elements"), e.getMessage());
    }

    private static int indexOf(byte[] bytes, byte[] part) {
        for (int i = 0; i + part.length <= bytes.length; i++) {
            if (java.util.Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
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
