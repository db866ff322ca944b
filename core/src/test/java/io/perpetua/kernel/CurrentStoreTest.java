package io.perpetua.kernel;

import io.perpetua.NoCurrentStoreException;
import io.perpetua.NotPersistableException;
import io.perpetua.Perpetua;
import io.perpetua.PersistentStore;
import io.perpetua.TransactionStateException;
import io.perpetua.testmodel.Primitives;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which store {@code obj.persist("n")} and {@code Type.fetch("n")} use when several are open
 * (the rule documented on {@link Perpetua}). Runs in one test so that no other test's open
 * stores interfere with the "only open store" case.
 */
class CurrentStoreTest {

    @Test
    void theRule() {
        try (PersistentStore a = TestStores.open(TestStores.newUri());
             PersistentStore b = TestStores.open(TestStores.newUri())) {
            Primitives p = new Primitives();
            assertThrows(NoCurrentStoreException.class, () -> p.persist("p"), "two open, no transaction begun here");

            b.beginTransaction();
            p.persist("p"); // the store whose transaction this thread began
            assertTrue(b.isPersistent(p));
            assertFalse(a.isPersistent(p));
            b.commitTransaction();

            a.beginTransaction();
            b.beginTransaction(); // most recent on this thread
            Primitives q = new Primitives();
            q.persist();
            assertTrue(b.isPersistent(q), "the most recently begun transaction wins");
            p.persist("again"); // an object that is already persistent uses its own store
            assertTrue(b.isBound("again"));
            b.commitTransaction();
            Primitives r = new Primitives();
            r.persist("r");
            assertTrue(a.isPersistent(r), "after b's commit, a's transaction is the current one");
            a.commitTransaction();

            NoCurrentStoreException e = assertThrows(NoCurrentStoreException.class,
                    () -> Perpetua.fetch("p", Primitives.class), "two open and no transaction on this thread");
            assertTrue(e.getMessage().contains("2 stores are open"), e.getMessage());
        }
    }

    /**
     * {@code obj.persist("n")} (and {@code Perpetua.persist}) on an object read from an earlier,
     * closed opening of a store open again is refused as that store's own {@code persist}
     * refuses it ("an earlier opening of this store ... fetch it again from this one"); it was a
     * StoreClosedException saying that the store, open and in a transaction, was closed.
     */
    @Test
    void anObjectOfAnEarlierOpeningIsRefusedAsTheStoreItselfRefusesIt() {
        String uri = TestStores.newUri();
        Primitives p = new Primitives();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(p, "p"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            String expected = assertThrows(NotPersistableException.class, () -> store.persist(p, "again")).getMessage();
            assertTrue(expected.contains("belongs to an earlier opening of this store, closed since"), expected);
            assertTrue(expected.contains("fetch it again from this one"), expected);
            assertEquals(expected, assertThrows(NotPersistableException.class, () -> p.persist("again")).getMessage());
            assertEquals(expected, assertThrows(NotPersistableException.class, () -> Perpetua.persist(p, "again")).getMessage());
            String unnamed = assertThrows(NotPersistableException.class, () -> store.persist(p)).getMessage();
            assertEquals(unnamed, assertThrows(NotPersistableException.class, p::persist).getMessage());
            assertEquals(unnamed, assertThrows(NotPersistableException.class, () -> Perpetua.persist(p)).getMessage());
            store.commitTransaction();
            assertFalse(store.isBound("again"));
            assertTrue(store.isBound("p"));
        }
    }

    /**
     * A transaction begun on one thread and committed on another (asynchronous code) leaves
     * nothing behind on the first: once closed and dropped, the store can be collected.
     */
    @Test
    void aStoreWhoseTransactionEndedOnAnotherThreadIsNotKeptByTheThreadThatBeganIt() throws Exception {
        java.util.concurrent.ExecutorService beginner = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.lang.ref.WeakReference<PersistentStore> dropped = beginOnOneThreadCommitOnThis(beginner);
            for (int i = 0; i < 50 && dropped.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertTrue(dropped.get() == null, "the closed store is still reachable");
        } finally {
            beginner.shutdown();
        }
    }

    private static java.lang.ref.WeakReference<PersistentStore> beginOnOneThreadCommitOnThis(
            java.util.concurrent.ExecutorService beginner) throws Exception {
        PersistentStore store = TestStores.open(TestStores.newUri());
        beginner.submit(store::beginTransaction).get();
        store.persist(new Primitives(), "p");
        store.commitTransaction();
        store.close();
        return new java.lang.ref.WeakReference<>(store);
    }

    @Test
    void theOnlyOpenStoreIsCurrent() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            Primitives p = new Primitives();
            p.i = 7;
            p.persist("only");
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertSame(store, Perpetua.current());
            assertEquals("false,0,0,0,7,0,0.0,0.0", Perpetua.fetch("only", Primitives.class).describe());
            Primitives loose = new Primitives();
            assertThrows(TransactionStateException.class, loose::persist, "persist needs a transaction");
        }
    }
}
