package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import io.perpetua.StorageException;
import io.perpetua.TransactionStateException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.ByLength;
import io.perpetua.testmodel.Leaf;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.DayOfWeek;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PersistentStore#collectGarbage}: what nothing reaches is deleted, and nothing else. */
class GarbageCollectionTest {

    record Carrier(DayOfWeek day, Node node, Optional<Node> maybe, List<Node> nodes) { }

    /**
     * Each "target" node is reached through one kind of stored reference only, so that a
     * reference the collector failed to follow would lose a record, and the walk at the end
     * would fail on it.
     */
    static List<Object> everyWayToHoldANode() {
        List<Object> ways = new ArrayList<>();
        Node field = new Node("holder");
        field.next(new Node("field"));
        ways.add(field);
        ways.add(new Object[] {new Node("array")});
        ways.add(new Node[][] {{new Node("nested array")}});
        ways.add(new ArrayList<>(List.of(new Node("list"))));
        Map<Object, Object> map = new HashMap<>();
        map.put(new Node("map key"), "v");
        map.put("k", new Node("map value"));
        ways.add(map);
        TreeMap<String, Object> sorted = new TreeMap<>(new ByLength());
        sorted.put("a", new Node("sorted map value"));
        ways.add(sorted);
        TreeSet<String> sortedSet = new TreeSet<>(new ByLength());
        sortedSet.add("only its comparator is an object");
        ways.add(sortedSet);
        EnumMap<DayOfWeek, Object> enumMap = new EnumMap<>(DayOfWeek.class);
        enumMap.put(DayOfWeek.MONDAY, new Node("enum map value"));
        ways.add(enumMap);
        ways.add(new HashSet<>(Set.of(new Node("set"))));
        ways.add(List.of(new Node("immutable list")));
        ways.add(Map.of("k", new Node("immutable map")));
        ways.add(Collections.unmodifiableList(new ArrayList<>(List.of(new Node("unmodifiable list")))));
        ways.add(Collections.unmodifiableSortedSet(new TreeSet<>(new ByLength())));
        ways.add(Collections.unmodifiableMap(new LinkedHashMap<>(Map.of("k", new Node("unmodifiable map")))));
        ways.add(Arrays.asList(new Node("fixed-size list"), null));
        ways.add(new Carrier(DayOfWeek.FRIDAY, new Node("record component"), Optional.of(new Node("optional")),
                List.of(new Node("list in a record"))));
        Leaf[] leaves = {new Leaf("satellite", 1), new Leaf("satellite", 2)};
        Node home = new Node("home of satellites");
        home.any(leaves);
        ways.add(home);
        return ways;
    }

