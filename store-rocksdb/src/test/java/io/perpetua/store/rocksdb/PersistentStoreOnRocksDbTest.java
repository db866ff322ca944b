package io.perpetua.store.rocksdb;

import io.perpetua.PersistentStore;
import io.perpetua.StoreLockedException;
import io.perpetua.StoreNotEmptyException;
import io.perpetua.StoreStatistics;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The public API on the embedded default: {@code PersistentStore.open(path)} is this backend. */
class PersistentStoreOnRocksDbTest {

    @Test
    void aStoreWrittenInANewerRecordFormatIsRefusedUnchangedAndStaysUsable(@TempDir Path tmp) {
        Path dir = tmp.resolve("newer.db");
        try (PersistentStore store = PersistentStore.open(dir)) {
            store.inTransaction(() -> store.persist(new ArrayList<>(List.of("tea")), "orders"));
        }
        // What a newer Perpetua would add: a format entry (0, format) naming a format above ours.
        int entry;
        try (Backend backend = Backends.open(dir)) {
            entry = backend.classDescriptors().keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
            backend.commit(new WriteSet().classDescriptor(entry, new byte[] {0, 99}));
        }
        UnsupportedStoreFormatException e = assertThrows(UnsupportedStoreFormatException.class,
                () -> PersistentStore.open(dir));
        assertEquals(99, e.storeVersion());
        assertTrue(e.getMessage().contains("record format 99") && e.getMessage().contains(dir.toString()), e.getMessage());
        // closed again (not locked), and nothing changed
        try (Backend backend = Backends.open(dir)) {
            assertArrayEquals(new byte[] {0, 99}, backend.classDescriptors().get(entry));
            assertEquals(1, backend.names().size());
        }
    }

    /**
     * A store opened by its Path in the directory shop#1 gave the location rocksdb:/x/shop#1,
     * which opened a new, empty store in /x/shop; a%41 gave one that opened aA.
     */
    @Test
    void theLocationOfAStoreOpenedByPathReopensTheSameDirectory(@TempDir Path dir) throws java.io.IOException {
        for (String name : List.of("shop#1", "a%41", "a b?c=d")) {
            String location;
            try (PersistentStore store = PersistentStore.open(dir.resolve(name))) {
                store.inTransaction(() -> store.persist(new ArrayList<>(List.of(name)), "note"));
                location = store.location();
            }
            try (PersistentStore store = PersistentStore.open(location)) {
                assertEquals(List.of(name), store.fetch("note", List.class), location);
            }
        }
        try (var files = java.nio.file.Files.list(dir)) {
            assertEquals(3, files.count(), "one directory per store");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PersistentStore.open("rocksdb:" + dir.toAbsolutePath() + "/shop#2"));
        assertTrue(e.getMessage().contains("%23"), e.getMessage());
    }

    @Test
    void aBarePathOpensARocksDbStoreThatKeepsObjectsAcrossReopen(@TempDir Path tmp) {
        Path dir = tmp.resolve("shop.db");
        try (PersistentStore store = PersistentStore.open(dir)) {
            assertEquals("rocksdb:" + dir.toAbsolutePath(), store.location());
            store.inTransaction(() -> {
                List<String> orders = new ArrayList<>(List.of("tea", "coffee"));
                Map<String, Integer> stock = new TreeMap<>(Map.of("tea", 3, "coffee", 5));
                store.persist(orders, "orders");
                store.persist(stock, "stock");
            });
        }
        try (PersistentStore store = PersistentStore.open(dir.toString())) {
            @SuppressWarnings("unchecked")
            List<String> orders = store.fetch("orders", List.class);
            assertEquals(List.of("tea", "coffee"), orders);
            assertEquals(Map.of("tea", 3, "coffee", 5), store.fetch("stock", Map.class));
            assertEquals(List.of("orders", "stock"), store.names());
            // Statistics for users, through the public API.
            StoreStatistics statistics = store.statistics();
            assertEquals(2, statistics.names());
            assertTrue(statistics.objects() >= 2, statistics.toString());
            assertTrue(statistics.bytesOnDisk() > 0, statistics.toString());
            // A second open of the same store is refused with a clear error.
            StoreLockedException locked = assertThrows(StoreLockedException.class, () -> PersistentStore.open(dir));
            assertTrue(locked.getMessage().contains("locked"), locked.getMessage());
        }
        try (PersistentStore store = PersistentStore.open("rocksdb:" + dir.toUri().getRawPath() + "?sync=false")) {
            store.inTransaction(() -> {
                @SuppressWarnings("unchecked")
                List<String> orders = store.fetch("orders", List.class);
                orders.add("cocoa");
            });
        }
        try (PersistentStore store = PersistentStore.open(dir)) {
            assertEquals(List.of("tea", "coffee", "cocoa"), store.fetch("orders", List.class));
        }
    }

