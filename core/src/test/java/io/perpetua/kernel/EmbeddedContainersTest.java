package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A container that one object's field refers to is embedded in that object's record: one read
 * instead of two. A second referrer promotes it to a record of its own, keeping its identity.
 */
class EmbeddedContainersTest {

    @Test
    void anObjectAndTheListInItsFieldAreOneRead() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.children(new ArrayList<>(List.of(new Node("a"), new Node("b"))));
                store.persist(n, "n");
            });
            assertEquals(3, store.statistics().objects(), "three nodes; the list has no record of its own");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = store.fetch("n", Node.class).children();
            assertEquals(2, kids.size());
            assertEquals(1, store.statistics().recordsRead());
            assertEquals("b", kids.get(1).name());
            assertEquals(2, store.statistics().recordsRead());
        }
    }

    /**
     * A list embedded in x's record refers to x as that record does (by its index in the record,
     * {@link Tag#LOCAL}). Promoted to a record of its own later in the commit that wrote x, it
     * is remembered as its own record holds it: an abort then puts back nothing, and a commit
     * that finds it as it was writes nothing.
     */
    @Test
    void aListPromotedLaterInTheCommitThatWroteItsOwnerIsRememberedAsItsOwnRecordHoldsIt() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node x = new Node("x");
                x.any(new LinkedList<>(List.of(x)));
                store.persist(x, "x");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node x = store.fetch("x", Node.class);
            @SuppressWarnings("unchecked")
            LinkedList<Object> list = (LinkedList<Object>) x.any();
            store.inTransaction(() -> {
                x.value(1); // written first, the list in its record
                Node y = new Node("y");
                y.any(list); // then, reached from x, the list's second referrer
                x.next(y);
            });
            store.beginTransaction();
            store.abortTransaction();
            assertEquals(1, list.size());
            assertSame(x, list.get(0));
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> list.set(0, x));
            assertEquals(written, store.statistics().recordsWritten(), "the list is as its record holds it");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node x = store.fetch("x", Node.class);
            assertSame(x.any(), x.next().any());
            assertSame(x, ((List<?>) x.any()).get(0));
        }
    }

    @Test
    void aSecondReferrerInALaterCommitPromotesTheList() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node a = new Node("a");
                a.children(new ArrayList<>(List.of(new Node("kid"))));
                store.persist(a, "a");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node b = new Node("b");
                b.children(store.fetch("a", Node.class).children()); // now shared
                store.persist(b, "b");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            Node b = store.fetch("b", Node.class);
            assertSame(a.children(), b.children(), "still one list");
            store.inTransaction(() -> b.children().add(new Node("added through b")));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            // read b first this time: the list must not come back twice
            Node b = store.fetch("b", Node.class);
            Node a = store.fetch("a", Node.class);
            assertSame(a.children(), b.children());
            assertEquals("added through b", a.children().get(1).name());
        }
    }

    /**
     * @return the list of the store of {@link #rootOwningAList}, read from it, once the program
     *         has let the list's owner (and the root) go and the collector has taken them
     */
    private static List<Node> listWhoseOwnerWasCollected(PersistentStore store) throws InterruptedException {
        Node root = store.fetch("root", Node.class);
        List<Node> kids = root.next().children();
        WeakReference<Node> owner = new WeakReference<>(root.next());
        root = null; // the program keeps the list, not its owner
        TestStores.awaitCollected(owner);
        assertNull(owner.get(), "the owner went");
        return kids;
    }

    /** @return a new store holding "root", whose next node ("owner") holds a list of one node, "x" */
    private static String rootOwningAList() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                Node owner = new Node("owner");
                owner.children(new ArrayList<>(List.of(new Node("x"))));
                root.next(owner);
                store.persist(root, "root");
            });
        }
        return uri;
    }

    @Test
    void aChangeThroughAListWhoseOwnerWasCollectedIsSaved() throws Exception {
        String uri = rootOwningAList();
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = listWhoseOwnerWasCollected(store);
            store.inTransaction(() -> kids.add(new Node("y")));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = store.fetch("root", Node.class).next().children();
            assertEquals(2, kids.size());
            assertEquals("y", kids.get(1).name());
        }
    }

    /** The table finds an embedded container by its owner: one kept while its owner went is found again. */
    @Test
    void aListKeptWhileItsOwnerWasCollectedIsTheOneItsOwnerReadAgainHolds() throws Exception {
        String uri = rootOwningAList();
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = listWhoseOwnerWasCollected(store);
            Node again = store.fetch("root", Node.class).next();
            assertSame(kids, again.children(), "one list per stored list");
            store.inTransaction(() -> again.children().add(new Node("y")));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = store.fetch("root", Node.class).next().children();
            assertEquals(List.of("x", "y"), kids.stream().map(Node::name).toList());
        }
    }

    /**
     * A name bound to a list whose owner was collected promotes the list, and the commit reads
     * the owner again to rewrite it: that read must find the list it is promoting (no longer
     * embedded, but kept for its owner), not make a copy from the stored record.
     */
    @Test
    void aListNamedWhileItsOwnerWasCollectedKeepsTheChangeAndItsIdentity() throws Exception {
        String uri = rootOwningAList();
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = listWhoseOwnerWasCollected(store);
            store.inTransaction(() -> {
                kids.add(new Node("y"));
                store.persist(kids, "kids");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<?> named = store.fetch("kids", List.class);
            List<Node> kids = store.fetch("root", Node.class).next().children();
            assertSame(named, kids, "one list, named and held by its owner");
            assertEquals(List.of("x", "y"), kids.stream().map(Node::name).toList());
        }
    }

    @Test
    void aFailedCommitUndoesAPromotion() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node a = new Node("a");
                a.children(new ArrayList<>(List.of(new Node("kid"))));
                store.persist(a, "a");
            });
            Node a = store.fetch("a", Node.class);
            store.beginTransaction();
            Node b = new Node("b");
            b.children(a.children());
            b.any(new Thread());
            store.persist(b, "b");
            assertThrows(NotPersistableException.class, store::commitTransaction);
            b.any(null);
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            Node b = store.fetch("b", Node.class);
            assertSame(a.children(), b.children());
            assertEquals("kid", b.children().get(0).name());
        }
    }

    /**
     * A name is a referrer too: bound to an array that its owner's record holds, the array gets
     * a record of its own, so the name still finds it when the owner is not read first, or is
     * gone.
     */
    @Test
    void aNameBoundToAnEmbeddedArrayGivesItARecordOfItsOwn() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(new int[] {1, 2});
                store.persist(n, "n");
            });
            assertEquals(1, store.statistics().objects(), "the array is in the node's record");
            store.inTransaction(() -> store.persist(store.fetch("n", Node.class).any(), "numbers"));
            assertEquals(2, store.statistics().objects(), "the array has a record of its own");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            int[] numbers = store.fetch("numbers", int[].class); // before its owner
            assertArrayEquals(new int[] {1, 2}, numbers);
            assertSame(numbers, store.fetch("n", Node.class).any(), "still shared");
            store.inTransaction(() -> store.unbind("n"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertArrayEquals(new int[] {1, 2}, store.fetch("numbers", int[].class));
        }
    }
}
