package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.UnknownPersistentName;
import io.perpetua.runtime.ObjectState;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Abort returns memory to the last committed state and leaves the store as it was. */
class AbortTest {

    /**
     * A method of an object that an abort inside it puts back reads its own fields (directly,
     * after its check at entry) as committed, not as the defaults the abort left while the
     * object waited to be read again; what it commits next is right. Until session 42 a
     * {@code withdraw} that aborted logged "refused 500 for null, balance 0", and stored it.
     */
    @Test
    void aMethodRunningAcrossAnAbortOfItsObjectReadsItsCommittedFields() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node account = new Node("alice", 100);
                account.next(new Node("bank"));
                store.persist(account, "account");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node account = store.fetch("account", Node.class);
            String seen = account.describeAround(() -> {
                try {
                    store.inTransaction(() -> {
                        account.value(-400);
                        account.name("mallory");
                        throw new IllegalStateException("refused");
                    });
                } catch (IllegalStateException expected) {
                    // aborted
                }
            });
            assertEquals("alice/100/bank", seen);
            assertEquals(ObjectState.CLEAN, account.$perpetua$state, "read back by the abort");
            store.inTransaction(() -> account.children(new ArrayList<>(List.of(new Node(seen)))));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node account = store.fetch("account", Node.class);
            assertEquals("alice", account.name());
            assertEquals(100, account.value());
            assertEquals("alice/100/bank", account.children().get(0).name());
        }
    }

    /**
     * An object the program holds only through an object an abort puts back (a lock a thread
     * holds across the abort: holding it does not refer to it) is the same object afterwards,
     * even if the collector ran meanwhile. Until session 42 the abort left the field null until
     * the next touch read it again, and a collection in between gave back a new, unlocked lock.
     */
    @Test
    void anAbortKeepsTheObjectsItsObjectsReferTo() throws InterruptedException {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node account = new Node("alice", 100);
                account.any(new java.util.concurrent.locks.ReentrantLock());
                store.persist(account, "account");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node account = store.fetch("account", Node.class);
            java.util.concurrent.locks.ReentrantLock lock = (java.util.concurrent.locks.ReentrantLock) account.any();
            int identity = System.identityHashCode(lock);
            lock.lock();
            WeakReference<Object> held = new WeakReference<>(lock);
            lock = null; // as a thread holding it: it does not refer to it
            store.beginTransaction();
            account.value(0);
            store.abortTransaction();
            for (int i = 0; i < 3 && held.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            Object after = account.any();
            assertEquals(identity, System.identityHashCode(after), "the same lock");
            assertTrue(((java.util.concurrent.locks.ReentrantLock) after).isHeldByCurrentThread());
            ((java.util.concurrent.locks.ReentrantLock) after).unlock();
        }
    }

    @Test
    void abortRestoresChangedObjectsAndContainers() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("before", 1);
                n.children(new ArrayList<>(List.of(new Node("kid"))));
                n.any(new int[] {1, 2});
                store.persist(n, "n");
            });
            Node n = store.fetch("n", Node.class);
            List<Node> kids = n.children();
            int[] numbers = (int[]) n.any();
            long objectsBefore = store.statistics().objects();

            store.beginTransaction();
            n.name("after");
            n.value(2);
            Node stranger = new Node("stranger");
            kids.add(stranger);
            numbers[0] = 100;
            store.persist(stranger, "stranger");
            store.abortTransaction();

            assertEquals("before", n.name(), "a changed object returns to its committed state");
            assertEquals(1, n.value());
            assertSame(kids, n.children(), "the same list object, restored in place");
            assertEquals(1, kids.size());
            assertArrayEquals(new int[] {1, 2}, numbers, "the same array, restored in place");
            assertFalse(store.isPersistent(stranger), "an object made persistent in the transaction is transient again");
            assertEquals(ObjectState.TRANSIENT, stranger.$perpetua$state);
            assertThrows(UnknownPersistentName.class, () -> store.fetch("stranger"), "the binding is undone");
            assertEquals(objectsBefore, store.statistics().objects(), "the store is unchanged");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("n", Node.class);
            assertEquals("before", n.name());
            assertEquals(1, n.children().size());
        }
    }

    /** Binds "n" to a node "owner" whose {@code any} is the array {a, b}. */
    private static void persistOwnerOfAandB(PersistentStore store) {
        store.inTransaction(() -> {
            Node n = new Node("owner");
            n.any(new Node[] {new Node("a"), new Node("b")});
            store.persist(n, "n");
        });
    }

    @Test
    void abortRestoresAReferenceArrayInPlace() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            persistOwnerOfAandB(store);
            Node n = store.fetch("n", Node.class);
            Node[] array = (Node[]) n.any();
            Node a = array[0];
            Node b = array[1];

            store.beginTransaction();
            array[0] = new Node("stranger");
            array[1] = null;
            store.abortTransaction();

            assertSame(array, n.any(), "the same array object");
            assertSame(a, array[0], "its committed elements, by identity");
            assertSame(b, array[1]);
            assertEquals("b", array[1].name());
            store.inTransaction(() -> array[1] = a);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] array = (Node[]) store.fetch("n", Node.class).any();
            assertEquals("a", array[0].name());
            assertSame(array[0], array[1], "a change after the abort is committed as usual");
        }
    }

    @Test
    void abortPutsBackAnArrayElementThatWasCollectedMeanwhile() throws Exception {
        // the kernel remembers an array's persistent elements weakly: an element the program
        // replaced and dropped may be collected before the abort, which then reads it back
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            persistOwnerOfAandB(store);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("n", Node.class);
            Node[] array = (Node[]) n.any();
            WeakReference<Node> replaced = new WeakReference<>(array[1]);
            store.beginTransaction();
            array[1] = new Node("stranger");
            TestStores.awaitCollected(replaced);
            assertNull(replaced.get(), "nothing holds the replaced element any more");
            store.abortTransaction();

            assertSame(array, n.any(), "the same array object");
            assertEquals("b", array[1].name(), "its committed element, read back");
            assertTrue(store.isPersistent(array[1]));
            store.inTransaction(() -> array[0] = array[1]);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] array = (Node[]) store.fetch("n", Node.class).any();
            assertSame(array[0], array[1], "the element read back is the stored object, not a copy");
            assertEquals("b", array[0].name());
        }
    }

    @Test
    void abortUndoesUnbind() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.inTransaction(() -> store.persist(new Node("n"), "n"));
            store.beginTransaction();
            store.unbind("n");
            assertFalse(store.isBound("n"));
            store.abortTransaction();
            assertTrue(store.isBound("n"));
            assertEquals("n", store.fetch("n", Node.class).name());
        }
    }

    @Test
    void newObjectsReachedOnlyThroughAnAbortedChangeStayTransient() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.inTransaction(() -> store.persist(new Node("root"), "root"));
            Node root = store.fetch("root", Node.class);
            store.beginTransaction();
            Node fresh = new Node("fresh");
            root.next(fresh);
            store.abortTransaction();
            assertNull(root.next());
            assertFalse(store.isPersistent(fresh));
            // a later commit does not write it either
            store.inTransaction(() -> root.value(5));
            assertEquals(1, store.statistics().objects(), "the root alone: the aborted object was never written");
        }
    }
}
