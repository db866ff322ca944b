package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A collection, map or array of an earlier, closed opening of a store is refused by a later
 * opening, as an object of it is ("fetch it again from this one"): it was stored as a new
 * container, a copy, so that the list the program had once was two in the store, and what the
 * program wrote to it after the close (saved nowhere) was committed in the copy.
 */
class ClosedOpeningContainersTest {

    @Test
    void aContainerOfAnEarlierOpeningIsRefusedAsAnObjectOfItIs() {
        String uri = TestStores.newUri();
        List<String> committed = new ArrayList<>(List.of("c")); // the program's own list, committed
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node b = new Node("b");
                b.any(new ArrayList<>(List.of("a")));
                store.persist(b, "b");
                Node numbers = new Node("numbers");
                numbers.any(new int[] {1, 2});
                store.persist(numbers, "numbers");
                Node map = new Node("map");
                map.any(new HashMap<>(Map.of("k", "v")));
                store.persist(map, "map");
                store.persist(committed, "committed");
                store.persist(new Node("c"), "c");
            });
        }
        List<Object> old = new ArrayList<>();
        try (PersistentStore store = TestStores.open(uri)) {
            for (String name : List.of("b", "numbers", "map")) {
                old.add(store.fetch(name, Node.class).any()); // read from the store: a list, an array, a map
            }
            old.add(store.fetch("committed"));
        }
        @SuppressWarnings("unchecked")
        List<String> oldList = (List<String>) old.get(0);
        oldList.add("written after the close");
        try (PersistentStore store = TestStores.open(uri)) {
            for (Object container : old) {
                store.beginTransaction();
                store.fetch("c", Node.class).any(container); // reached from a stored object: refused at commit
                NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
                assertEquals("\"c\".any", e.path());
                assertTrue(e.reason().startsWith("it belongs to an earlier opening of this store, closed since"), e.reason());
                assertTrue(e.reason().contains("fetch it again from this one"), e.reason());
                assertEquals(Containers.storedClass(container).getName(), e.className());
                store.abortTransaction();

                store.beginTransaction(); // given to persist: refused at once
                e = assertThrows(NotPersistableException.class, () -> store.persist(container, "again"));
                assertEquals("\"again\"", e.path());
                assertTrue(e.reason().startsWith("it belongs to an earlier opening of this store, closed since"), e.reason());
                store.abortTransaction();
            }
            store.inTransaction(() -> store.fetch("c", Node.class).any(new ArrayList<>(oldList))); // a copy is stored
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("a", "written after the close"), store.fetch("c", Node.class).any());
            assertEquals(List.of("a"), store.fetch("b", Node.class).any(), "the write after the close is saved nowhere");
            assertArrayEquals(new int[] {1, 2}, (int[]) store.fetch("numbers", Node.class).any());
            Node fresh = store.fetch("b", Node.class);
            store.inTransaction(() -> store.fetch("c", Node.class).any(fresh.any())); // fetched again: one list
            assertSame(fresh.any(), store.fetch("c", Node.class).any());
        }
    }

    /**
     * A list of an earlier opening of store A, stored (as a copy) in store B, which closed too,
     * is still refused by A: B's mark did not replace A's.
     */
    @Test
    void aContainerThatWentThroughAnotherStoreIsStillRefusedByItsOwn() {
        String a = TestStores.newUri();
        String b = TestStores.newUri();
        try (PersistentStore store = TestStores.open(a)) {
            store.inTransaction(() -> {
                Node cart = new Node("cart");
                cart.any(new ArrayList<>(List.of("item")));
                store.persist(cart, "cart");
            });
        }
        Object items;
        try (PersistentStore store = TestStores.open(a)) {
            items = store.fetch("cart", Node.class).any();
        }
        try (PersistentStore store = TestStores.open(b)) {
            store.inTransaction(() -> {
                Node audit = new Node("audit");
                audit.any(items);
                store.persist(audit, "audit");
            });
        }
        try (PersistentStore store = TestStores.open(a)) {
            store.beginTransaction();
            Node audit = new Node("audit");
            audit.any(items);
            store.persist(audit, "audit");
            NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertTrue(e.getMessage().contains("earlier opening"), e.getMessage());
            store.abortTransaction();
        }
    }

    /** What cannot change in place, read from an earlier opening, is shared freely, as between two open stores. */
    @Test
    void whatCannotChangeInPlaceIsStillShared() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(List.of("x"));
                store.persist(n, "n");
            });
        }
        Object immutable;
        try (PersistentStore store = TestStores.open(uri)) {
            immutable = store.fetch("n", Node.class).any();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node m = new Node("m");
                m.any(immutable);
                store.persist(m, "m");
            });
            assertEquals(List.of("x"), store.fetch("m", Node.class).any());
        }
    }
}
