package io.perpetua.store.file;

import io.perpetua.CorruptStoreException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.perpetua.store.file.Stores.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A directory without a checkpoint: refused, and left exactly as it was, if it holds anything
 * the file store does not write before its first checkpoint (a RocksDB store, someone's files);
 * opened as a new store if it is empty, missing, or holds only what a crash during the
 * creation of a file store leaves.
 */
class ForeignDirectoryTest {

    /** Every file and directory under {@code dir}, relative, with its content (files) or "dir". */
    private static Map<String, String> tree(Path dir) throws IOException {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.toList()) {
                String content = Files.isDirectory(p) ? "dir" : HexFormat.of().formatHex(Files.readAllBytes(p));
                tree.put(dir.relativize(p).toString(), content);
            }
        }
        return tree;
    }

    private static CorruptStoreException assertRefusedAndUnchanged(Path dir) throws IOException {
        Map<String, String> before = tree(dir);
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(dir, ""));
        assertEquals("file:" + dir.toAbsolutePath(), e.location());
        assertTrue(e.getMessage().contains("not a file store"), e.getMessage());
        // Refused again (the first attempt locked nothing), and nothing was created or written.
        assertThrows(CorruptStoreException.class, () -> Stores.open(dir, ""));
        assertEquals(before, tree(dir));
        return e;
    }

    @Test
    void aRocksDbStoreIsRefusedAndItsLockFileLeftAlone(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("CURRENT"), "MANIFEST-000001\n");
        Files.write(dir.resolve("MANIFEST-000001"), new byte[] {0x56, 0x01, 0x02, 0x03});
        Files.createFile(dir.resolve("LOCK"));
        Files.write(dir.resolve("000003.log"), new byte[] {0x11, 0x22, 0x33});
        Files.writeString(dir.resolve("IDENTITY"), "5f0c3c8e-0d43-4b55-9a6e-6c4a1f7c2b10");
        CorruptStoreException e = assertRefusedAndUnchanged(dir);
        assertTrue(e.getMessage().contains("000003.log, CURRENT, IDENTITY, LOCK, MANIFEST-000001"), e.getMessage());
        assertTrue(e.getMessage().contains("RocksDB"), e.getMessage());
    }

    @Test
    void unrelatedFilesAreRefused(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("notes.txt"), "my notes");
        Files.createDirectory(dir.resolve("sub"));
        Files.writeString(dir.resolve("sub/more.txt"), "more");
        CorruptStoreException e = assertRefusedAndUnchanged(dir);
        assertTrue(e.getMessage().contains("notes.txt, sub"), e.getMessage());
    }

    @Test
    void aSubdirectoryIsRefused(@TempDir Path dir) throws IOException {
        Files.createDirectory(dir.resolve("sub"));
        assertRefusedAndUnchanged(dir);
        // Even one named like a segment: only files are the store's own.
        Files.delete(dir.resolve("sub"));
        Files.createDirectory(dir.resolve(Format.segmentName(1)));
        assertRefusedAndUnchanged(dir);
    }

    @Test
    void anEmptyOrMissingDirectoryIsANewStore(@TempDir Path dir) {
        for (Path store : List.of(dir.resolve("empty"), dir.resolve("missing/store"))) {
            if (store.endsWith("empty")) {
                store.toFile().mkdir();
            }
            assertOpensAsANewStore(store);
        }
    }

    /** What a crash during the first open can leave, in the order the files are made. */
    @Test
    void whatACrashBeforeTheFirstCheckpointLeavesOpensAsANewStore(@TempDir Path dir) throws IOException {
        Path lockOnly = Files.createDirectory(dir.resolve("lock"));
        Files.writeString(lockOnly.resolve(StoreLock.FILE), "12345\n");

        Path segmentBeingMade = Files.createDirectory(dir.resolve("segment-tmp"));
        Files.writeString(segmentBeingMade.resolve(StoreLock.FILE), "12345\n");
        Files.write(segmentBeingMade.resolve(Format.segmentName(1) + StoreFiles.TEMP_SUFFIX), new byte[10]);

        Path segmentOnly = Files.createDirectory(dir.resolve("segment"));
        Files.writeString(segmentOnly.resolve(StoreLock.FILE), "12345\n");
        StoreFiles.createSegment(segmentOnly, FileIO.DEFAULT, 1, 42, 0);

        Path checkpointBeingMade = Files.createDirectory(dir.resolve("checkpoint-tmp"));
        Files.writeString(checkpointBeingMade.resolve(StoreLock.FILE), "12345\n");
        StoreFiles.createSegment(checkpointBeingMade, FileIO.DEFAULT, 1, 42, 0);
        Files.write(checkpointBeingMade.resolve(Checkpoint.TEMP), new byte[7]);

        for (Path store : List.of(lockOnly, segmentBeingMade, segmentOnly, checkpointBeingMade)) {
            assertOpensAsANewStore(store);
            try (Stream<Path> files = Files.list(store)) {
                assertEquals(List.of(Format.segmentName(1), StoreLock.FILE, Checkpoint.FILE),
                        files.map(p -> p.getFileName().toString()).sorted().toList(), store.toString());
            }
        }
    }

    private static void assertOpensAsANewStore(Path store) {
        try (Backend b = Stores.open(store, "")) {
            assertEquals(0, b.statistics().objects(), store.toString());
            long id = b.allocateIds(1);
            b.commit(new WriteSet().put(id, bytes("x")).bind("x", id));
        }
        try (Backend b = Stores.open(store, "")) {
            assertArrayEquals("x".getBytes(StandardCharsets.UTF_8), b.read(b.lookup("x")), store.toString());
        }
    }
}
