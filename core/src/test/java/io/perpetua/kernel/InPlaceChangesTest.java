package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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

    /**
     * The program changes a list in place and drops it, and the object it reached it through,
     * before the commit (the quick start's pattern: the block's locals are gone when
     * {@code inTransaction} commits). Nothing marks a list dirty as a write marks an object, so
     * were the list held weakly, the collector could take the change before the commit saw it.
     */
    @Test
    void aListChangedInPlaceIsSavedThoughTheProgramDroppedItBeforeTheCommit() throws InterruptedException {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node shop = new Node("shop");
                shop.children(new ArrayList<>());
                store.persist(shop, "shop");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            WeakReference<Node> shop = addAnOrder(store);
            collect(shop);
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> orders = store.fetch("shop", Node.class).children();
            assertEquals(1, orders.size());
            assertEquals("order", orders.get(0).name());
        }
    }

    /**
     * A list read from a store and only read (a loop over it, an element) is let go when the
     * program drops it, though transactions follow each other back to back: only a changed
     * tracked collection is held. Until session 42 every resident collection was held for the
     * whole of each transaction, so a program never outside one kept everything its lists had
     * reached.
     */
    @Test
    void aListOnlyReadIsLetGoThoughTransactionsFollowEachOtherBackToBack() throws InterruptedException {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node shop = new Node("shop");
                shop.children(new ArrayList<>(List.of(new Node("a"), new Node("b"))));
                store.persist(shop, "shop");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            WeakReference<List<Node>> orders = readTheOrders(store);
            store.commitTransaction();
            store.beginTransaction();
            collect(orders);
            store.commitTransaction();
            assertEquals(2, store.fetch("shop", Node.class).children().size(), "read again");
        }
    }

    /** Reads the shop's list, as a loop and an element, and keeps nothing but a weak reference to it. */
    private static WeakReference<List<Node>> readTheOrders(PersistentStore store) {
        List<Node> orders = store.fetch("shop", Node.class).children();
        StringBuilder names = new StringBuilder();
        for (Node order : orders) {
            names.append(order.name());
        }
        assertEquals("ab", names.toString() + "");
        assertEquals("a", orders.get(0).name());
        assertFalse(((Tracked) orders).$perpetua$touched(), "reading notes no change");
        return new WeakReference<>(orders);
    }

    /** Changes the shop's list and keeps nothing: only the returned weak reference to the shop. */
    private static WeakReference<Node> addAnOrder(PersistentStore store) {
        Node shop = store.fetch("shop", Node.class);
        shop.children().add(new Node("order"));
        return new WeakReference<>(shop);
    }

    /**
     * An array field decoded when first read, changed in place, and its owner collected before
     * the commit: the commit reads the owner back to write the array, which its record holds,
     * and must write the resident array, not the stored bytes of the field the owner read back
     * has not decoded. An abort after that commit has nothing to undo.
     */
    @Test
    void anArrayChangedInPlaceIsSavedThoughItsOwnerWasCollectedBeforeTheCommit() throws InterruptedException {
        String uri = storeWithAHolder();
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            WeakReference<Holder> holder = changeTheArrays(store);
            collect(holder);
            store.commitTransaction();
            store.beginTransaction();
            store.abortTransaction();
            Holder h = store.fetch("h", Holder.class);
            assertEquals("c", h.nodes()[1].name(), "an abort after the commit keeps what it wrote");
            assertArrayEquals(new int[] {1, 20}, h.numbers());
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("c", h.nodes()[1].name());
            assertArrayEquals(new int[] {1, 20}, h.numbers());
        }
    }

    /**
     * A transaction that begins right after a commit pins what that commit's scan listed, and
     * what was read after it: here the arrays read between the two transactions.
     */
    @Test
    void anArrayReadBetweenTwoTransactionsIsHeldByTheSecond() throws InterruptedException {
        String uri = storeWithAHolder();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("other"), "other"));
            Holder h = store.fetch("h", Holder.class);
            assertEquals(2, h.nodes().length, "read outside a transaction");
            assertEquals(2, h.numbers().length, "read outside a transaction");
            store.beginTransaction();
            WeakReference<Holder> holder = changeTheArrays(store);
            assertSame(h, holder.get(), "the same resident holder, its arrays read before the transaction");
            h = null;
            collect(holder);
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("c", h.nodes()[1].name());
            assertArrayEquals(new int[] {1, 20}, h.numbers());
        }
    }

    /** @return a new store whose name "h" is a holder of nodes a and b and numbers 1 and 2 */
    private static String storeWithAHolder() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(
                    new Holder("h", new Node[] {new Node("a", 1), new Node("b", 2)}, new int[] {1, 2}, null), "h"));
        }
        return uri;
    }

    private static WeakReference<Holder> changeTheArrays(PersistentStore store) {
        Holder h = store.fetch("h", Holder.class);
        h.nodes()[1] = new Node("c", 3);
        h.numbers()[1] = 20;
        return new WeakReference<>(h);
    }

    /**
     * Enough resident arrays for the commit to compare them on two threads (ContainerScan), with
     * changes spread over every chunk, the first and last array included: each is saved, and
     * nothing else is.
     */
    @Test
    void changesAmongManyResidentArraysAreAllSaved() {
        int n = 20_000;
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] arrays = new Object[n];
            for (int i = 0; i < n; i++) {
                arrays[i] = new int[] {i};
            }
            Node root = new Node("root");
            root.any(arrays);
            store.inTransaction(() -> store.persist(root, "root"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] arrays = (Object[]) store.fetch("root", Node.class).any();
            store.inTransaction(() -> {
                for (int i = 0; i < n; i += 997) {
                    ((int[]) arrays[i])[0] = -i - 2;
                }
                ((int[]) arrays[n - 1])[0] = -1;
            });
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> { });
            assertEquals(written, store.statistics().recordsWritten(), "a commit with no change writes nothing");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] arrays = (Object[]) store.fetch("root", Node.class).any();
            for (int i = 0; i < n; i++) {
                int expected = i == n - 1 ? -1 : i % 997 == 0 ? -i - 2 : i;
                assertEquals(expected, ((int[]) arrays[i])[0], "array " + i);
            }
        }
    }

    /** Runs the collector until the object is gone; fails rather than let a test pass without it. */
    private static void collect(WeakReference<?> ref) throws InterruptedException {
        TestStores.awaitCollected(ref);
        assertNull(ref.get(), "the object was collected");
    }
}
