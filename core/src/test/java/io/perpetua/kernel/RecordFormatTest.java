package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStore;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The record format entry: written by a store's first commit, checked when a store is opened. */
class RecordFormatTest {

    private static Backend backend(String uri) {
        return Backends.open(URI.create(uri));
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
        assertEquals(RecordFormat.CURRENT + 1, e.storeFormat());
        assertEquals(RecordFormat.CURRENT, e.supportedFormat());
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
}
