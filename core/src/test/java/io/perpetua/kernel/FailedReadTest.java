package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.StorageException;
import io.perpetua.spi.Backends;
import io.perpetua.spi.ForwardingBackend;
import io.perpetua.testmodel.Keyed;
import io.perpetua.testmodel.KeyedNode;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A read that fails part way (the backend fails to read a record the object's own record refers
 * to) leaves nothing half read behind: touching the object again reads it whole, and a commit
 * after that writes it whole.
 */
class FailedReadTest {

    /** What the record whose read fails holds. */
    private static final String FAILS = "FAILS-TO-READ";

    /** Fails, once, the first read after {@link #arm} of a record that holds the string {@link #FAILS}. */
    static final class FlakyReads extends ForwardingBackend {
        private static final byte[] MARK = FAILS.getBytes(StandardCharsets.US_ASCII);
        private boolean armed;
        int failures;

        FlakyReads(String uri) {
            super(Backends.open(URI.create(uri)));
        }

        void arm() {
            armed = true;
        }

        @Override
        public byte[] read(long id) {
            byte[] record = inner.read(id);
            if (armed && holdsMark(record)) {
                armed = false;
                failures++;
                throw new StorageException("injected read failure of object #" + id, null);
            }
            return record;
        }

        private static boolean holdsMark(byte[] record) {
            for (int i = 0; i + MARK.length <= record.length; i++) {
                if (Arrays.equals(record, i, i + MARK.length, MARK, 0, MARK.length)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** @return the URI of a new store holding {@code root} under the name "root" */
    private static String stored(Node root) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(root, "root"));
        }
        return uri;
    }

    /** Reads the root with one failure on the way, then again; returns the root read whole. */
    private static Node readTwice(PersistentStore store, FlakyReads backend) {
        backend.arm();
        assertThrows(StorageException.class, () -> store.fetch("root", Node.class));
        assertEquals(1, backend.failures, "the read failed once");
        return store.fetch("root", Node.class);
    }

    /**
     * The root's list is embedded in the root's record; its middle element, an array shared
     * with another node, has a record of its own, whose read fails.
     */
    @Test
    void aListWhoseReadFailedIsReadWholeWhenTouchedAgain() {
        String[] shared = {FAILS, "x"};
        Node root0 = new Node("root");
        Node other = new Node("other");
        other.any(shared);
        root0.next(other);
        root0.any(new ArrayList<>(List.of(new Node("first"), shared, "last")));
        String uri = stored(root0);
        FlakyReads backend = new FlakyReads(uri);
        try (PersistentStore store = new Kernel(backend)) {
            Node root = readTwice(store, backend);
            List<?> list = assertInstanceOf(List.class, root.any());
            assertEquals(3, list.size(), "the list holds all it held: " + list);
            assertEquals("first", ((Node) list.get(0)).name());
            assertArrayEquals(new String[] {FAILS, "x"}, (String[]) list.get(1));
            assertSame(list.get(1), root.next().any(), "the shared array is one array");
            assertEquals("last", list.get(2));
            store.inTransaction(() -> root.value(7)); // rewrites the root's record, list included
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            assertEquals(7, root.value());
            assertEquals(3, ((List<?>) root.any()).size());
        }
    }

    @Test
    void aHashSetWhoseReadFailedIsReadWholeWhenTouchedAgain() {
        String[] shared = {FAILS};
        Node root0 = new Node("root");
        Node other = new Node("other");
        other.any(shared);
        root0.next(other);
        Set<Object> set0 = new HashSet<>(List.of("a", "b", "c"));
        set0.add(List.of(shared)); // reading this element reads the shared array's record
        root0.any(set0);
        String uri = stored(root0);
        FlakyReads backend = new FlakyReads(uri);
        try (PersistentStore store = new Kernel(backend)) {
            Node root = readTwice(store, backend);
            Set<?> set = assertInstanceOf(Set.class, root.any());
            assertEquals(4, set.size(), "the set holds all it held: " + set);
            assertEquals(Set.of("a", "b", "c"), Set.copyOf(set.stream().filter(e -> e instanceof String).toList()));
            store.inTransaction(() -> root.value(7));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            assertEquals(4, ((Set<?>) root.any()).size());
        }
    }

    /**
     * The set has a record of its own (two referrers), and a read that fails after one of its
     * elements was filled holding it: that element goes hollow again with the set, and the read
     * that follows gives both the same, whole set.
     */
    @Test
    void anObjectFilledByAFailedReadIsReadAgainWithIt() {
        Node root0 = new Node("root");
        KeyedNode first0 = new KeyedNode("a");
        Set<Keyed> set0 = new LinkedHashSet<>();
        set0.add(first0);
        set0.add(new KeyedNode(FAILS)); // hashing it reads its record, which fails
        first0.any(set0);
        root0.any(set0);
        String uri = stored(root0);
        FlakyReads backend = new FlakyReads(uri);
        try (PersistentStore store = new Kernel(backend)) {
            Node root = readTwice(store, backend);
            Set<?> set = assertInstanceOf(Set.class, root.any());
            assertEquals(2, set.size(), "the set holds all it held: " + set);
            assertTrue(set.contains(new KeyedNode("a")) && set.contains(new KeyedNode(FAILS)), "found by key");
            KeyedNode first = (KeyedNode) set.iterator().next();
            assertSame(set, first.any(), "the element holds the set its owner holds");
        }
    }

    /**
     * What a failed read had read into the object goes back to the default: a rewritten getter
     * takes a value that is not the default as proof that the object is filled, and would hand
     * out a container the failed read let go, whose changes no commit would see.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aFailedReadLeavesTheObjectsFieldsAtTheirDefaults() throws ReflectiveOperationException {
        String[] shared = {FAILS};
        Node third = new Node("third");
        third.any(shared);
        Node root0 = new Node("root");
        root0.any(new ArrayList<>(List.of("kept")));
        root0.children(new ArrayList<>(List.of(new Node("child"))));
        ((List<Object>) (List<?>) root0.children()).add(shared); // read after any, and fails
        root0.next(third);
        Node door = new Node("door");
        door.next(root0);
        String uri = stored(door);
        FlakyReads backend = new FlakyReads(uri);
        try (PersistentStore store = new Kernel(backend)) {
            Node root = store.fetch("root", Node.class).next(); // hollow: the door's next
            backend.arm();
            assertThrows(StorageException.class, root::name);
            Field any = Node.class.getDeclaredField("any");
            any.setAccessible(true);
            assertNull(any.get(root), "the field the failed read had set is back to its default");
            assertEquals(List.of("kept"), root.any());
            assertEquals(2, root.children().size());
            assertSame(root.next().any(), ((List<?>) root.children()).get(1), "the shared array is one array");
        }
    }
}
