package io.perpetua.store.file;

import io.perpetua.CorruptStoreException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendProvider;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import static io.perpetua.store.file.Stores.bytes;
import static io.perpetua.store.file.Stores.string;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Options, recovery (torn tails, corruption, replay), locking within one JVM, the panic latch. */
class FileBackendTest {

    // ---------------------------------------------------------------- provider and options

    @Test
    void providerIsFoundByScheme() {
        BackendProvider provider = Backends.provider("file");
        assertInstanceOf(FileBackendProvider.class, provider);
        assertEquals("file", provider.scheme());
    }

    @Test
    void unknownAndMalformedOptionsAreRejected(@TempDir Path dir) {
        String base = "file:" + dir.toUri().getRawPath();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.open(URI.create(base + "?sync=false&fsync=true")));
        assertTrue(e.getMessage().contains("fsync"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Backends.open(URI.create(base + "?sync=maybe")));
        assertThrows(IllegalArgumentException.class, () -> Backends.open(URI.create(base + "?segmentSize=12q")));
        assertThrows(IllegalArgumentException.class, () -> Backends.open(URI.create(base + "?segmentSize=1k")));
        assertThrows(IllegalArgumentException.class, () -> Backends.open(URI.create(base + "?garbageRatio=0")));
        assertThrows(IllegalArgumentException.class, () -> Backends.open(URI.create(base + "?checkpointBytes=0")));
        // Nothing was created or locked by the rejected opens.
        try (Backend b = Backends.open(URI.create(base
                + "?sync=false&segmentSize=64k&checkpointBytes=1m&autoCompact=false&garbageRatio=0.25"))) {
            assertEquals("file:" + dir.toAbsolutePath(), b.location());
        }
    }

