package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.StorageException;
import io.perpetua.spi.Backends;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The containers a commit compares ({@code statistics().comparedContainers()}): each resident
 * array that can change, and no other. An empty array or an immutable list never changes; an
 * array its owner replaced is held by no record once that commit lands, so it is dropped, and a
 * change to it writes nothing. Put back, or in another object, it is stored again.
 */
class ReplacedContainersTest {

    private static List<String> names(Node[] nodes) {
        return Arrays.stream(nodes).map(Node::name).toList();
    }

    @Test
    void onlyArraysThatCanChangeAreCompared() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Holder("h", new Node[0], new int[] {1}, new String[] {"x"}), "h"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals(0, store.statistics().comparedContainers(), "arrays not read yet are not compared");
            assertEquals(0, h.nodes().length);
            assertEquals(0, store.statistics().comparedContainers(), "an empty array cannot change");
            assertEquals(1, h.numbers()[0]);
            assertEquals(1, store.statistics().comparedContainers(), "a non-empty one can");
            Node n = new Node("n");
            store.inTransaction(() -> n.children(List.of(new Node("kid"))));
            store.inTransaction(() -> store.persist(n, "n"));
            assertEquals(1, store.statistics().comparedContainers(), "nor can an immutable list");
        }
    }

    @Test
    void aChangeToAnArrayItsOwnerReplacedWritesNothing() {
        String uri = LazyArrayFieldsTest.holder(); // nodes a and b under "h"
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            Node[] old = h.nodes();
            assertEquals(1, store.statistics().comparedContainers());
            store.inTransaction(() -> h.nodes(new Node[] {new Node("c")}));
            assertEquals(1, store.statistics().comparedContainers(), "the new array only");

            long written = store.statistics().recordsWritten();
            long objects = store.statistics().objects();
            store.inTransaction(() -> old[0] = new Node("not stored"));
            assertEquals(written, store.statistics().recordsWritten(), "the old array is in no record");
            assertEquals(objects, store.statistics().objects(), "and the node put in it was not stored");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("c"), names(store.fetch("h", Holder.class).nodes()));
        }
    }

    @Test
    void anArrayPutBackAfterItsOwnerReplacedItIsStoredAgainWhole() {
        String uri = LazyArrayFieldsTest.holder(); // nodes a and b under "h"
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            Node[] old = h.nodes();
            store.inTransaction(() -> h.nodes(new Node[] {new Node("c")}));
            store.inTransaction(() -> {
                old[1] = new Node("changed while replaced");
                h.nodes(old);
            });
            assertSame(old, h.nodes());
            store.inTransaction(() -> old[0] = new Node("changed once back"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("changed once back", "changed while replaced"),
                    names(store.fetch("h", Holder.class).nodes()));
        }
    }

    @Test
    void anArrayMovedToAnotherObjectIsComparedThere() {
        String uri = LazyArrayFieldsTest.holder(); // nodes a and b under "h"
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            Node[] moved = h.nodes();
            store.inTransaction(() -> {
                h.nodes(new Node[] {new Node("c")});
                store.persist(new Holder("second", moved, new int[0], new String[0]), "second");
            });
            store.inTransaction(() -> moved[0] = new Node("changed after the move"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("c"), names(store.fetch("h", Holder.class).nodes()));
            assertEquals(List.of("changed after the move", "b"), names(store.fetch("second", Holder.class).nodes()));
        }
    }

    @Test
    void aFailedCommitDropsNothing() {
        String uri = LazyArrayFieldsTest.holder(); // nodes a and b under "h"
        CommitFailureTest.FailingBackend backend = new CommitFailureTest.FailingBackend(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            Holder h = store.fetch("h", Holder.class);
            Node[] old = h.nodes();
            store.beginTransaction();
            h.nodes(new Node[] {new Node("c")});
            backend.failing = true;
            assertThrows(StorageException.class, store::commitTransaction);
            h.nodes(old); // the program changes its mind: the stored array stays
            old[0] = new Node("changed after the failure");
            backend.failing = false;
            store.commitTransaction();
            assertSame(old, h.nodes());
            assertNotSame(Holder.$perpetua$lazy$nodes, old);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("changed after the failure", "b"), names(store.fetch("h", Holder.class).nodes()));
        }
    }
}
