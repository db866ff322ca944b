package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.runtime.ObjectState;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.ForwardingBackend;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A backend that fails a commit: the store stays as it was, and so does memory. */
class CommitFailureTest {

    /**
     * Delegates to a real backend; fails commits while {@link #failing} is set. Not final: tests
     * override {@code read} to hand the kernel damaged records.
     */
    static class FailingBackend extends ForwardingBackend {
        boolean failing;

        FailingBackend(Backend inner) {
            super(inner);
        }

        /** Whether the failure is fatal: the backend then closes itself, as the file store does after a write error. */
        boolean fatal;

        @Override
        public void commit(WriteSet writes) {
            if (failing) {
                if (fatal) {
                    inner.close();
                }
                throw new StorageException("injected failure", null, fatal);
            }
            inner.commit(writes);
        }
    }

    @Test
    void aCommitFailureTheBackendCannotRecoverFromClosesTheStoreAsAnAbortWould() {
        String uri = storeWithRoot();
        FailingBackend backend = new FailingBackend(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            Node root = store.fetch("root", Node.class);
            store.beginTransaction();
            root.value(2);
            Node added = new Node("added");
            root.children(new ArrayList<>(List.of(added)));
            backend.failing = true;
            backend.fatal = true;
            StorageException e = assertThrows(StorageException.class, store::commitTransaction);
            assertTrue(e.storeClosed());
            assertFalse(store.inTransaction(), "the transaction ended with the store");
            assertEquals(ObjectState.TRANSIENT, added.$perpetua$state, "made transient again");
            assertThrows(StoreClosedException.class, () -> store.isPersistent(added));
            assertThrows(StoreClosedException.class, store::beginTransaction);
            assertThrows(StoreClosedException.class, root::value, "undone as by an abort: hollow, and the store is closed");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(1, store.fetch("root", Node.class).value(), "the store holds its last commit");
        }
    }

    @Test
    void aFailedCommitChangesNothingAndCanBeRetried() {
        String uri = storeWithRoot();
        FailingBackend backend = new FailingBackend(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            Node root = store.fetch("root", Node.class);
            store.beginTransaction();
            root.value(2);
            Node added = new Node("added");
            root.children(new ArrayList<>(List.of(added)));
            store.persist(new Node("named"), "named");
            backend.failing = true;
            assertThrows(StorageException.class, store::commitTransaction);
            assertTrue(store.inTransaction());
            assertFalse(store.isPersistent(added), "objects reached by the failed commit are transient again");
            assertEquals(ObjectState.DIRTY, root.$perpetua$state, "the changed object is still to be written");
            assertEquals(1, backend.inner.statistics().objects(), "nothing reached the store");
            backend.failing = false;
            store.commitTransaction();
            assertTrue(store.isPersistent(added));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            assertEquals(2, root.value());
            assertEquals("added", root.children().get(0).name());
            assertEquals("named", store.fetch("named", Node.class).name());
        }
    }

    /** @return the URI of a new store holding a root node of value 1, committed and closed */
    private static String storeWithRoot() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("root", 1), "root"));
        }
        return uri;
    }
}
