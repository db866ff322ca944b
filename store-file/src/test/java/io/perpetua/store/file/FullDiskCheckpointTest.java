package io.perpetua.store.file;

import io.perpetua.StorageException;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.perpetua.store.file.Stores.bytes;
import static io.perpetua.store.file.Stores.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checkpoint that cannot be written (a full disk) is an optimisation lost, not a store lost:
 * the background checkpoint an open scheduled closed the store under a program that only read.
 */
class FullDiskCheckpointTest {

    /** Fails every write of the checkpoint file half-way, as a full disk does, while {@code full}. */
    private static final class FullDiskIO implements FileIO {
        volatile boolean full = true;
        final CountDownLatch failed = new CountDownLatch(1);

        @Override
        public WriteHandle open(Path path, boolean log) throws IOException {
            WriteHandle real = FileIO.DEFAULT.open(path, log);
            if (!path.getFileName().toString().equals(Checkpoint.TEMP)) {
                return real;
            }
            return new ForwardingWriteHandle(real) {
                @Override
                public void write(long position, byte[] b, int off, int len) throws IOException {
                    if (!full) {
                        real.write(position, b, off, len);
                        return;
                    }
                    real.write(position, b, off, len / 2);
                    failed.countDown();
                    throw new IOException("No space left on device (injected)");
                }
            };
        }
    }

    @Test
    void aCheckpointThatCannotBeWrittenLeavesTheStoreOpenAndIsWrittenLater(@TempDir Path tmp) throws Exception {
        Path live = tmp.resolve("live");
        Path image = tmp.resolve("image");
        long first;
        try (FileBackend b = Stores.open(live, "checkpointBytes=1g&autoCompact=false")) {
            first = b.allocateIds(40);
            for (int i = 0; i < 40; i++) {
                b.commit(new WriteSet().put(first + i, bytes("order " + i + " " + "x".repeat(2000))).bind("last", first + i));
            }
            Stores.copy(live, image); // a crash: the whole log waits for replay
        }
        FullDiskIO io = new FullDiskIO();
        Options options = Options.parse(new java.util.HashMap<>(Map.of("checkpointBytes", "4k", "autoCompact", "false")));
        FileBackend reader = FileBackend.open(image, options, io);
        try {
            // the open scheduled a checkpoint in the background (80 KB replayed), which fails
            assertTrue(io.failed.await(30, TimeUnit.SECONDS), "the background checkpoint was tried");
            StorageException e = assertThrows(StorageException.class, reader::checkpoint);
            assertTrue(e.getMessage().contains("the store stays open"), e.getMessage());
            assertFalse(Files.exists(image.resolve(Checkpoint.TEMP)), "the partial checkpoint is deleted");
            for (int i = 0; i < 40; i++) {
                assertTrue(string(reader.read(first + i)).startsWith("order " + i + " "), "record " + i);
            }
            assertEquals(first + 39, reader.lookup("last"));
            reader.commit(new WriteSet().bind("after", first));
            io.full = false;
            reader.checkpoint();
            reader.commit(new WriteSet().bind("at close", first + 1));
        } finally {
            io.full = true;
            reader.close(); // its checkpoint fails too, and loses nothing: no exception
        }
        try (FileBackend b = Stores.open(image, "autoCompact=false")) {
            assertEquals(first + 39, b.lookup("last"));
            assertEquals(first, b.lookup("after"));
            assertEquals(first + 1, b.lookup("at close"));
            assertEquals(40, b.statistics().objects());
        }
    }
}
