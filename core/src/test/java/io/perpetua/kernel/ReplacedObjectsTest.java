package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.Pairs;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Objects stored by their Java serialization replacement: a class whose field holds objects of
 * a class extending a JDK class with state (which Perpetua cannot store), and which replaces
 * itself when serialized ({@code writeReplace}), is stored as its replacement's fields, in a
 * record of its own, and filled, when first touched, from what the replacement's
 * {@code readResolve} makes of them ({@link Pairs}, shaped like Guava's immutable maps; the
 * agent's and benchmarks' tests store Guava's own).
 */
class ReplacedObjectsTest {

    /** Holds what {@link Pairs} holds, but has no {@code writeReplace}: refused, as before. */
    public static final class Unreplaced extends io.perpetua.testmodel.Base implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        static {
            io.perpetua.runtime.PersistentClasses.register(Unreplaced.class, Unreplaced::new);
        }

        private Pairs.Entry[] entries = {};

        @Override
        public void $perpetua$write(io.perpetua.runtime.RecordWriter out) {
            out.writeObject(entries);
        }

        @Override
        public void $perpetua$read(io.perpetua.runtime.RecordReader in) {
            entries = (Pairs.Entry[]) in.readObject();
        }
    }

    @Test
    void aReplacedObjectComesBackThroughItsReadResolveWithTheObjectsItHolds() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(new Pairs("one", 1, "node", new Node("held"), "list", new ArrayList<>(List.of("a", "b"))));
                root.children(new ArrayList<>(List.of(new Node("child"))));
                store.persist(root, "root");
                store.persist(root.children().get(0), "child");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Pairs pairs = assertInstanceOf(Pairs.class, root.any());
            assertEquals(3, pairs.size());
            assertEquals(1, pairs.get("one"));
            assertEquals("held", ((Node) pairs.get("node")).name());
            assertEquals(List.of("a", "b"), pairs.get("list"));
        }
    }

    @Test
    void aReplacedObjectInACollectionAndObjectsItSharesKeepTheirIdentity() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node shared = new Node("shared");
                Node root = new Node("root");
                root.next(shared);
                root.any(new ArrayList<>(List.of(new Pairs("s", shared), new Pairs("t", 2))));
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            List<?> list = (List<?>) root.any();
            assertSame(root.next(), ((Pairs) list.get(0)).get("s"), "an object of the store inside keeps its identity");
            assertEquals(2, ((Pairs) list.get(1)).get("t"));
        }
    }

    /**
     * The replaced object has a record of its own, written when it is new or changed, not with
     * each commit that writes its holder; what its replacement holds and the store did not (its
     * arrays of keys and values, made anew by each {@code writeReplace}) is written as a value,
     * so no record is left behind.
     */
    @Test
    void rewritingTheHolderLeavesNoRecordBehind() {
        String uri = TestStores.newUri();
        long objects;
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(new Pairs("k", 1));
                root.children(new ArrayList<>(List.of(new Node("in a list", 0))));
                store.persist(root, "root");
            });
            objects = store.statistics().objects();
        }
        for (int i = 1; i <= 3; i++) {
            int value = i;
            try (PersistentStore store = TestStores.open(uri)) {
                Node root = store.fetch("root", Node.class);
                long written = store.statistics().recordsWritten();
                store.inTransaction(() -> root.value(value));
                assertEquals(written + 1, store.statistics().recordsWritten(), "the holder's record alone");
                assertEquals(objects, store.statistics().objects());
                assertEquals(0, store.collectGarbage());
            }
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            assertEquals(3, root.value());
            assertEquals(1, ((Pairs) root.any()).get("k"));
        }
    }

    @Test
    void theCollectorKeepsWhatAReplacedObjectHolds() {
        String uri = TestStores.storeWithRootHolding(
                new Pairs("node", new Node("held"), "list", new ArrayList<>(List.of(new Node("in a list")))));
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(0, store.collectGarbage(), "all of it is reachable");
            Pairs pairs = (Pairs) store.fetch("root", Node.class).any();
            assertEquals("held", ((Node) pairs.get("node")).name());
            assertEquals("in a list", ((List<Node>) pairs.get("list")).get(0).name());
        }
    }

    @Test
    void withoutAWriteReplaceSuchAClassIsRefusedSayingWhy() {
        Unreplaced unreplaced = new Unreplaced();
        unreplaced.entries = new Pairs.Entry[] {(Pairs.Entry) new Pairs("k", 1).entries()[0]};
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.beginTransaction();
            Node root = new Node("root");
            root.any(unreplaced);
            store.persist(root, "root");
            NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertEquals(Pairs.Entry.class.getName(), e.className());
            assertTrue(e.reason().contains("extends java.util.AbstractMap$SimpleImmutableEntry"), e.reason());
        }
    }

    /** Preloading follows a replaced map into the stored objects it holds: touching them reads nothing. */
    @Test
    void preloadingReachesTheObjectsAReplacedMapHolds() {
        String uri = TestStores.storeWithRootHolding(new Pairs("a", new Node("first"), "b", new Node("second")));
        try (PersistentStore store = TestStores.open(uri)) {
            store.preload("root");
            long read = store.statistics().recordsRead();
            Map<?, ?> map = (Map<?, ?>) store.fetch("root", Node.class).any();
            assertEquals("first", ((Node) map.get("a")).name());
            assertEquals("second", ((Node) map.get("b")).name());
            assertEquals(read, store.statistics().recordsRead(), "nothing left to read");
        }
    }

    @Test
    void aNameCanBeBoundToAReplacedObjectAndFetchesTheObjectItsReferrersHold() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Pairs pairs = new Pairs("k", 1, "node", new Node("held"));
                Node root = new Node("root");
                root.any(pairs);
                store.persist(root, "root");
                store.persist(pairs, "pairs");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Pairs pairs = store.fetch("pairs", Pairs.class);
            assertEquals(1, pairs.get("k"));
            assertSame(pairs, store.fetch("root", Node.class).any());
        }
    }

    /**
     * One replaced object held by two objects, and by a list, is one object when read back:
     * with its own id it keeps its identity, as every object of the store does.
     */
    @Test
    void aReplacedObjectSharedByItsReferrersIsOneObjectWhenReadBack() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Pairs shared = new Pairs("k", 1);
                Node root = new Node("root");
                root.any(shared);
                root.next(new Node("other"));
                root.next().any(shared);
                root.children(new ArrayList<>(List.of(new Node("in a list"))));
                root.children().get(0).any(new ArrayList<>(List.of(shared)));
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Object shared = root.any();
            assertSame(shared, root.next().any());
            assertSame(shared, ((List<?>) root.children().get(0).any()).get(0));
        }
    }

    /** A replaced object is read when first touched, as any object of the store, not with its holder. */
    @Test
    void aReplacedObjectIsReadWhenFirstTouched() {
        String uri = TestStores.storeWithRootHolding(new Pairs("k", 1));
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Object pairs = root.any();
            long read = store.statistics().recordsRead();
            assertEquals(1, ((Pairs) pairs).get("k"));
            assertEquals(read + 1, store.statistics().recordsRead(), "its own record, read at the first touch");
        }
    }

    /** A change made in place, through the object's fields, is written by the next commit, through a new replacement. */
    @Test
    void aChangeMadeInPlaceIsCommitted() {
        String uri = TestStores.storeWithRootHolding(new Pairs("k", 1));
        try (PersistentStore store = TestStores.open(uri)) {
            Pairs pairs = (Pairs) store.fetch("root", Node.class).any();
            store.inTransaction(() -> pairs.add("l", new Node("added")));
            store.beginTransaction();
            pairs.add("m", 3);
            store.abortTransaction();
            assertEquals(2, pairs.size(), "an abort puts back what was committed");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Pairs pairs = (Pairs) store.fetch("root", Node.class).any();
            assertEquals(2, pairs.size());
            assertEquals("added", ((Node) pairs.get("l")).name());
            assertEquals(0, store.collectGarbage());
        }
    }

    /**
     * A readResolve that makes an object of another class than the stored one (a class changed
     * since) is a clear error at the first touch, and loses nothing: the object stays hollow,
     * and reads once readResolve makes its class again.
     */
    @Test
    void aReadResolveMakingAnotherClassIsAnIncompatibleClassChange() {
        String uri = TestStores.storeWithRootHolding(new Pairs("k", 1));
        try (PersistentStore store = TestStores.open(uri)) {
            Pairs pairs = (Pairs) store.fetch("root", Node.class).any();
            Pairs.Form.resolvesToAHashMap = true;
            IncompatibleClassChangeException e;
            try {
                e = assertThrows(IncompatibleClassChangeException.class, pairs::size);
            } finally {
                Pairs.Form.resolvesToAHashMap = false;
            }
            assertEquals(Pairs.class.getName(), e.className());
            assertTrue(e.getMessage().contains("java.util.HashMap"), e.getMessage());
            assertEquals(1, pairs.get("k"), "read once its readResolve makes a Pairs again");
        }
    }

    /** A map holding itself is one object that holds itself when read back. */
    @Test
    void aReplacedObjectHoldingItselfHoldsItselfWhenReadBack() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                List<Object> list = new ArrayList<>();
                Pairs pairs = new Pairs("self", list);
                list.add(pairs);
                Node root = new Node("root");
                root.any(pairs);
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Pairs pairs = (Pairs) store.fetch("root", Node.class).any();
            assertSame(pairs, ((List<?>) pairs.get("self")).get(0));
        }
    }

    @Test
    void anAbortPutsBackAListHoldingAReplacedObject() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            List<Object> list = new ArrayList<>(List.of(new Pairs("k", 1)));
            Node root = new Node("root");
            root.any(list);
            store.inTransaction(() -> store.persist(root, "root"));
            store.beginTransaction();
            list.add(new Pairs("l", 2));
            store.abortTransaction();
            assertEquals(1, list.size());
            assertEquals(1, ((Pairs) list.get(0)).get("k"));
        }
    }
}
