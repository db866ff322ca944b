package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.StorageException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.ForwardingBackend;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A change another thread makes while a commit writes is saved by that commit or by the next
 * one, never lost: the store's one transaction is shared by every thread, and a program that
 * checkpoints on one thread while others work (a commit, then a begin, in a loop) relies on it.
 * Until session 41 a write to an object the transaction had already changed, or to a loaded
 * collection, landed after the commit read it and was then erased by the commit's clean mark.
 */
class WritesDuringCommitTest {

    /** Runs {@code during} on another thread while the backend writes, until it ends or waits for the store's lock. */
    static final class WriteDuringCommit extends ForwardingBackend {
        Runnable during;
        Thread writer;
        boolean fail;

        WriteDuringCommit(Backend inner) {
            super(inner);
        }

        @Override
        public void commit(WriteSet writes) {
            Runnable r = during;
            during = null;
            if (r != null) {
                writer = new Thread(r, "writer");
                writer.start();
                // the writer either writes at once or waits for the store's lock, which this commit holds
                while (writer.getState() != Thread.State.TERMINATED && writer.getState() != Thread.State.BLOCKED) {
                    Thread.onSpinWait();
                }
            }
            if (fail) {
                throw new StorageException("injected failure", null, false);
            }
            inner.commit(writes);
        }
    }

    @Test
    void aFieldWrittenWhileTheCommitWritesIsSavedByTheNextCommit() {
        String uri = storeWith(new Node("root", 1));
        runDuringCommit(uri, root -> root.value(2), root -> root.value(3));
        assertEquals(3, valueAfterReopen(uri));
    }

    @Test
    void aFieldOfANewObjectWrittenWhileTheCommitWritesIsSavedByTheNextCommit() {
        String uri = storeWith(new Node("root", 1));
        WriteDuringCommit backend = new WriteDuringCommit(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            Node root = store.fetch("root", Node.class);
            Node added = new Node("added", 1);
            store.beginTransaction();
            root.next(added);
            backend.during = () -> added.value(2);
            store.commitTransaction();
            join(backend.writer);
            store.inTransaction(() -> { });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(2, store.fetch("root", Node.class).next().value());
        }
    }

    @Test
    void anElementAddedToALoadedListWhileTheCommitWritesIsSavedByTheNextCommit() {
        Node root = new Node("root", 1);
        root.children(new ArrayList<>(List.of(new Node("a"))));
        String uri = storeWith(root);
        runDuringCommit(uri, r -> r.children().add(new Node("b")), r -> r.children().add(new Node("c")));
        try (PersistentStore store = TestStores.open(uri)) {
            List<String> names = new ArrayList<>();
            store.fetch("root", Node.class).children().forEach(n -> names.add(n.name()));
            assertEquals(List.of("a", "b", "c"), names);
        }
    }

    @Test
    void aFailedCommitLeavesWhatItWasWritingChangedForTheNextCommit() {
        Node root = new Node("root", 1);
        root.children(new ArrayList<>(List.of(new Node("a"))));
        String uri = storeWith(root);
        WriteDuringCommit backend = new WriteDuringCommit(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            Node r = store.fetch("root", Node.class);
            Node added = new Node("added", 5);
            store.beginTransaction();
            r.value(2);
            r.next(added);
            r.children().add(new Node("b"));
            backend.fail = true;
            assertThrows(StorageException.class, store::commitTransaction);
            backend.fail = false;
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node r = store.fetch("root", Node.class);
            assertEquals(2, r.value());
            assertEquals(5, r.next().value());
            assertEquals(2, r.children().size());
        }
    }

    /** A value whose accessor, which the commit calls to read it, adds to the map {@link #POKED} while the commit reads that map. */
    record Sneaky(String name) {
        static java.util.Map<String, Object> POKED;

        @Override
        public String name() {
            if (POKED != null) {
                java.util.Map<String, Object> m = POKED;
                POKED = null;
                for (int i = 0; i < 100; i++) {
                    m.put("late" + i, i);
                }
            }
            return name;
        }
    }

    @Test
    void aConcurrentMapChangedWhileTheCommitReadsItIsStoredAsASnapshotItsCountAgrees() {
        java.util.Map<String, Object> map = new java.util.concurrent.ConcurrentHashMap<>();
        for (int i = 0; i < 100; i++) {
            map.put("early" + i, new Sneaky("s" + i));
        }
        String uri = storeWith(new Node("root", 1));
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Sneaky.POKED = map;
            store.inTransaction(() -> root.any(map)); // the commit reads the map, and a value adds 100 entries
            store.inTransaction(() -> root.value(2)); // and a later commit saves them
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(200, ((java.util.Map<?, ?>) store.fetch("root", Node.class).any()).size());
        }
    }

    /** A value whose accessor, which a commit calls to read it, writes the persistent {@link #TARGET}. */
    record Touching(String name) {
        static Node TARGET;

        @Override
        public String name() {
            if (TARGET != null) {
                TARGET.value(TARGET.value() + 1);
            }
            return name;
        }
    }

    @Test
    void anObjectTheProgramsOwnCodeWritesWhileACommitRunsStaysChangedForTheNextCommits() {
        String uri = storeWith(new Node("root", 1));
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Node counter = new Node("counter", 0);
            store.inTransaction(() -> root.next(counter)); // committed: clean
            Touching.TARGET = counter;
            store.inTransaction(() -> root.any(new Touching("t"))); // the commit runs the accessor
            Touching.TARGET = null;
            store.inTransaction(() -> counter.value(counter.value() + 100));
            assertEquals(101, counter.value());
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(101, store.fetch("root", Node.class).next().value());
        }
    }

    /** Commits {@code before}'s change while {@code during} runs on another thread, then commits again. */
    private static void runDuringCommit(String uri, Consumer<Node> before, Consumer<Node> during) {
        WriteDuringCommit backend = new WriteDuringCommit(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            Node root = store.fetch("root", Node.class);
            store.beginTransaction();
            before.accept(root);
            backend.during = () -> during.accept(root);
            store.commitTransaction();
            join(backend.writer);
            store.inTransaction(() -> { }); // the checkpoint after the writer ended
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static int valueAfterReopen(String uri) {
        try (PersistentStore store = TestStores.open(uri)) {
            return store.fetch("root", Node.class).value();
        }
    }

    private static String storeWith(Node root) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(root, "root"));
        }
        return uri;
    }
}
