package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Arrays and JDK collections cannot report their own changes: the kernel compares them with
 * what it last stored. A change made in place must never be lost, and sharing must survive.
 */
class InPlaceChangesTest {

    @Test
    void inPlaceChangesToArraysListsAndMapsAreSaved() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(new Object[] {new int[] {1, 2, 3}, new ArrayList<>(List.of("a")), new HashMap<>(Map.of("k", 1))});
                store.persist(n, "n");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Object[] parts = (Object[]) store.fetch("n", Node.class).any();
                ((int[]) parts[0])[1] = 20;                      // array[i] = x
                @SuppressWarnings("unchecked") List<Object> list = (List<Object>) parts[1];
                list.add("b");                                   // list.add
                list.add(new Node("added"));                     // a new object reached through a list
                @SuppressWarnings("unchecked") Map<String, Integer> map = (Map<String, Integer>) parts[2];
                map.put("k", 2);                                 // map.put
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] parts = (Object[]) store.fetch("n", Node.class).any();
            assertArrayEquals(new int[] {1, 20, 3}, (int[]) parts[0]);
            List<?> list = (List<?>) parts[1];
            assertEquals("b", list.get(1));
            assertEquals("added", ((Node) list.get(2)).name());
            assertEquals(Map.of("k", 2), parts[2]);
        }
    }

    @Test
    void replacingAnElementOfALoadedObjectArrayIsSaved() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(new Node[] {new Node("first"), new Node("second")});
                store.persist(n, "n");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] nodes = (Node[]) store.fetch("n", Node.class).any();
            store.inTransaction(() -> store.fetch("n", Node.class).value(1));
            long written = store.statistics().recordsWritten();
            assertEquals(1, written, "an untouched array is not rewritten");
            store.inTransaction(() -> nodes[1] = new Node("replaced"));
            assertEquals(written + 2, store.statistics().recordsWritten(),
                    "the node whose record embeds the array, and the new node");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] nodes = (Node[]) store.fetch("n", Node.class).any();
            assertEquals("first", nodes[0].name());
            assertEquals("replaced", nodes[1].name());
        }
    }

    /**
     * The kernel remembers a reference array of up to 4 elements in its handle and a longer one
     * in a copy: for each length on both sides of that line, a change made in place at each
     * position is saved, an aborted one is put back, and an unchanged array is not rewritten.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6})
    void everyElementOfAReferenceArrayIsWatched(int length) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node[] nodes = new Node[length];
                for (int i = 0; i < length; i++) {
                    nodes[i] = new Node("old" + i);
                }
                Node n = new Node("n");
                n.any(nodes);
                store.persist(n, "n");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] nodes = (Node[]) store.fetch("n", Node.class).any();
            for (int i = 0; i < length; i++) {
                Node committed = nodes[i];
                store.beginTransaction();
                nodes[i] = new Node("aborted" + i);
                store.abortTransaction();
                assertSame(committed, nodes[i], "an aborted change at " + i + " is put back");

                long written = store.statistics().recordsWritten();
                store.inTransaction(() -> store.fetch("n", Node.class).name());
                assertEquals(written, store.statistics().recordsWritten(), "nothing changed, nothing written");

                int at = i;
                store.inTransaction(() -> nodes[at] = new Node("new" + at));
                assertEquals(written + 2, store.statistics().recordsWritten(),
                        "the owner, whose record embeds the array, and the new node at " + i);
            }
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] nodes = (Node[]) store.fetch("n", Node.class).any();
            for (int i = 0; i < length; i++) {
                assertEquals("new" + i, nodes[i].name());
            }
        }
    }

    @Test
    void anEmptyArrayStaysEmptyAndTheFieldThatHoldsItIsStillWatched() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(new Node[0]);
                store.persist(n, "n");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("n", Node.class);
            assertEquals(0, ((Node[]) n.any()).length);
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> n.name());
            assertEquals(written, store.statistics().recordsWritten(), "an empty array never changes");
            store.inTransaction(() -> n.any(new Node[] {new Node("grown")}));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("grown", ((Node[]) store.fetch("n", Node.class).any())[0].name());
        }
    }

    @Test
    void unchangedContainersAreNotRewritten() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.children(new ArrayList<>(List.of(new Node("c"))));
                store.persist(n, "n");
            });
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> store.fetch("n", Node.class).name("renamed"));
            assertEquals(written + 1, store.statistics().recordsWritten(), "only the renamed node");
        }
    }

    @Test
    void twoObjectsThatShareAListStillShareItAfterReload() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                List<Node> shared = new ArrayList<>();
                Node a = new Node("a");
                Node b = new Node("b");
                a.children(shared);
                b.children(shared);
                a.next(b);
                shared.add(a); // a cycle through the list
                store.persist(a, "a");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            Node b = a.next();
            assertSame(a.children(), b.children(), "one list, as before");
            assertSame(a, a.children().get(0));
            store.inTransaction(() -> b.children().add(new Node("c")));
            assertEquals(2, a.children().size(), "a change through one owner shows through the other");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("c", store.fetch("a", Node.class).children().get(1).name());
        }
    }

    @Test
    void aListThatContainsItself() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                List<Object> self = new ArrayList<>();
                self.add(self);
                store.persist(self, "self");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<?> self = (List<?>) store.fetch("self");
            assertSame(self, self.get(0));
        }
    }
}
