package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A collection, map or array belongs to one store, as an object does: reached from another
 * open store's graph, it is refused with the path and what to do (in two, one store's abort
 * put back what the other had committed, and one's commit hid the other's changes).
 */
class TwoStoresTest {

    @Test
    void aCollectionOfAnotherOpenStoreIsRefusedAndACopyIsStored() {
        String uriA = TestStores.newUri();
        String uriB = TestStores.newUri();
        try (PersistentStore a = TestStores.open(uriA)) {
            List<String> list = new ArrayList<>(List.of("x"));
            int[] numbers = {1, 2};
            a.inTransaction(() -> {
                a.persist(list, "list");
                Node holder = new Node("holder");
                holder.any(numbers);
                a.persist(holder, "holder");
            });
            try (PersistentStore b = TestStores.open(uriB)) { // opened after a's list was stored
                b.beginTransaction();
                Node root = new Node("root");
                root.any(a.fetch("list"));
                b.persist(root, "root");
                NotPersistableException e = assertThrows(NotPersistableException.class, b::commitTransaction);
                assertEquals("\"root\".any", e.path());
                assertTrue(e.reason().startsWith("it is persistent in another open store (" + a.location() + ")"),
                        e.reason());
                root.any(numbers);
                e = assertThrows(NotPersistableException.class, b::commitTransaction, "an array too");
                assertEquals("[I", e.className());
                root.any(new ArrayList<>(list)); // a copy
                b.commitTransaction();

                List<String> fresh = new ArrayList<>(List.of("y"));
                a.beginTransaction();
                b.beginTransaction();
                a.persist(fresh, "fresh"); // a's, though not committed yet
                e = assertThrows(NotPersistableException.class, () -> b.persist(fresh, "fresh"));
                assertEquals("\"fresh\"", e.path());
                a.commitTransaction();
                b.abortTransaction();
                assertFalse(b.isBound("fresh"));
            }
            a.inTransaction(() -> list.add("z"));
        }
        try (PersistentStore a = TestStores.open(uriA); PersistentStore b = TestStores.open(uriB)) {
            assertEquals(List.of("x", "z"), a.fetch("list"));
            assertEquals(List.of("y"), a.fetch("fresh"));
            assertEquals(List.of("x"), b.fetch("root", Node.class).any());
        }
    }

    @Test
    void onceTheOtherStoreIsClosedItsCollectionMayBeStoredHere() {
        String uriB = TestStores.newUri();
        List<String> list = new ArrayList<>(List.of("x"));
        try (PersistentStore b = TestStores.open(uriB)) {
            try (PersistentStore a = TestStores.open(TestStores.newUri())) {
                a.inTransaction(() -> a.persist(list, "list"));
            }
            b.inTransaction(() -> b.persist(list, "list"));
        }
        try (PersistentStore b = TestStores.open(uriB)) {
            assertEquals(List.of("x"), b.fetch("list"));
        }
    }
}