    /** The objects each way holds, read back: every record they need must be there. */
    static int touchEverything(Object o, Set<Object> seen) {
        if (o == null || o instanceof String || o instanceof DayOfWeek || !seen.add(o)) {
            return 0;
        }
        int nodes = 0;
        if (o instanceof Node n) {
            nodes++;
            n.name();
            nodes += touchEverything(n.next(), seen) + touchEverything(n.any(), seen) + touchEverything(n.children(), seen);
        } else if (o instanceof Leaf l) {
            assertTrue(l.weight() > 0);
            nodes++;
        } else if (o instanceof ByLength c) {
            c.compare("a", "b");
            nodes++;
        } else if (o instanceof Object[] a) {
            for (Object e : a) {
                nodes += touchEverything(e, seen);
            }
        } else if (o instanceof SortedSet<?> s) {
            nodes += touchEverything(s.comparator(), seen);
        } else if (o instanceof TreeMap<?, ?> m) {
            nodes += touchEverything(m.comparator(), seen);
            for (Object v : m.values()) {
                nodes += touchEverything(v, seen);
            }
        } else if (o instanceof Iterable<?> it) {
            for (Object e : it) {
                nodes += touchEverything(e, seen);
            }
        } else if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                nodes += touchEverything(e.getKey(), seen) + touchEverything(e.getValue(), seen);
            }
        } else if (o instanceof Carrier c) {
            nodes += touchEverything(c.node(), seen) + touchEverything(c.maybe().orElseThrow(), seen)
                    + touchEverything(c.nodes(), seen);
        }
        return nodes;
    }

    @Test
    void nothingReachableIsDeletedWhateverHoldsTheReference() {
        String uri = TestStores.newUri();
        int objects;
        int reached;
        try (PersistentStore store = TestStores.open(uri)) {
            List<Object> ways = everyWayToHoldANode();
            reached = touchEverything(ways, new HashSet<>());
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.children(new ArrayList<>());
                root.any(ways.toArray());
                store.persist(root, "root");
                List<Node> shared = new ArrayList<>(List.of(new Node("shared list")));
                ((Node) ways.get(0)).children(shared);
                root.children(shared); // two referrers: the list has a record of its own
                store.persist(new ArrayList<>(List.of(new Node("a named list"))), "list");
            });
            objects = (int) store.statistics().objects();
            assertEquals(0, store.collectGarbage(), "everything is reachable");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(0, store.collectGarbage(), "everything is reachable, and nothing is resident");
            assertEquals(objects, store.statistics().objects());
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Set<Object> seen = new HashSet<>();
            int found = touchEverything(store.fetch("root"), seen) + touchEverything(store.fetch("list"), seen);
            assertEquals(reached + 3, found, "every object, the root, the shared list's and the named list's");
        }
    }

    /** root -> a -> b -> c, and d alone: returns the store's URI. */
    private static String chain() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node c = new Node("c");
                c.children(new ArrayList<>(List.of(new Node("c's child"))));
                Node b = new Node("b");
                b.next(c);
                b.any(new int[] {1, 2, 3});
                Node a = new Node("a");
                a.next(b);
                Node root = new Node("root");
                root.next(a);
                store.persist(root, "root");
                store.persist(new Node("d"), "d");
            });
        }
        return uri;
    }

    @Test
    void whatNoNameReachesIsDeletedAndTheRestIsIntact() {
        String uri = chain();
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(6, store.statistics().objects(), "root, a, b, c (with its list), c's child, d");
            Node a = store.fetch("root", Node.class).next();
            store.inTransaction(() -> {
                a.next(null);
                store.unbind("d");
            });
            assertEquals(6, store.statistics().objects(), "unreachable, still stored");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(4, store.collectGarbage(), "b, c, c's child, d");
            assertEquals(2, store.statistics().objects());
            assertEquals(0, store.collectGarbage(), "a second collection finds nothing");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            assertEquals("a", root.next().name());
            assertNull(root.next().next());
            assertEquals(List.of("root"), store.names());
        }
    }

    @Test
    void residentObjectsAreKeptAndCanBeLinkedAgain() {
        String uri = chain();
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("root", Node.class).next();
            Node b = a.next();
            store.inTransaction(() -> {
                a.next(null);
                store.unbind("d");
            });
            assertEquals(1, store.collectGarbage(), "d only: b is resident, and what its record reaches stays");
            store.inTransaction(() -> a.next(b));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node c = store.fetch("root", Node.class).next().next().next();
            assertEquals("c", c.name());
            assertEquals("c's child", c.children().get(0).name());
            assertEquals(0, store.collectGarbage());
        }
    }

    @Test
    void aReachableSatelliteKeepsItsHomesRecord() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node home = new Node("home");
                Leaf[] leaves = {new Leaf("kept", 1), new Leaf("with its home", 2)};
                home.any(leaves);
                Node other = new Node("other");
                other.next(home);
                store.persist(other, "other");
                store.persist(home, "home");
            });
        }
        long leafId;
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf leaf = ((Leaf[]) store.fetch("home", Node.class).any())[0];
            leafId = leaf.$perpetua$handle().id();
            assertTrue(Satellites.isSatellite(leafId));
            store.inTransaction(() -> {
                Node other = store.fetch("other", Node.class);
                other.any(leaf);
                other.next(null);
                store.unbind("home");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(0, store.collectGarbage(), "other's record refers to a leaf, which lives in the home's record");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf leaf = (Leaf) store.fetch("other", Node.class).any();
            assertEquals(leafId, leaf.$perpetua$handle().id());
            assertEquals(1, leaf.weight());
            store.inTransaction(() -> store.fetch("other", Node.class).any(null));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(1, store.collectGarbage(), "the home, its array and both leaves: one record");
            assertEquals(1, store.statistics().objects());
        }
    }

    @Test
    void refusedWhileATransactionIsActive() {
        String uri = chain();
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            TransactionStateException e = assertThrows(TransactionStateException.class, store::collectGarbage);
            assertTrue(e.getMessage().contains("collectGarbage"), e.getMessage());
            store.abortTransaction();
            assertEquals(0, store.collectGarbage());
        }
    }

    @Test
    void aMissingRecordIsReportedAndNothingIsDeleted() {
        String uri = chain();
        long bId;
        try (PersistentStore store = TestStores.open(uri)) {
            Node b = store.fetch("root", Node.class).next().next();
            bId = b.$perpetua$handle().id();
            store.inTransaction(() -> store.unbind("d"));
        }
        try (Backend backend = Backends.open(URI.create(uri))) {
            backend.commit(new WriteSet().delete(bId));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            CorruptStoreException e = assertThrows(CorruptStoreException.class, store::collectGarbage);
            assertTrue(e.getMessage().contains("#" + bId), e.getMessage());
            assertEquals(5, store.statistics().objects(), "d is unreachable and still stored");
        }
    }

    @Test
    void aFailedDeletionDeletesNothingAndCanBeRetried() {
        String uri = chain();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.unbind("d"));
        }
        CommitFailureTest.FailingBackend backend = new CommitFailureTest.FailingBackend(Backends.open(URI.create(uri)));
        try (PersistentStore store = new Kernel(backend)) {
            backend.failing = true;
            assertThrows(StorageException.class, store::collectGarbage);
            assertEquals(6, store.statistics().objects());
            backend.failing = false;
            assertEquals(1, store.collectGarbage());
            assertEquals(5, store.statistics().objects());
        }
    }

    /**
     * Damaged records (bytes flipped, cut short) met while marking: the collection either runs
     * or stops with the store's own exception, never another one; this store deletes nothing
     * either way (its commits are dropped), so every case starts from the same records.
     */
    @Test
    void damagedRecordsGiveTheStoresOwnExceptions() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(everyWayToHoldANode().toArray());
                store.persist(root, "root");
            });
        }
        Random random = new Random(1992);
        long[] ids;
        try (Backend backend = Backends.open(URI.create(uri))) {
            ids = backend.recordIds();
        }
        int failed = 0;
        for (int i = 0; i < 400; i++) {
            long victim = ids[random.nextInt(ids.length)];
            long seed = random.nextLong();
            CommitFailureTest.FailingBackend damaged = new CommitFailureTest.FailingBackend(Backends.open(URI.create(uri))) {
                @Override
                public byte[][] readMany(long[] many) {
                    byte[][] records = super.readMany(many);
                    for (int k = 0; k < many.length; k++) {
                        if (many[k] == victim && records[k] != null) {
                            records[k] = damage(records[k], new Random(seed));
                        }
                    }
                    return records;
                }

                @Override
                public void commit(WriteSet writes) {
                }
            };
            try (PersistentStore store = new Kernel(damaged)) {
                store.collectGarbage();
            } catch (PersistentStoreException expected) {
                failed++;
            }
        }
        assertTrue(failed > 100, failed + " of 400 damaged stores were refused");
    }

    private static byte[] damage(byte[] record, Random random) {
        if (random.nextBoolean()) {
            return Arrays.copyOf(record, random.nextInt(record.length));
        }
        byte[] flipped = record.clone();
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            flipped[random.nextInt(flipped.length)] ^= (byte) (1 + random.nextInt(255));
        }
        return flipped;
    }
}
