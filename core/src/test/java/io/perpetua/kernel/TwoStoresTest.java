package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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

    /**
     * A store closed while two others stay open is let go: the owners kept for the others do
     * not hold it (they held it, its objects and so their classes' loader, until the JVM ended).
     */
    @Test
    void aStoreClosedWhileTwoOthersStayOpenIsCollected() throws InterruptedException {
        try (PersistentStore a = TestStores.open(TestStores.newUri());
             PersistentStore b = TestStores.open(TestStores.newUri())) {
            WeakReference<PersistentStore> closed = closedAfterStoringALine();
            TestStores.awaitCollected(closed);
            assertNull(closed.get(), "the closed store is still reachable");
        }
    }

    private static WeakReference<PersistentStore> closedAfterStoringALine() {
        List<String> line = new ArrayList<>(List.of("x"));
        PersistentStore c = TestStores.open(TestStores.newUri());
        c.inTransaction(() -> {
            Node n = new Node("n");
            n.any(line);
            c.persist(n, "n");
        });
        c.close();
        return new WeakReference<>(c);
    }

    /** What cannot change in place (the JVM's one {@code List.of()}, a shared constant, an empty array) is shared freely. */
    @Test
    void immutableCollectionsAndEmptyArraysAreSharedByStores() {
        List<String> constant = List.of("a", "b");
        int[] none = {};
        try (PersistentStore a = TestStores.open(TestStores.newUri());
             PersistentStore b = TestStores.open(TestStores.newUri())) {
            for (PersistentStore store : List.of(a, b)) {
                store.inTransaction(() -> {
                    Node n = new Node("n");
                    n.any(new Object[] {List.of(), java.util.Map.of(), java.util.Set.of(), java.util.Collections.emptyList(),
                            java.util.Collections.singletonList("x"), constant, none,
                            java.util.Collections.unmodifiableList(new ArrayList<>(List.of("own")))});
                    store.persist(n, "n");
                });
            }
            for (PersistentStore store : List.of(a, b)) { // read back into one store, still free for the other
                Object[] back = (Object[]) store.fetch("n", Node.class).any();
                assertEquals(constant, back[5]);
            }
            b.inTransaction(() -> {
                Node m = new Node("m");
                m.any(List.of());
                b.persist(m, "m");
            });
        }
    }

    /** Two threads committing one new list into two stores at once: one succeeds, the other is refused. */
    @Test
    void oneListCommittedIntoTwoStoresAtOnceGoesToOne() throws Exception {
        try (PersistentStore a = TestStores.open(TestStores.newUri());
             PersistentStore b = TestStores.open(TestStores.newUri())) {
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                for (int round = 0; round < 200; round++) {
                    List<String> shared = new ArrayList<>(List.of("r" + round));
                    String name = "r" + round;
                    java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                    List<java.util.concurrent.Future<Boolean>> done = new ArrayList<>();
                    for (PersistentStore store : List.of(a, b)) {
                        done.add(threads.submit(() -> {
                            start.await();
                            try {
                                store.inTransaction(() -> {
                                    Node n = new Node(name);
                                    n.any(shared);
                                    store.persist(n, name);
                                });
                                return true;
                            } catch (NotPersistableException e) {
                                return false;
                            }
                        }));
                    }
                    int succeeded = (done.get(0).get() ? 1 : 0) + (done.get(1).get() ? 1 : 0);
                    assertEquals(1, succeeded, "round " + round + ": one store has the list");
                }
            } finally {
                threads.shutdown();
            }
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
