package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStore;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Leaf;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.Pairs;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The record format entry: written by a store's first commit, checked when a store is opened. */
class RecordFormatTest {

    private static Backend backend(String uri) {
        return Backends.open(URI.create(uri));
    }

    /** @return the URI of a new store holding what a dump (a resource beside this class, StoreDump's format) holds */
    private static String storeFromDump(String resource) throws Exception {
        String uri = TestStores.newUri();
        try (Backend b = backend(uri);
             BufferedReader in = new BufferedReader(new InputStreamReader(
                     RecordFormatTest.class.getResourceAsStream(resource), StandardCharsets.UTF_8))) {
            StoreDump.load(in, b);
        }
        return uri;
    }

    /** @return the store's format entries, by descriptor id */
    private static Map<Integer, byte[]> formatEntries(String uri) {
        Map<Integer, byte[]> entries = new TreeMap<>();
        try (Backend b = backend(uri)) {
            b.classDescriptors().forEach((id, bytes) -> {
                if (RecordFormat.isEntry(bytes)) {
                    entries.put(id, bytes);
                }
            });
        }
        return entries;
    }

    private static String storeWithAGraph() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root", 1);
                root.children(new ArrayList<>(List.of(new Node("a", 2), new Node("b", 3))));
                store.persist(root, "root");
            });
        }
        return uri;
    }

    @Test
    void aStoreIsMarkedWithTheCurrentFormatByItsFirstCommitThatWritesAndOnlyOnce() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> { });
        }
        assertTrue(formatEntries(uri).isEmpty(), "a commit that writes nothing marks nothing");
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("root", 1), "root"));
            store.inTransaction(() -> store.fetch("root", Node.class).value(2));
        }
        Map<Integer, byte[]> entries = formatEntries(uri);
        assertEquals(1, entries.size(), "one entry, written once");
        assertEquals(RecordFormat.CURRENT, RecordFormat.decode(entries.values().iterator().next()));
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(2, store.fetch("root", Node.class).value());
            store.inTransaction(() -> store.persist(new Node("more"), "more"));
        }
        assertEquals(entries.keySet(), formatEntries(uri).keySet(), "a marked store is not marked again");
    }

    @Test
    void aStoreInANewerFormatIsRefusedWhenOpenedAndLeftAsItWas() {
        String uri = storeWithAGraph();
        Map<Integer, byte[]> descriptors;
        long objects;
        try (Backend b = backend(uri)) {
            int next = b.classDescriptors().keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
            b.commit(new WriteSet().classDescriptor(next, new byte[] {0, (byte) (RecordFormat.CURRENT + 1)}));
            descriptors = b.classDescriptors();
            objects = b.statistics().objects();
        }
        UnsupportedStoreFormatException e = assertThrows(UnsupportedStoreFormatException.class, () -> TestStores.open(uri));
        assertEquals("record format", e.format());
        assertEquals(RecordFormat.CURRENT + 1, e.storeVersion());
        assertEquals(RecordFormat.CURRENT, e.supportedVersion());
        assertEquals(uri, e.location());
        assertTrue(e.getMessage().contains("newer version of Perpetua"), e.getMessage());
        // the backend was closed again (a memory store can be open once) and nothing changed
        try (Backend b = backend(uri)) {
            Map<Integer, byte[]> now = b.classDescriptors();
            assertEquals(descriptors.keySet(), now.keySet());
            descriptors.forEach((id, bytes) -> assertArrayEquals(bytes, now.get(id), "descriptor " + id));
            assertEquals(objects, b.statistics().objects());
        }
    }

    @Test
    void aStoreWithoutAFormatEntryIsReadAndMarkedByItsNextCommit() {
        String written = storeWithAGraph();
        // The same store as a version before the entry wrote it: everything but the entry.
        String uri = TestStores.newUri();
        try (Backend from = backend(written); Backend to = backend(uri)) {
            WriteSet copy = new WriteSet();
            long[] ids = from.recordIds();
            byte[][] records = from.readMany(ids);
            for (int i = 0; i < ids.length; i++) {
                copy.put(ids[i], records[i]);
            }
            from.names().forEach(copy::bind);
            from.classDescriptors().forEach((id, bytes) -> {
                if (!RecordFormat.isEntry(bytes)) {
                    copy.classDescriptor(id, bytes);
                }
            });
            to.allocateIds(Math.toIntExact(ids.length == 0 ? 1 : java.util.Arrays.stream(ids).max().getAsLong()));
            to.commit(copy);
        }
        assertTrue(formatEntries(uri).isEmpty());
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            assertEquals(List.of("a", "b"), root.children().stream().map(Node::name).toList());
            store.inTransaction(() -> root.children().add(new Node("c", 4)));
        }
        Map<Integer, byte[]> entries = formatEntries(uri);
        assertEquals(1, entries.size());
        assertEquals(RecordFormat.CURRENT, RecordFormat.decode(entries.values().iterator().next()));
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("a", "b", "c"),
                    store.fetch("root", Node.class).children().stream().map(Node::name).toList());
        }
    }

    @Test
    void aMalformedFormatEntryIsACorruptStore() {
        for (byte[] entry : new byte[][] {{0}, {0, 0}, {0, 2, 7}}) {
            String uri = storeWithAGraph();
            try (Backend b = backend(uri)) {
                int next = b.classDescriptors().keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
                b.commit(new WriteSet().classDescriptor(next, entry));
            }
            CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> TestStores.open(uri));
            assertTrue(e.location().contains("class descriptor #"), e.getMessage());
        }
    }

    /**
     * The graph of {@code format1-store.txt}: two nodes in a cycle and a list of them under a
     * root, which also holds an {@code int[]}; a holder of two leaves (satellites of its record),
     * one pointing to a node and one to the root; and, in a second commit, a second holder of
     * the first one's second leaf (a reference to a satellite of another record) and a leaf of
     * its own.
     */
    static void buildGraph(PersistentStore store) {
        store.inTransaction(() -> {
            Node a = new Node("a", 10);
            Node b = new Node("b", 20);
            a.next(b);
            b.next(a);
            Node root = new Node("root", 1);
            root.children(new ArrayList<>(List.of(a, b)));
            root.any(new int[] {1, 2, 3});
            Leaf x = new Leaf("x", 1);
            Leaf y = new Leaf("y", 2);
            x.peer(a);
            y.peer(root);
            store.persist(root, "root");
            store.persist(new Holder("h", new Leaf[] {x, y}), "h");
        });
        store.inTransaction(() -> {
            Holder h = store.fetch("h", Holder.class);
            store.persist(new Holder("h2", new Leaf[] {h.leaves()[1], new Leaf("z", 3)}), "h2");
        });
    }

    /** Checks {@link #buildGraph}'s graph, read from a store, with leaf y's weight as given. */
    private static void checkGraph(PersistentStore store, int yWeight) {
        Node root = store.fetch("root", Node.class);
        assertEquals(1, root.value());
        assertArrayEquals(new int[] {1, 2, 3}, (int[]) root.any());
        Node a = root.children().get(0);
        Node b = root.children().get(1);
        assertEquals(List.of("a", 10, "b", 20), List.of(a.name(), a.value(), b.name(), b.value()));
        assertSame(b, a.next());
        assertSame(a, b.next());
        Leaf[] leaves = store.fetch("h", Holder.class).leaves();
        assertEquals(List.of("x", 1, "y", yWeight), List.of(leaves[0].label(), leaves[0].weight(), leaves[1].label(),
                leaves[1].weight()));
        assertSame(a, leaves[0].peer());
        assertSame(root, leaves[1].peer());
        Leaf[] other = store.fetch("h2", Holder.class).leaves();
        assertSame(leaves[1], other[0], "one leaf, reached from two holders");
        assertEquals("z", other[1].label());
    }

    @Test
    void aStoreAnEarlierVersionWroteInFormat1IsReadAndMarkedByItsNextCommit() throws Exception {
        String uri = storeFromDump("format1-store.txt");
        assertTrue(formatEntries(uri).isEmpty());
        try (PersistentStore store = TestStores.open(uri)) {
            checkGraph(store, 2);
            store.inTransaction(() -> store.fetch("h2", Holder.class).leaves()[0].weight(5));
        }
        assertEquals(RecordFormat.CURRENT, RecordFormat.decode(formatEntries(uri).values().iterator().next()));
        try (PersistentStore store = TestStores.open(uri)) {
            checkGraph(store, 5);
        }
    }

    /**
     * Format 4 stored {@code Collections.unmodifiable*} views as copies of what they showed (the
     * {@code UNMODIFIABLE_*} kinds); this version writes new views as wrappers of what they
     * wrap, and still reads the old ones, before and after a commit that writes their owner.
     */
    @Test
    void unmodifiableViewsAnEarlierVersionStoredAsCopiesAreRead() throws Exception {
        String uri = storeFromDump("format4-views-store.txt");
        try (PersistentStore store = TestStores.open(uri)) {
            checkViews(store);
            store.inTransaction(() -> {
                Node n = store.fetch("views", Node.class);
                n.any(((Object[]) n.any()).clone()); // the owner written again, the views as they were read
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            checkViews(store);
        }
    }

    private static void checkViews(PersistentStore store) {
        Object[] v = (Object[]) store.fetch("views", Node.class).any();
        List<?> list = (List<?>) v[0];
        assertEquals("a", list.get(0));
        assertEquals("in a list", ((Node) list.get(1)).name());
        assertThrows(UnsupportedOperationException.class, () -> list.remove(0));
        assertEquals(List.of("x", "y"), List.copyOf((java.util.Set<?>) v[1]), "a LinkedHashSet's order");
        assertEquals(List.of(1, 2), List.copyOf((java.util.Collection<?>) v[2]));
        java.util.SortedSet<?> sorted = (java.util.SortedSet<?>) v[3];
        assertEquals(List.of("a", "bb"), List.copyOf(sorted));
        assertTrue(sorted.comparator() instanceof io.perpetua.testmodel.ByLength);
        assertEquals("in a map", ((Node) ((Map<?, ?>) v[4]).get("k")).name());
        assertEquals("in a sorted map", ((Node) ((java.util.SortedMap<?, ?>) v[5]).get("ccc")).name());
    }

    /**
     * Format 10 stored an object of a class stored by its serialization replacement inline, as
     * a value, in the record of each object referring to it: one map shared by two nodes was
     * read back as two. This version still reads those records; a commit that writes a referrer
     * gives the map it holds an id and a record of its own.
     */
    @Test
    void replacedObjectsAnEarlierVersionStoredInlineAreRead() throws Exception {
        String uri = storeFromDump("format10-replaced-store.txt");
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("replaced", Node.class);
            Pairs first = (Pairs) root.any();
            Pairs second = (Pairs) root.next().any();
            assertEquals("first", ((Node) first.get("a")).name());
            assertEquals(2, second.get("b"));
            assertSame(first.get("a"), second.get("a"), "the node the two copies hold is one object");
            store.inTransaction(() -> {
                root.any(first); // both referrers written again, holding one of the copies
                root.next().any(first);
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("replaced", Node.class);
            assertSame(root.any(), root.next().any(), "written again, the map is one object");
            assertEquals(2, ((Pairs) root.any()).get("b"));
            assertEquals(0, store.collectGarbage());
        }
    }

    /**
     * Format 11 wrote an empty OptionalInt, OptionalLong or OptionalDouble as an empty Optional,
     * and this version reads those records as it did, before and after a commit that writes
     * their owner again: as empty Optionals, a record naming nothing more. It wrote the
     * Collections class's own immutable lists, sets and maps as this version does, under their
     * class names, which an earlier version read back as List.of's kinds, and this one as
     * those classes.
     */
    @Test
    void valuesAnEarlierVersionStoredInFormat11AreRead() throws Exception {
        String uri = storeFromDump("format11-store.txt");
        try (PersistentStore store = TestStores.open(uri)) {
            checkFormat11Values(store);
            store.inTransaction(() -> {
                Node n = store.fetch("old", Node.class);
                n.any(((Object[]) n.any()).clone()); // the owner written again, in this version's format
            });
        }
        assertEquals(List.of(11, RecordFormat.CURRENT),
                formatEntries(uri).values().stream().map(RecordFormat::decode).toList(), "marked with this version's format too");
        try (PersistentStore store = TestStores.open(uri)) {
            checkFormat11Values(store);
        }
    }

    private static void checkFormat11Values(PersistentStore store) {
        Object[] v = (Object[]) store.fetch("old", Node.class).any();
        assertEquals(List.of(Optional.empty(), Optional.empty(), Optional.empty(), OptionalInt.of(1)),
                List.of(v).subList(0, 4));
        Object[] collections = {Collections.emptyList(), Collections.emptySet(), Collections.emptyMap(),
                Collections.singletonList("a"), Collections.singleton("s"), Collections.singletonMap("k", "v"),
                Collections.nCopies(3, "n"), Collections.singletonList(null)};
        assertEquals(List.of(collections), List.of(v).subList(4, 12));
        for (int i = 0; i < collections.length; i++) {
            assertSame(collections[i].getClass(), v[4 + i].getClass(), collections[i].toString());
        }
        assertEquals(0, ((List<?>) v[11]).indexOf(null), "a null element is held, and found");
    }

    @Test
    void aDumpOfAStoreLoadsIntoAnotherThatHoldsTheSame() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            buildGraph(store);
        }
        String dump;
        try (Backend b = backend(uri)) {
            dump = StoreDump.write(b, "this version");
        }
        String copy = TestStores.newUri();
        try (Backend b = backend(copy)) {
            StoreDump.load(new BufferedReader(new StringReader(dump)), b);
            assertEquals(dump, StoreDump.write(b, "this version"));
        }
        try (PersistentStore store = TestStores.open(copy)) {
            checkGraph(store, 2);
        }
    }
}
