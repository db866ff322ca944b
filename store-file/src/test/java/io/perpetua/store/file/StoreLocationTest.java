package io.perpetua.store.file;

import io.perpetua.PersistentStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A store's URI and its {@code location()}: each names one directory, whatever its name holds. */
class StoreLocationTest {

    /** {@code file:/x/shop#1} was opened as {@code /x/shop}: {@code shop#2} then opened the same store. */
    @Test
    void aHashInAStoreUriIsRefusedAndWrittenAsPercent23NamesThatDirectory(@TempDir Path dir) throws IOException {
        String uri = "file:" + dir.toAbsolutePath() + "/shop#1";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PersistentStore.open(uri));
        assertTrue(e.getMessage().contains("%23") && e.getMessage().contains("(#1)"), e.getMessage());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "nothing was created");
        }
        try (PersistentStore store = PersistentStore.open(uri.replace("#", "%23"))) {
            store.inTransaction(() -> store.persist(new ArrayList<>(List.of("one")), "note"));
        }
        assertTrue(Files.isDirectory(dir.resolve("shop#1")));
        assertFalse(Files.exists(dir.resolve("shop")));
    }

    /** A location() of shop#1 reopened the directory shop; one of a%41 reopened aA. */
    @Test
    void theLocationOfAStoreReopensTheSameDirectory(@TempDir Path dir) throws IOException {
        for (String name : List.of("shop#1", "a%41", "a b?c=d", "caf\u00e9")) {
            Path storeDir = dir.resolve(name);
            String location;
            try (PersistentStore store = PersistentStore.open(URI.create("file:" + storeDir.toUri().getRawPath()))) {
                store.inTransaction(() -> store.persist(new ArrayList<>(List.of(name)), "note"));
                location = store.location();
            }
            try (PersistentStore store = PersistentStore.open(location)) {
                assertEquals(location, store.location());
                assertEquals(List.of(name), store.fetch("note", List.class), location);
            }
        }
        try (var files = Files.list(dir)) {
            assertEquals(4, files.count(), "one directory per store");
        }
    }
}