    @Test
    void collectGarbageDeletesWhatNoNameReachesAndKeepsTheRest(@TempDir Path tmp) {
        Path dir = tmp.resolve("gc.db");
        try (PersistentStore store = PersistentStore.open(dir)) {
            store.inTransaction(() -> {
                List<Object> kept = new ArrayList<>();
                List<Object> dropped = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    List<Integer> shared = new ArrayList<>(List.of(i, i + 1));
                    kept.add(shared);
                    kept.add(shared); // two references: a record of its own
                    List<Integer> alone = new ArrayList<>(List.of(-i));
                    dropped.add(alone);
                    dropped.add(alone);
                }
                store.persist(kept, "kept");
                store.persist(dropped, "dropped");
            });
            assertEquals(1002, store.statistics().objects(), "two lists and their 1,000 shared lists");
            store.inTransaction(() -> store.unbind("dropped"));
        }
        try (PersistentStore store = PersistentStore.open(dir)) {
            assertEquals(501, store.collectGarbage(), "the unbound list and its 500 lists");
            assertEquals(501, store.statistics().objects());
        }
        try (PersistentStore store = PersistentStore.open(dir)) {
            assertEquals(501, store.statistics().objects());
            List<?> kept = store.fetch("kept", List.class);
            assertEquals(1000, kept.size());
            for (int i = 0; i < 500; i++) {
                assertEquals(List.of(i, i + 1), kept.get(2 * i));
                assertTrue(kept.get(2 * i) == kept.get(2 * i + 1), "still one list");
            }
            assertEquals(0, store.collectGarbage());
        }
    }

    @Test
    void aCopyTakenWhileTheStoreIsOpenIsAStoreOfItsOwnOnDisk(@TempDir Path tmp) {
        Path dir = tmp.resolve("live.db");
        Path backup = tmp.resolve("backup.db");
        try (PersistentStore store = PersistentStore.open(dir)) {
            store.inTransaction(() -> {
                Map<String, List<Integer>> map = new TreeMap<>();
                for (int i = 0; i < 300; i++) {
                    map.put("k" + i, new ArrayList<>(List.of(i, -i)));
                }
                store.persist(map, "map");
            });
            long records = store.statistics().objects();
            assertEquals(records, store.copyTo(backup.toString()));
            assertThrows(StoreLockedException.class, () -> store.copyTo(dir.toString()), "itself: open here");
            store.inTransaction(() -> store.fetch("map", Map.class).clear()); // the copy does not follow
        }
        try (PersistentStore copy = PersistentStore.open(backup)) {
            Map<?, ?> map = copy.fetch("map", Map.class);
            assertEquals(300, map.size());
            for (int i = 0; i < 300; i++) {
                assertEquals(List.of(i, -i), map.get("k" + i));
            }
            copy.inTransaction(() -> copy.persist(new ArrayList<>(List.of(7)), "more"));
        }
        try (PersistentStore copy = PersistentStore.open(backup)) {
            assertEquals(List.of("map", "more"), copy.names());
            assertEquals(List.of(7), copy.fetch("more", List.class));
        }
        try (PersistentStore live = PersistentStore.open(dir)) {
            assertEquals(0, live.fetch("map", Map.class).size());
            StoreNotEmptyException e = assertThrows(StoreNotEmptyException.class, () -> live.copyTo(backup.toString()));
            assertEquals(2, e.names());
        }
        try (PersistentStore copy = PersistentStore.open(backup)) {
            assertEquals(300, copy.fetch("map", Map.class).size(), "a refused copy wrote nothing");
        }
    }
}