    @Test
    void aFileIsNotAStore(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("plain.txt"), "hello");
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(file, ""));
        assertTrue(e.location().contains("plain.txt"), e.getMessage());
    }

    @Test
    void aDirectoryWithSegmentsButNoCheckpointIsCorrupt(@TempDir Path dir) {
        try (Backend b = Stores.open(dir, "")) {
            b.commit(new WriteSet().put(b.allocateIds(1), bytes("x")));
        }
        Stores.open(dir, "").close();
        try {
            Files.delete(dir.resolve(Checkpoint.FILE));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(dir, ""));
        assertTrue(e.getMessage().contains("checkpoint"), e.getMessage());
    }

    // ---------------------------------------------------------------- replay after a crash

    @Test
    void aCrashImageReplaysEveryCommitAfterTheCheckpointAcrossSegments(@TempDir Path dir) {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        Map<Long, String> expected = new HashMap<>();
        long lastAllocated;
        try (FileBackend b = Stores.open(live, "segmentSize=4k&autoCompact=false&checkpointBytes=1g")) {
            long first = b.allocateIds(50);
            for (int round = 0; round < 40; round++) {
                WriteSet w = new WriteSet();
                for (int i = 0; i < 50; i += 1 + round % 3) {
                    String v = "r" + round + " i" + i + " " + "z".repeat(i % 17);
                    w.put(first + i, bytes(v));
                    expected.put(first + i, v);
                }
                if (round % 7 == 6) {
                    w.delete(first + round);
                    expected.remove(first + round);
                }
                w.bind("round", first + round % 50);
                b.commit(w);
            }
            lastAllocated = b.allocateIds(5) + 4;
            assertTrue(Stores.segmentFiles(live).size() > 3, "the log spans segments");
            Stores.copy(live, image); // no checkpoint since creation: all of it must be replayed
        }
        try (FileBackend b = Stores.open(image, "")) {
            expected.forEach((id, v) -> assertEquals(v, string(b.read(id)), "object " + id));
            assertEquals(expected.size(), b.statistics().objects());
            assertTrue(b.allocateIds(1) > lastAllocated, "ids are never handed out twice");
        }
    }

    @Test
    void idsAllocatedBeforeACrashAreNotHandedOutAgain(@TempDir Path dir) {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        long last;
        try (FileBackend b = Stores.open(live, "")) {
            b.allocateIds(10);
            last = b.allocateIds(1000) + 999;
            Stores.copy(live, image);
        }
        try (FileBackend b = Stores.open(image, "")) {
            assertEquals(last + 1, b.allocateIds(1));
        }
    }

    // ---------------------------------------------------------------- torn tails

    @Test
    void aTornTailIsCutAndEverythingCommittedStays(@TempDir Path dir) {
        for (int variant = 0; variant < 4; variant++) {
            Path store = dir.resolve("v" + variant);
            long id;
            try (FileBackend b = Stores.open(store, "")) {
                id = b.allocateIds(2);
                b.commit(new WriteSet().put(id, bytes("committed")).bind("kept", id));
            }
            Path segment = Stores.lastSegment(store);
            long committedSize = Stores.size(segment);
            Stores.append(segment, tornTail(variant, id + 1));
            try (FileBackend b = Stores.open(store, "")) {
                assertEquals("committed", string(b.read(id)), "variant " + variant);
                assertNull(b.read(id + 1), "the torn commit is not visible, variant " + variant);
                assertEquals(id, b.lookup("kept"));
                assertEquals(committedSize, Stores.size(segment), "the tail was cut, variant " + variant);
                b.commit(new WriteSet().put(id + 1, bytes("after the cut")));
            }
            try (FileBackend b = Stores.open(store, "")) {
                assertEquals("after the cut", string(b.read(id + 1)));
            }
        }
    }

    /** What a commit torn by a crash can leave: part of a record, whole records without their commit record, junk. */
    private static byte[] tornTail(int variant, long id) {
        byte[] put = new byte[Format.PUT_OVERHEAD + 20];
        Format.putLong(put, Format.RECORD_HEADER, id);
        Format.seal(put, 0, put.length, Format.PUT);
        byte[] commit = new byte[Format.COMMIT_SIZE];
        return switch (variant) {
            case 0 -> java.util.Arrays.copyOf(put, 13);
            case 1 -> put;
            case 2 -> {
                byte[] both = java.util.Arrays.copyOf(put, put.length + commit.length);
                Format.commitRecord(both, put.length, 999, 1000, 1); // a wrong sequence number
                yield java.util.Arrays.copyOf(both, both.length - 3); // ... and cut short
            }
            default -> new byte[4096]; // zeros, as a file system may leave after a power loss
        };
    }

    // ---------------------------------------------------------------- corruption

    @Test
    void damageToCommittedDataAfterTheCheckpointIsReportedNotCut(@TempDir Path dir) {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        long id;
        try (FileBackend b = Stores.open(live, "autoCompact=false")) {
            id = b.allocateIds(3);
            b.commit(new WriteSet().put(id, bytes("first")));
            b.commit(new WriteSet().put(id + 1, bytes("second")));
            b.commit(new WriteSet().put(id + 2, bytes("third, the last commit")));
            Stores.copy(live, image);
        }
        Path segment = Stores.lastSegment(image);
        long size = Stores.size(segment);
        // The last commit's commit record: the one place a naive log would take for a torn tail.
        long offset = size - 5;
        Stores.xorByte(segment, offset, 0x40);
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(image, ""));
        assertTrue(e.location().contains(segment.getFileName().toString()), e.getMessage());
        assertTrue(e.location().matches(".* offset \\d+"), e.getMessage());
        long reported = Long.parseLong(e.location().replaceAll(".* offset ", ""));
        assertTrue(reported <= offset && offset - reported < Format.COMMIT_SIZE, e.getMessage());
        assertEquals(size, Stores.size(segment), "nothing was cut");
        // A record in the middle of the log: the same.
        Stores.xorByte(segment, offset, 0x40);
        Stores.xorByte(segment, Format.HEADER_SIZE + Format.COMMIT_SIZE + 12, 0x01);
        e = assertThrows(CorruptStoreException.class, () -> Stores.open(image, ""));
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
        assertEquals(size, Stores.size(segment), "nothing was cut");
    }

    /**
     * After a crash, the newest segment deleted: the store opened as it was before that
     * segment's commits, silently (a middle segment deleted, or the newest cut by a byte, was
     * reported). The segment before it was sealed when it was begun.
     */
    @Test
    void aCrashImageWhoseNewestSegmentIsDeletedIsReported(@TempDir Path dir) throws IOException {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        Path whole = dir.resolve("whole");
        try (FileBackend b = Stores.open(live, "segmentSize=8k&autoCompact=false&checkpointBytes=1g")) {
            long first = b.allocateIds(10);
            for (int i = 0; i < 10; i++) {
                b.commit(new WriteSet().put(first + i, bytes("order " + i + " " + "x".repeat(3000))).bind("last", first + i));
            }
            Stores.copy(live, image);
            Stores.copy(live, whole);
        }
        try (FileBackend b = Stores.open(whole, "")) {
            assertEquals(10, b.statistics().objects());
        }
        List<Path> segments = Stores.segmentFiles(image);
        assertTrue(segments.size() >= 3, "the log spans segments: " + segments);
        Path newest = segments.get(segments.size() - 1);
        Files.delete(newest);
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(image, ""));
        assertEquals(newest.toString(), e.location());
        assertTrue(e.getMessage().contains("was sealed"), e.getMessage());
    }

    @Test
    void aTruncatedSegmentIsReported(@TempDir Path dir) {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        try (FileBackend b = Stores.open(live, "autoCompact=false")) {
            long id = b.allocateIds(2);
            b.commit(new WriteSet().put(id, bytes("first")));
            b.commit(new WriteSet().put(id + 1, bytes("second")));
            Stores.copy(live, image);
        }
        Path segment = Stores.lastSegment(image);
        Stores.truncate(segment, Stores.size(segment) - Format.COMMIT_SIZE - 3);
        assertThrows(CorruptStoreException.class, () -> Stores.open(image, ""));
        // The same after a clean close: then the checkpoint knows the length.
        Stores.truncate(live.resolve(segment.getFileName()), Stores.size(segment));
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(live, ""));
        assertTrue(e.getMessage().contains("checkpoint needs"), e.getMessage());
    }

    @Test
    void openDoesNotReadCheckpointedRecordsAndAReadFindsTheirDamage(@TempDir Path dir) {
        long id;
        try (FileBackend b = Stores.open(dir, "")) {
            id = b.allocateIds(2);
            b.commit(new WriteSet().put(id, bytes("soon damaged")).put(id + 1, bytes("intact")));
        }
        Path segment = Stores.lastSegment(dir);
        long recordOffset = Format.HEADER_SIZE + Format.COMMIT_SIZE; // after the allocation's commit record
        Stores.xorByte(segment, recordOffset + Format.PUT_OVERHEAD + 3, 0x20);
        try (FileBackend b = Stores.open(dir, "")) {
            assertEquals("intact", string(b.read(id + 1)));
            CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> b.read(id));
            assertEquals(segment + " offset " + recordOffset, e.location());
            assertThrows(CorruptStoreException.class, () -> b.readMany(new long[] {id + 1, id}));
            assertEquals("intact", string(b.read(id + 1)), "a damaged record does not close the store");
        }
    }

    @Test
    void aDamagedCheckpointIsReported(@TempDir Path dir) {
        try (FileBackend b = Stores.open(dir, "")) {
            b.commit(new WriteSet().put(b.allocateIds(1), bytes("x")).bind("x", 1));
        }
        Stores.xorByte(dir.resolve(Checkpoint.FILE), 50, 0x08);
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Stores.open(dir, ""));
        assertTrue(e.location().contains(Checkpoint.FILE), e.getMessage());
    }

    @Test
    void aStoreInANewerFileFormatIsRefusedAndLeftAsItWas(@TempDir Path dir) throws Exception {
        Path image = dir.resolve("image");
        try (FileBackend b = Stores.open(image, "")) {
            b.commit(new WriteSet().put(b.allocateIds(1), bytes("x")).bind("x", 1));
        }
        // What a newer version would write: version 2 where this one writes 1, CRCs valid.
        Path newerCheckpoint = dir.resolve("checkpoint");
        Stores.copy(image, newerCheckpoint);
        byte[] c = Files.readAllBytes(newerCheckpoint.resolve(Checkpoint.FILE));
        Format.putInt(c, 4, Format.VERSION + 1);
        Format.putInt(c, c.length - 4, Format.crc(c, 0, c.length - 4));
        Files.write(newerCheckpoint.resolve(Checkpoint.FILE), c);
        Path newerSegment = dir.resolve("segment");
        Stores.copy(image, newerSegment);
        byte[] h = Files.readAllBytes(Stores.lastSegment(newerSegment));
        Format.putInt(h, 4, Format.VERSION + 1);
        Format.putInt(h, Format.FIXED_HEADER, Format.crc(h, 0, Format.FIXED_HEADER));
        Files.write(Stores.lastSegment(newerSegment), h);

        for (Path store : List.of(newerCheckpoint, newerSegment)) {
            Map<Path, byte[]> before = contents(store);
            UnsupportedStoreFormatException e = assertThrows(UnsupportedStoreFormatException.class,
                    () -> Stores.open(store, ""));
            assertEquals("file store format", e.format());
            assertEquals(Format.VERSION + 1, e.storeVersion());
            assertEquals(Format.VERSION, e.supportedVersion());
            assertTrue(e.location().startsWith(store.toString()), e.getMessage());
            // refused again, not locked out by the first attempt; and not a byte changed
            assertThrows(UnsupportedStoreFormatException.class, () -> Stores.open(store, ""));
            Map<Path, byte[]> after = contents(store);
            assertEquals(before.keySet(), after.keySet());
            before.forEach((file, bytes) -> assertArrayEquals(bytes, after.get(file), file.toString()));
        }
    }

    /** @return every file of a store directory and its bytes, but the lock file (an open makes it) */
    private static Map<Path, byte[]> contents(Path dir) throws Exception {
        Map<Path, byte[]> files = new TreeMap<>();
        try (var list = Files.list(dir)) {
            for (Path p : list.toList()) {
                if (!p.getFileName().toString().equalsIgnoreCase("LOCK")) {
                    files.put(p, Files.readAllBytes(p));
                }
            }
        }
        return files;
    }

    @Test
    void oneDamagedHeaderSlotIsSurvived(@TempDir Path dir) {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        long id;
        try (FileBackend b = Stores.open(live, "")) {
            id = b.allocateIds(1);
            b.commit(new WriteSet().put(id, bytes("x")));
            Stores.copy(live, image);
        }
        for (int slot = 0; slot < 2; slot++) {
            Path copy = dir.resolve("slot" + slot);
            Stores.copy(image, copy);
            Stores.xorByte(Stores.lastSegment(copy), Format.SLOT_BASE + slot * Format.SLOT_STRIDE + 9, 0xff);
            try (FileBackend b = Stores.open(copy, "")) {
                assertEquals("x", string(b.read(id)), "slot " + slot);
            }
        }
        Stores.xorByte(Stores.lastSegment(image), Format.SLOT_BASE + 9, 0xff);
        Stores.xorByte(Stores.lastSegment(image), Format.SLOT_BASE + Format.SLOT_STRIDE + 9, 0xff);
        assertThrows(CorruptStoreException.class, () -> Stores.open(image, ""));
    }

    // ---------------------------------------------------------------- locking in one JVM

    @Test
    void aSecondOpenInThisJvmIsLockedOut(@TempDir Path dir) {
        FileBackend first = Stores.open(dir, "");
        try {
            StoreLockedException e = assertThrows(StoreLockedException.class, () -> Stores.open(dir, ""));
            assertEquals("file:" + dir.toAbsolutePath(), e.location());
            // The failed open did not disturb the first one.
            first.commit(new WriteSet().put(first.allocateIds(1), bytes("still mine")));
        } finally {
            first.close();
        }
        Stores.open(dir, "").close();
    }

    // ---------------------------------------------------------------- the panic latch

    @Test
    void aWriteErrorLatchesTheBackendClosedWithTheCause(@TempDir Path dir) {
        long id;
        try (FileBackend b = Stores.open(dir, "")) {
            id = b.allocateIds(1);
            b.commit(new WriteSet().put(id, bytes("before")));
        }
        FailingFileIO io = new FailingFileIO(1);
        FileBackend b = FileBackend.open(dir, Options.DEFAULT, io);
        StorageException failure = assertThrows(StorageException.class,
                () -> b.commit(new WriteSet().put(id, bytes("lost")).bind("lost", id)));
        assertTrue(io.fired());
        assertTrue(failure.storeClosed(), "the kernel learns that the store closed itself");
        StoreClosedException closed = assertThrows(StoreClosedException.class, () -> b.read(id));
        assertSame(failure, closed.getCause());
        assertThrows(StoreClosedException.class, () -> b.allocateIds(1));
        b.close();
        // The latch released the lock; the reopen cuts the half-written commit.
        try (FileBackend again = Stores.open(dir, "")) {
            assertEquals("before", string(again.read(id)));
            assertEquals(0, again.lookup("lost"));
        }
    }

    @Test
    void aCommitWhoseMarkCannotBeWrittenStandsAndTheBackendClosesAfterIt(@TempDir Path dir) {
        long id;
        try (FileBackend b = Stores.open(dir, "")) {
            id = b.allocateIds(1);
        }
        boolean[] headerFails = {false};
        FileIO io = new FileIO() {
            @Override
            public WriteHandle open(Path path, boolean log) throws IOException {
                return new ForwardingWriteHandle(FileIO.DEFAULT.open(path, log)) {
                    @Override
                    public void write(long position, byte[] b, int off, int len) throws IOException {
                        if (headerFails[0] && position < Format.HEADER_SIZE) {
                            throw new IOException("injected failure of a header write");
                        }
                        real.write(position, b, off, len);
                    }
                };
            }
        };
        FileBackend b = FileBackend.open(dir, Options.DEFAULT, io);
        headerFails[0] = true;
        b.commit(new WriteSet().put(id, bytes("durable")).bind("kept", id)); // synced before the mark: it stands
        StoreClosedException closed = assertThrows(StoreClosedException.class, () -> b.read(id));
        assertTrue(closed.getCause().getMessage().contains("is durable, but its mark"), closed.getCause().getMessage());
        b.close();
        try (FileBackend again = Stores.open(dir, "")) {
            assertEquals("durable", string(again.read(id)));
            assertEquals(id, again.lookup("kept"));
        }
    }

    // ---------------------------------------------------------------- interrupts

    @Test
    void anInterruptedReaderFailsAloneAndOthersGoOn(@TempDir Path dir) throws Exception {
        try (FileBackend b = Stores.open(dir, "")) {
            long id = b.allocateIds(1);
            b.commit(new WriteSet().put(id, bytes("value")));
            AtomicReference<Throwable> seen = new AtomicReference<>();
            Thread t = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    b.read(id);
                } catch (Throwable e) {
                    seen.set(e);
                }
            });
            t.start();
            t.join();
            assertInstanceOf(StorageException.class, seen.get());
            assertEquals("value", string(b.read(id)));
            b.commit(new WriteSet().put(id, bytes("new value")));
            // An interrupted committer: the write path is not interruptible, the commit succeeds.
            Thread.currentThread().interrupt();
            try {
                b.commit(new WriteSet().put(id, bytes("committed while interrupted")));
            } finally {
                assertTrue(Thread.interrupted());
            }
            assertEquals("committed while interrupted", string(b.read(id)));
        }
    }

    // ---------------------------------------------------------------- sync=false

    @Test
    void withoutSyncEverythingStillSurvivesTheProcess(@TempDir Path dir) {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        long id;
        try (FileBackend b = Stores.open(live, "sync=false")) {
            id = b.allocateIds(100);
            for (int i = 0; i < 100; i++) {
                b.commit(new WriteSet().put(id + i, bytes("v" + i)));
            }
            Stores.copy(live, image);
        }
        try (FileBackend b = Stores.open(image, "sync=false")) {
            byte[][] all = b.readMany(java.util.stream.LongStream.range(id, id + 100).toArray());
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(bytes("v" + i), all[i]);
            }
        }
    }
}
