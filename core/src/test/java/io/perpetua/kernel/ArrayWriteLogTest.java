package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.runtime.ArrayWrites;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The kernel's side of the array write log ({@link ArrayWrites}), trusted as when the agent
 * rewrites every class. This test's code is not rewritten, so it calls the log as rewritten code
 * would ({@code ArrayWrites.iastore}), and a plain {@code a[i] = v} here stands for a write the
 * log cannot see: while the log is trusted such a write is not compared (and is lost), unless the
 * array escaped, the log overflowed or stopped being trusted, which each make the commit compare.
 * The agent's {@code ArrayWritesIT} covers the barrier itself, end to end.
 */
class ArrayWriteLogTest {
    private String was;

    @BeforeEach
    void trustTheLog() {
        was = System.getProperty(ArrayWrites.PROPERTY);
        System.setProperty(ArrayWrites.PROPERTY, ArrayWrites.TRACKED);
    }

    @AfterEach
    void restore() {
        if (was == null) {
            System.clearProperty(ArrayWrites.PROPERTY);
        } else {
            System.setProperty(ArrayWrites.PROPERTY, was);
        }
    }

    /** @return a store holding node "n" whose {@code any} is {@code {1, 2, 3}} */
    private static String stored() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(new int[] {1, 2, 3});
                store.persist(n, "n");
            });
        }
        return uri;
    }

    private static int[] array(PersistentStore store) {
        return (int[]) store.fetch("n", Node.class).any();
    }

    private static void assertStored(String uri, int... expected) {
        try (PersistentStore store = TestStores.open(uri)) {
            assertArrayEquals(expected, array(store));
        }
    }

    @Test
    void aLoggedWriteIsCommittedAndTheArrayIsNotComparedOtherwise() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            int[] a = array(store);
            store.inTransaction(() -> ArrayWrites.iastore(a, 0, 10));
            assertEquals(0, store.statistics().comparedContainers());
            store.inTransaction(() -> a[1] = 20); // unseen by the log, so not compared: lost, as documented
        }
        assertStored(uri, 10, 2, 3);
    }

    @Test
    void anOverflowingLogMakesTheNextCommitCompareEveryArray() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            int[] a = array(store);
            store.inTransaction(() -> {
                a[1] = 20;
                for (int i = 0; i <= ArrayInbox.MAX; i++) {
                    ArrayWrites.written(new int[1]); // distinct arrays: the store's share overflows
                }
            });
            store.inTransaction(() -> a[2] = 30); // the overflow was the last commit's, not this one's
        }
        assertStored(uri, 1, 20, 3);
    }

    @Test
    void anEscapedArrayIsComparedByEveryCommit() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            int[] a = array(store);
            store.inTransaction(() -> ArrayWrites.escape(a));
            assertEquals(1, store.statistics().comparedContainers());
            store.inTransaction(() -> a[1] = 20);
            store.inTransaction(() -> a[2] = 30);
        }
        assertStored(uri, 1, 20, 30);
    }

    @Test
    void anArrayThatEscapedBeforeItWasPersistentIsComparedOnceItIs() {
        String uri = TestStores.newUri();
        int[] a = {1, 2, 3};
        ArrayWrites.escape(a);
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(a);
                store.persist(n, "n");
            });
            store.inTransaction(() -> a[0] = 10);
        }
        assertStored(uri, 10, 2, 3);
    }

    @Test
    void whenTheLogStopsBeingTrustedEveryArrayIsComparedAgain() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            int[] a = array(store);
            store.inTransaction(() -> ArrayWrites.iastore(a, 0, 10));
            assertEquals(0, store.statistics().comparedContainers());
            System.setProperty(ArrayWrites.PROPERTY, "compared: a class could not be rewritten");
            store.inTransaction(() -> a[1] = 20);
            assertEquals(1, store.statistics().comparedContainers());
            store.inTransaction(() -> a[2] = 30);
        }
        assertStored(uri, 10, 20, 30);
    }

    @Test
    void anAbortPutsALoggedArrayBackAndAFailedCommitKeepsItLogged() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            int[] a = array(store);
            store.beginTransaction();
            ArrayWrites.iastore(a, 0, 10);
            store.abortTransaction();
            assertArrayEquals(new int[] {1, 2, 3}, a);

            store.beginTransaction();
            ArrayWrites.iastore(a, 1, 20);
            Node n = store.fetch("n", Node.class);
            n.next(new Node("bad"));
            n.next().any(new Thread()); // cannot persist: the commit fails and the transaction stays
            assertEquals(NotPersistableException.class, assertThrows(RuntimeException.class, store::commitTransaction).getClass());
            n.next(null);
            store.commitTransaction(); // the logged array is still known to be written
        }
        assertStored(uri, 1, 20, 3);
    }

    /**
     * A commit that rewrites an array's owner (its record holds the array) but not the array,
     * then one that writes both: an abort after each puts back what that commit wrote.
     */
    @Test
    void anAbortRestoresWhatTheLastCommitWroteWhetherOrNotTheArrayChanged() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            int[] a = array(store);
            Node n = store.fetch("n", Node.class);
            store.inTransaction(() -> n.value(7)); // the owner's record, with the array, is written again
            store.beginTransaction();
            ArrayWrites.iastore(a, 0, 10);
            store.abortTransaction();
            assertArrayEquals(new int[] {1, 2, 3}, a);

            store.inTransaction(() -> {
                ArrayWrites.iastore(a, 0, 10);
                n.value(8);
            });
            store.beginTransaction();
            ArrayWrites.iastore(a, 1, 20);
            store.abortTransaction();
            assertArrayEquals(new int[] {10, 2, 3}, a);

            store.inTransaction(() -> ArrayWrites.iastore(a, 2, 30));
        }
        assertStored(uri, 10, 2, 30);
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(8, store.fetch("n", Node.class).value());
        }
    }

    /**
     * The log keeps no array once no store is open, nor while none is (it kept up to 4096 until a
     * store next committed, and with them their element classes' loaders: a plug-in's).
     */
    @Test
    void theLogKeepsNoArrayWhileNoStoreIsOpen() throws InterruptedException {
        WeakReference<Object[]> beforeClose = writtenWhileAStoreIsOpen();
        WeakReference<Object[]> afterClose = written();
        TestStores.awaitCollected(beforeClose, afterClose);
        assertNull(beforeClose.get(), "an array written before the last store closed is still held");
        assertNull(afterClose.get(), "an array written with no store open is held");
    }

    private static WeakReference<Object[]> writtenWhileAStoreIsOpen() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            return written();
        }
    }

    private static WeakReference<Object[]> written() {
        Object[] a = new Object[1];
        ArrayWrites.aastore(a, 0, "x");
        ArrayWrites.escape(a);
        return new WeakReference<>(a);
    }
}
