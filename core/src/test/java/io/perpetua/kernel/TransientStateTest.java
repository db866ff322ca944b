package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.SelfSerialized;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transient fields of a class that serializes itself are its state, and are stored; those
 * of any other class are not.
 */
class TransientStateTest {

    @Test
    void whichClassesStoreTheirTransientFields() {
        assertTrue(PersistentClasses.storesTransientFields(SelfSerialized.class));
        assertEquals("io.perpetua.testmodel.SelfSerialized.writeObject(ObjectOutputStream)",
                PersistentClasses.serializationMethod(SelfSerialized.class));
        assertFalse(PersistentClasses.storesTransientFields(Node.class), "Node's transient cache is a cache");
        assertNull(PersistentClasses.serializationMethod(Node.class));
        assertTrue(PersistentClasses.storesTransientFields(java.util.ArrayList.class));
    }

    /**
     * fastutil's lists and maps, Guava's immutable collections and Commons Collections' LRUMap
     * came back empty or broken before session 23 (then were refused for a while).
     */
    @Test
    void aClassThatSerializesItselfKeepsItsTransientStateAndItsChanges() throws Exception {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = new Node("root");
            root.any(new SelfSerialized(1, 2, 3));
            store.inTransaction(() -> store.persist(root, "root"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            SelfSerialized list = (SelfSerialized) store.fetch("root", Node.class).any();
            assertEquals(ObjectState.HOLLOW, list.$perpetua$state);
            assertArrayEquals(new int[] {1, 2, 3}, list.items());
            store.beginTransaction();
            list.add(4); // a new transient array: the object is dirtied by its transient setter
            assertEquals(ObjectState.DIRTY, list.$perpetua$state);
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            SelfSerialized list = (SelfSerialized) store.fetch("root", Node.class).any();
            assertArrayEquals(new int[] {1, 2, 3, 4}, list.items());
        }
        // and Java serialization, for which the class is written, agrees
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new SelfSerialized(1, 2, 3));
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertArrayEquals(new int[] {1, 2, 3}, ((SelfSerialized) in.readObject()).items());
        }
    }

    /** A transient field of such a class is stored, so what it holds must be storable; the error says why it was reached. */
    @Test
    void whatSuchATransientFieldHoldsMustBeStorable() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            SelfSerialized list = new SelfSerialized(1);
            list.attach(new Thread());
            store.beginTransaction();
            store.persist(list, "list");
            NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertEquals("\"list\".attachment", e.path());
            assertTrue(e.reason().endsWith("the field is transient, but io.perpetua.testmodel.SelfSerialized serializes"
                    + " itself (io.perpetua.testmodel.SelfSerialized.writeObject(ObjectOutputStream)), so its transient"
                    + " fields are stored too"), e::getMessage);
            list.attach("a note");
            store.commitTransaction();
        }
    }

    /** An abort puts back what the transient fields held at the last commit, as for any field. */
    @Test
    void anAbortUndoesAChangeToTransientState() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            SelfSerialized list = new SelfSerialized(7);
            Node root = new Node("root");
            root.any(list);
            store.inTransaction(() -> store.persist(root, "root"));
            store.beginTransaction();
            list.add(8);
            store.abortTransaction();
            assertArrayEquals(new int[] {7}, list.items());
        }
    }
}
