package io.perpetua.store.file;

import io.perpetua.PersistentStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** {@link PersistentStore#copyTo} with the file store as target and as source, through the public API. */
class CopyToAndFromFileStoreTest {

    @Test
    void aStoreCopiedIntoTheFileStoreAndOutAgainKeepsItsGraph(@TempDir Path dir) {
        String memory = "memory:copy-to-file-" + System.nanoTime();
        String file = "file:" + dir.resolve("copy").toAbsolutePath();
        String back = "memory:copy-from-file-" + System.nanoTime();
        try (PersistentStore store = PersistentStore.open(memory)) {
            store.inTransaction(() -> {
                List<Integer> shared = new ArrayList<>(List.of(1, 2, 3));
                Map<String, Object> root = new TreeMap<>();
                for (int i = 0; i < 2_000; i++) {
                    root.put("k" + i, new ArrayList<>(List.of("v" + i, i)));
                }
                root.put("a", shared);
                root.put("b", shared);
                store.persist(root, "root");
            });
            assertEquals(store.statistics().objects(), store.copyTo(file));
        }
        try (PersistentStore store = PersistentStore.open(file)) {
            check(store.fetch("root", Map.class));
            assertEquals(store.statistics().objects(), store.copyTo(back));
        }
        try (PersistentStore store = PersistentStore.open(back)) {
            check(store.fetch("root", Map.class));
        }
    }

    private static void check(Map<?, ?> root) {
        assertEquals(2_002, root.size());
        for (int i = 0; i < 2_000; i++) {
            assertEquals(List.of("v" + i, i), root.get("k" + i));
        }
        assertEquals(List.of(1, 2, 3), root.get("a"));
        assertSame(root.get("a"), root.get("b"), "still one list");
    }
}
