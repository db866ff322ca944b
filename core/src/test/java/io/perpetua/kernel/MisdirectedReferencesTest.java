package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStore;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A damaged record whose reference to an object names a container, or whose reference to a
 * container names an object, is a corrupt store, reported as such: not an object of the wrong
 * kind handed to the program (a list that holds itself, a node where a list belongs).
 */
class MisdirectedReferencesTest {

    /** A root node whose list of two nodes has a record of its own (it is bound to a name). */
    private static final class Stored {
        final String uri = TestStores.newUri();
        final long rootId;
        final long listId;
        final long aId;

        Stored() {
            try (PersistentStore store = TestStores.open(uri)) {
                store.inTransaction(() -> {
                    Node a = new Node("a", 1);
                    Node root = new Node("root", 0);
                    root.children(new ArrayList<>(List.of(a, new Node("b", 2))));
                    store.persist(root, "root");
                    store.persist(root.children(), "list");
                    store.persist(a, "a");
                });
            }
            try (Backend b = backend()) {
                rootId = b.lookup("root");
                listId = b.lookup("list");
                aId = b.lookup("a");
            }
            assertTrue(rootId < 128 && listId < 128 && aId < 128, "ids of one byte each, for the byte patterns below");
        }

        Backend backend() {
            return Backends.open(URI.create(uri));
        }

        /** Replaces, in the record of {@code id}, the one occurrence of {@code from} with {@code to} (as long). */
        void patch(long id, byte[] from, byte[] to) {
            try (Backend b = backend()) {
                byte[] record = b.read(id);
                int at = -1;
                for (int i = 0; i + from.length <= record.length; i++) {
                    if (Arrays.equals(record, i, i + from.length, from, 0, from.length)) {
                        assertEquals(-1, at, "one occurrence");
                        at = i;
                    }
                }
                assertTrue(at >= 0, "the pattern is in record #" + id);
                System.arraycopy(to, 0, record, at, to.length);
                b.commit(new WriteSet().replace(id, record));
            }
        }

        byte nodeClass() {
            try (Backend b = backend()) {
                return b.read(rootId)[0]; // a record starts with its class's descriptor id
            }
        }
    }

    @Test
    void aReferenceToAnObjectThatNamesAContainerIsACorruptStore() {
        Stored s = new Stored();
        byte node = s.nodeClass();
        // the list's first element, node a, becomes a reference within the record, index 0:
        // the list's own id
        s.patch(s.listId, new byte[] {Tag.OBJECT, node, (byte) s.aId}, new byte[] {Tag.LOCAL, node, 0});
        try (PersistentStore store = TestStores.open(s.uri)) {
            CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> store.fetch("list"));
            assertTrue(e.getMessage().contains("#" + s.listId) && e.getMessage().contains("which is a container"),
                    e.getMessage());
        }
    }

    @Test
    void aReferenceToAContainerThatNamesAnObjectIsACorruptStore() {
        Stored s = new Stored();
        s.patch(s.rootId, new byte[] {Tag.CONTAINER, (byte) s.listId}, new byte[] {Tag.CONTAINER, (byte) s.aId});
        try (PersistentStore store = TestStores.open(s.uri)) {
            assertEquals("a", store.fetch("a", Node.class).name());
            CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> store.fetch("root", Node.class));
            assertTrue(e.getMessage().contains("#" + s.aId) && e.getMessage().contains("which is an object"),
                    e.getMessage());
        }
    }
}
