package io.perpetua.spi;

import io.perpetua.PersistentStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread whose interrupt flag is set (a task cancelled by {@code shutdownNow()}) still opens,
 * commits to (enough to begin new files), copies and closes a store on disk, and keeps its
 * interrupt: the store's files would otherwise close on it, and a try-with-resources turn a good
 * commit into an error, or a commit close the store. Each disk backend's tests extend it.
 */
public abstract class InterruptedThreadContract {

    /** @return the URI or path of a new store named {@code name} in {@code dir} */
    protected abstract String store(Path dir, String name);

    @Test
    void anInterruptedThreadOpensCommitsCopiesAndClosesAStore(@TempDir Path dir) {
        String uri = store(dir, "store");
        String copy = store(dir, "copy");
        Thread.currentThread().interrupt();
        try {
            try (PersistentStore store = PersistentStore.open(uri)) {
                store.inTransaction(() -> store.persist(new ArrayList<>(List.of("a")), "list"));
                for (int i = 0; i < 60; i++) { // 120 KB: more than one segment of a file store
                    int n = i;
                    store.inTransaction(() -> store.persist(new byte[2048], "bytes" + n));
                    assertTrue(Thread.currentThread().isInterrupted(), "commit " + i + " kept the interrupt");
                }
                store.copyTo(copy);
            }
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        for (String s : List.of(uri, copy)) {
            try (PersistentStore store = PersistentStore.open(s)) {
                assertEquals(List.of("a"), store.fetch("list"), s);
            }
        }
    }
}
