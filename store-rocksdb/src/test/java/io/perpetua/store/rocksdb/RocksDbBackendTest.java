package io.perpetua.store.rocksdb;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStoreException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendStatistics;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AbstractNativeReference;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the RocksDB backend promises beyond the shared contract: files, locks, damage, natives. */
class RocksDbBackendTest {

    private static Backend open(Path dir) {
        return Backends.open(uri(dir, ""));
    }

    private static URI uri(Path dir, String query) {
        return URI.create("rocksdb:" + dir.toUri().getRawPath() + query);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------ opening

    /**
     * A class path without rocksdbjni (written by hand, the jar left out): opening a store says
     * which artifact is missing, with the store's own exception, instead of the
     * {@code NoClassDefFoundError} of the first RocksDB class used, which no
     * {@code catch (PersistentStoreException)} saw.
     */
    @Test
    void withoutRocksDbJniOnTheClassPathOpeningSaysWhatIsMissing(@TempDir Path tmp) throws Exception {
        String classPath = Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("rocksdbjni"))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        try (ForkedJvm child = ForkedJvm.start(tmp.resolve("child-tmp"), List.of(), classPath, OpenAndReport.class,
                "rocksdb:" + tmp.resolve("store").toUri().getRawPath())) {
            String line = child.awaitLine("THREW", 2, TimeUnit.MINUTES);
            assertTrue(line.startsWith("THREW " + PersistentStoreException.class.getName() + ": "), line);
            assertTrue(line.contains("org.rocksdb:rocksdbjni"), line);
        }
        assertFalse(Files.exists(tmp.resolve("store")), "nothing made");
    }

    @Test
    void missingDirectoryIsCreatedWithItsParents(@TempDir Path tmp) {
        Path dir = tmp.resolve("a/b/store");
        try (Backend backend = open(dir)) {
            assertEquals("rocksdb:" + dir.toAbsolutePath(), backend.location());
            assertEquals(new BackendStatistics(0, 0, backend.statistics().bytesOnDisk()), backend.statistics());
        }
        assertTrue(Files.exists(dir.resolve("CURRENT")));
    }

    @Test
    void backendsOpenOfAPathSelectsThisBackend(@TempDir Path dir) {
        assertInstanceOf(RocksDbBackendProvider.class, Backends.provider("rocksdb"));
        try (Backend backend = Backends.open(dir)) {
            assertInstanceOf(RocksDbBackend.class, backend);
            assertEquals("rocksdb:" + dir.toAbsolutePath(), backend.location());
        }
    }

    @Test
    void syncOffStillKeepsEveryCommitAcrossCloseAndReopen(@TempDir Path dir) {
        long first;
        try (Backend backend = Backends.open(uri(dir, "?sync=false"))) {
            first = backend.allocateIds(100);
            for (int i = 0; i < 100; i++) {
                backend.commit(new WriteSet().put(first + i, bytes("r" + i)).bind("last", first + i));
            }
        }
        try (Backend backend = Backends.open(uri(dir, "?sync=true"))) {
            assertEquals(first + 99, backend.lookup("last"));
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(bytes("r" + i), backend.read(first + i));
            }
        }
    }

    @Test
    void unknownOrMalformedOptionsAreRejectedBeforeAnythingIsCreated(@TempDir Path tmp) {
        Path dir = tmp.resolve("store");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Backends.open(uri(dir, "?sync=false&cache=big")));
        assertTrue(unknown.getMessage().contains("cache"), unknown.getMessage());
        IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
                () -> Backends.open(uri(dir, "?sync=maybe")));
        assertTrue(malformed.getMessage().contains("sync"), malformed.getMessage());
        assertFalse(Files.exists(dir));
        assertThrows(IllegalArgumentException.class,
                () -> new RocksDbBackendProvider().open(URI.create("rocksdb:"), "", Map.of()));
    }

    // ------------------------------------------------------------------------ locking

    @Test
    void secondOpenInTheSameProcessIsLockedOut(@TempDir Path dir) {
        try (Backend first = open(dir)) {
            long id = first.allocateIds(1);
            first.commit(new WriteSet().put(id, bytes("mine")));
            StoreLockedException e = assertThrows(StoreLockedException.class, () -> open(dir));
            assertEquals("rocksdb:" + dir.toAbsolutePath(), e.location());
            assertTrue(e.getMessage().contains("locked"), e.getMessage());
            assertArrayEquals(bytes("mine"), first.read(id), "the first backend is unaffected");
        }
        try (Backend again = open(dir)) {
            assertEquals(1, again.statistics().objects());
        }
    }

    @Test
    void aSymbolicLinkToAnOpenStoreIsLockedOutToo(@TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("store");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), dir.getFileName());
        try (Backend first = open(dir)) {
            first.commit(new WriteSet().put(first.allocateIds(1), bytes("mine")));
            assertThrows(StoreLockedException.class, () -> open(link));
        }
        try (Backend viaLink = open(link)) {
            assertEquals(1, viaLink.statistics().objects());
        }
    }

    @Test
    void secondProcessIsLockedOutBothWays(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        String uri = uri(dir, "").toString();
        // This process holds the store: a child that opens it gets StoreLockedException.
        try (Backend held = open(dir)) {
            try (ForkedJvm child = ForkedJvm.start(tmp.resolve("child-tmp"), StoreOpener.class, uri)) {
                String line = child.awaitLine("FAILED", 2, TimeUnit.MINUTES);
                assertTrue(line.startsWith("FAILED " + StoreLockedException.class.getName()), line);
                assertTrue(line.contains("locked by another process") && line.contains(dir.toString()), line);
                assertTrue(child.process().waitFor(1, TimeUnit.MINUTES));
                assertEquals(1, child.process().exitValue());
            }
            held.commit(new WriteSet().bind("still mine", held.allocateIds(1)));
        }
        // A child holds it: this process is locked out until the child dies (SIGKILL: the
        // operating system releases the lock, there is no stale lock file to clean up).
        try (ForkedJvm child = ForkedJvm.start(tmp.resolve("child-tmp"), StoreOpener.class, uri)) {
            child.awaitLine("OPEN", 2, TimeUnit.MINUTES);
            StoreLockedException e = assertThrows(StoreLockedException.class, () -> open(dir));
            assertTrue(e.getMessage().contains("locked by another process"), e.getMessage());
            child.kill();
        }
        try (Backend backend = open(dir)) {
            assertTrue(backend.lookup("still mine") > 0);
        }
    }

    // ------------------------------------------------------------------------ damage

    @Test
    void directoryWithForeignFilesIsRefusedAndLeftAlone(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("notes.txt"), "my notes");
        Files.createDirectory(dir.resolve("photos"));
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> open(dir));
        assertEquals("rocksdb:" + dir.toAbsolutePath(), e.location());
        assertTrue(e.getMessage().contains("notes.txt") && e.getMessage().contains("not a Perpetua store"),
                e.getMessage());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("notes.txt", "photos"), files.map(p -> p.getFileName().toString()).sorted().toList(),
                    "nothing was created next to the foreign files");
        }
    }

    /** A file store's directory (its files written here as that store writes them) is named as one. */
    @Test
    void aFileStoreIsRefusedWithTheSchemeToOpenIt(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("00000001.seg"), new byte[128]);
        Files.write(dir.resolve("checkpoint"), new byte[64]);
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> open(dir));
        assertTrue(e.getMessage().contains("It looks like a file store: open it with file:"), e.getMessage());
        assertFalse(e.getMessage().contains("CURRENT file is missing"), e.getMessage());
    }

    @Test
    void aFileIsNotAStoreDirectory(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("store"), "x");
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> open(file));
        assertTrue(e.getMessage().contains("not a store directory"), e.getMessage());
    }

    @Test
    void leftoversOfAnInterruptedCreationAreNotForeign(@TempDir Path dir) throws IOException {
        // What RocksDB may leave if the process dies before it wrote CURRENT.
        Files.createFile(dir.resolve("LOCK"));
        Files.writeString(dir.resolve("LOG"), "RocksDB log");
        try (Backend backend = open(dir)) {
            assertEquals(0, backend.statistics().objects());
        }
    }

    @Test
    void garbageCurrentFileIsReportedAsCorrupt(@TempDir Path dir) throws IOException {
        populate(dir, 10);
        Files.writeString(dir.resolve("CURRENT"), "garbage");
        assertCorrupt(dir);
    }

    @Test
    void currentFileNamingAMissingManifestIsReportedAsCorrupt(@TempDir Path dir) throws IOException {
        populate(dir, 10);
        Files.writeString(dir.resolve("CURRENT"), "MANIFEST-999999\n");
        CorruptStoreException e = assertCorrupt(dir);
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    void truncatedManifestIsReportedAsCorrupt(@TempDir Path dir) throws IOException {
        populate(dir, 10);
        Path manifest = dir.resolve(Files.readString(dir.resolve("CURRENT")).trim());
        byte[] content = Files.readAllBytes(manifest);
        Files.write(manifest, Arrays.copyOf(content, content.length / 3));
        assertCorrupt(dir);
    }

    /**
     * RocksDB takes a MANIFEST cut short for one torn by a crash and opens the older state it
     * still describes, so cutting it at any point must give either the whole store or a
     * CorruptStoreException: never a store with records or names silently missing, never an
     * empty one.
     */
    @Test
    void manifestCutAnywhereGivesTheWholeStoreOrCorruptStoreException(@TempDir Path tmp) throws IOException {
        Path original = tmp.resolve("original");
        Map<Long, byte[]> written = populate(original, 2000);
        String manifestName = Files.readString(original.resolve("CURRENT")).trim();
        byte[] manifest = Files.readAllBytes(original.resolve(manifestName));
        int corrupt = 0;
        int whole = 0;
        for (int cut = manifest.length - 1; cut >= 0; cut -= Math.max(1, manifest.length / 40)) {
            Path copy = tmp.resolve("cut-" + cut);
            Files.createDirectory(copy);
            try (Stream<Path> files = Files.list(original)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.copy(file, copy.resolve(file.getFileName()));
                }
            }
            Files.write(copy.resolve(manifestName), Arrays.copyOf(manifest, cut));
            Backend backend;
            try {
                backend = open(copy);
            } catch (CorruptStoreException e) {
                corrupt++;
                // ... and stays refused: the failed open must not leave a store that opens.
                assertCorrupt(copy);
                continue;
            }
            try (backend) {
                for (Map.Entry<Long, byte[]> record : written.entrySet()) {
                    assertArrayEquals(record.getValue(), backend.read(record.getKey()),
                            "MANIFEST cut at " + cut + " of " + manifest.length + ": record " + record.getKey());
                }
                assertEquals(written.keySet().iterator().next(), backend.lookup("first"), "cut at " + cut);
                whole++;
            }
        }
        assertTrue(corrupt > 0 && whole > 0, "both outcomes were exercised: " + corrupt + " refused, " + whole + " whole");
    }

    @Test
    void missingCurrentFileIsNotMistakenForANewStore(@TempDir Path dir) throws IOException {
        populate(dir, 10);
        Files.delete(dir.resolve("CURRENT"));
        CorruptStoreException e = assertCorrupt(dir);
        assertTrue(e.getMessage().contains("CURRENT"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("CURRENT")), "no new store was created over the old files");
    }

    @Test
    void missingSstFileIsReportedAsCorrupt(@TempDir Path dir) throws IOException {
        populate(dir, 2000);
        Files.delete(largestSst(dir));
        assertCorrupt(dir);
    }

    @Test
    void deletedWriteAheadLogIsNeverAnOlderStoreAfterACleanClose(@TempDir Path dir) throws IOException {
        long first;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(100);
            for (int i = 0; i < 100; i++) {
                backend.commit(new WriteSet().put(first + i, bytes("r" + i)).bind("last", first + i));
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path log : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                Files.delete(log);
            }
        }
        try (Backend backend = open(dir)) {
            // Allowed only if nothing was lost (RocksDB flushed everything at close).
            assertEquals(first + 99, backend.lookup("last"));
            assertEquals(100, backend.statistics().objects());
        } catch (CorruptStoreException e) {
            // RocksDB's own check (no log left at all), or the sequence number at the last close.
            assertTrue(e.getMessage().contains("no WAL files") || e.getMessage().contains("sequence"), e.getMessage());
        }
    }

    /**
     * multiGetAsList gives null for a key it cannot read as for a missing one: readMany reported
     * a damaged record as absent (the collector said "its record is missing", and would skip a
     * root it could not read as not committed), and the commit's existence check counted it as
     * no record.
     */
    @Test
    void aDamagedRecordIsReportedByReadManyAndTheCommitCheckNeverAsMissing(@TempDir Path dir) throws IOException {
        Map<Long, byte[]> written = populate(dir, 2000);
        long[] ids = written.keySet().stream().mapToLong(Long::longValue).toArray();
        long victim = ids[1000];
        Path sst = largestSst(dir);
        byte[] content = Files.readAllBytes(sst);
        int at = indexOf(content, written.get(victim));
        assertTrue(at > 0, "the record is stored as written");
        try (RandomAccessFile file = new RandomAccessFile(sst.toFile(), "rw")) {
            file.seek(at + 50);
            file.write(content[at + 50] ^ 0x10);
        }
        try (Backend backend = open(dir)) {
            assertThrows(CorruptStoreException.class, () -> backend.read(victim));
            CorruptStoreException many = assertThrows(CorruptStoreException.class, () -> backend.readMany(ids));
            assertEquals("rocksdb:" + dir.toAbsolutePath(), many.location());
            assertTrue(many.getMessage().contains("checksum mismatch"), many.getMessage());
            CorruptStoreException commit = assertThrows(CorruptStoreException.class,
                    () -> backend.commit(new WriteSet().delete(victim)));
            assertTrue(commit.getMessage().contains("nothing was written"), commit.getMessage());
            // nothing was written, the store stays open, and a missing record is still null
            assertEquals(written.size(), backend.statistics().objects());
            assertArrayEquals(written.get(ids[0]), backend.readMany(new long[] {ids[0], ids[ids.length - 1] + 1})[0]);
            assertEquals(null, backend.readMany(new long[] {ids[ids.length - 1] + 1})[0]);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void damagedSstBlockIsReportedAsCorruptNeverAsWrongData(@TempDir Path dir) throws IOException {
        Map<Long, byte[]> written = populate(dir, 2000);
        Path sst = largestSst(dir);
        try (RandomAccessFile file = new RandomAccessFile(sst.toFile(), "rw")) {
            byte[] garbage = new byte[64];
            Arrays.fill(garbage, (byte) 0x5A);
            file.seek(Math.min(20_000, file.length() / 4));
            file.write(garbage);
        }
        int corrupt = 0;
        try (Backend backend = open(dir)) {
            for (Map.Entry<Long, byte[]> record : written.entrySet()) {
                try {
                    assertArrayEquals(record.getValue(), backend.read(record.getKey()), "record " + record.getKey());
                } catch (CorruptStoreException e) {
                    assertEquals("rocksdb:" + dir.toAbsolutePath(), e.location());
                    corrupt++;
                }
            }
            // The store stays usable for what is not damaged.
            assertEquals(written.size(), backend.statistics().objects());
        } catch (CorruptStoreException atOpen) {
            corrupt++;
        }
        assertTrue(corrupt > 0, "the damaged block was noticed");
    }

    @Test
    void foreignRocksDbDatabasesAreRefused(@TempDir Path tmp) throws RocksDBException {
        Path withColumnFamilies = tmp.resolve("cf");
        Path withData = tmp.resolve("data");
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)) {
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try (RocksDB db = RocksDB.open(options, withColumnFamilies.toString(), List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                    new ColumnFamilyDescriptor(bytes("users"))), handles)) {
                handles.forEach(ColumnFamilyHandle::close);
            }
        }
        try (Options options = new Options().setCreateIfMissing(true); RocksDB db = RocksDB.open(options, withData.toString())) {
            db.put(bytes("key"), bytes("value"));
        }
        CorruptStoreException e = assertCorrupt(withColumnFamilies);
        assertTrue(e.getMessage().contains("users"), e.getMessage());
        assertCorrupt(withData);
        // Left as they were: still readable by RocksDB, with their data and nothing of ours.
        try (Options options = new Options(); RocksDB db = RocksDB.open(options, withData.toString())) {
            assertArrayEquals(bytes("value"), db.get(bytes("key")));
            assertEquals(List.of("default"), RocksDB.listColumnFamilies(options, withData.toString()).stream()
                    .map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        }
    }

    @Test
    void aNewerOrUnknownFormatIsRefusedAndTheFailedOpenReleasesTheLockAndEveryNativeObject(@TempDir Path dir) throws RocksDBException {
        populate(dir, 1);
        // A future format version: RocksDB opens the database, then the backend refuses it.
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.toString(), descriptors(), handles)) {
            db.put(handles.get(0), RocksDbBackend.FORMAT_KEY, bytes("perpetua-rocksdb 99"));
            handles.forEach(ColumnFamilyHandle::close);
        }
        UnsupportedStoreFormatException newer = assertThrows(UnsupportedStoreFormatException.class, () -> open(dir));
        assertEquals("perpetua-rocksdb format", newer.format());
        assertEquals(99, newer.storeVersion());
        assertEquals(RocksDbBackend.FORMAT_VERSION, newer.supportedVersion());
        // The failed open closed its database: this one is not locked out. A value that names no
        // version is damage, not a newer format.
        handles.clear();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.toString(), descriptors(), handles)) {
            db.put(handles.get(0), RocksDbBackend.FORMAT_KEY, bytes("perpetua-rocksdb 9x"));
            handles.forEach(ColumnFamilyHandle::close);
        }
        CorruptStoreException e = assertCorrupt(dir);
        assertTrue(e.getMessage().contains("perpetua-rocksdb 9x"), e.getMessage());
        handles.clear();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.toString(), descriptors(), handles)) {
            db.put(handles.get(0), RocksDbBackend.FORMAT_KEY, RocksDbBackend.FORMAT_VALUE);
            handles.forEach(ColumnFamilyHandle::close);
        }
        try (Backend backend = open(dir)) {
            assertEquals(1, backend.statistics().objects());
        }
    }

    private static List<ColumnFamilyDescriptor> descriptors() {
        return List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(bytes(RocksDbBackend.RECORDS_CF)),
                new ColumnFamilyDescriptor(bytes(RocksDbBackend.NAMES_CF)),
                new ColumnFamilyDescriptor(bytes(RocksDbBackend.CLASSES_CF)));
    }

    private static CorruptStoreException assertCorrupt(Path dir) {
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> open(dir).close());
        assertEquals("rocksdb:" + dir.toAbsolutePath(), e.location());
        return e;
    }

    /** Writes n records of 100 random bytes, flushed into SST files; returns them by id. */
    private static Map<Long, byte[]> populate(Path dir, int n) {
        Map<Long, byte[]> written = new java.util.TreeMap<>();
        Random random = new Random(n);
        try (RocksDbBackend backend = (RocksDbBackend) open(dir)) {
            long first = backend.allocateIds(n);
            WriteSet writes = new WriteSet();
            for (int i = 0; i < n; i++) {
                byte[] record = new byte[100];
                random.nextBytes(record);
                writes.put(first + i, record);
                written.put(first + i, record);
            }
            backend.commit(writes.bind("first", first));
            backend.flushAndCompact();
        }
        return written;
    }

    private static Path largestSst(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".sst"))
                    .max(Comparator.comparingLong(p -> p.toFile().length()))
                    .orElseThrow();
        }
    }

    // ------------------------------------------------------------------------ failures, lifecycle

    @Test
    void fatalWriteErrorLatchesTheBackendClosed(@TempDir Path dir) {
        long id;
        try (RocksDbBackend backend = (RocksDbBackend) open(dir)) {
            id = backend.allocateIds(2);
            backend.commit(new WriteSet().put(id, bytes("before")));
            backend.failNextWrite("simulated WAL write failure");
            StorageException failed = assertThrows(StorageException.class,
                    () -> backend.commit(new WriteSet().put(id, bytes("lost")).put(id + 1, bytes("lost"))));
            assertTrue(failed.getMessage().contains("simulated WAL write failure"), failed.getMessage());
            assertTrue(failed.storeClosed(), "the kernel learns that the store closed itself");
            StoreClosedException closed = assertThrows(StoreClosedException.class, () -> backend.read(id));
            assertSame(failed, closed.getCause());
            assertThrows(StoreClosedException.class, () -> backend.allocateIds(1));
            assertThrows(StoreClosedException.class, backend::statistics);
            assertNativesClosed(backend);
        }
        try (Backend backend = open(dir)) {
            assertArrayEquals(bytes("before"), backend.read(id));
            assertNull(backend.read(id + 1));
            assertEquals(1, backend.statistics().objects());
        }
    }

    @Test
    void closeClosesEveryNativeObject(@TempDir Path dir) {
        RocksDbBackend backend = (RocksDbBackend) open(dir);
        backend.commit(new WriteSet().put(backend.allocateIds(1), bytes("x")));
        List<AutoCloseable> natives = backend.natives();
        assertEquals(14, natives.size(), "options (3), cache, filter, read/write options (4), handles (4), db");
        for (AutoCloseable object : natives) {
            assertTrue(owns(object), object.getClass().getSimpleName() + " is open while the backend is");
        }
        backend.close();
        assertNativesClosed(backend);
        backend.close();
    }

    private static void assertNativesClosed(RocksDbBackend backend) {
        for (AutoCloseable object : backend.natives()) {
            assertFalse(owns(object), object.getClass().getSimpleName() + " was not closed");
        }
    }

    /** Whether a RocksJava object still owns its C++ object (the method is protected in RocksJava). */
    private static boolean owns(AutoCloseable object) {
        try {
            Method isOwningHandle = AbstractNativeReference.class.getDeclaredMethod("isOwningHandle");
            isOwningHandle.setAccessible(true);
            return (boolean) isOwningHandle.invoke(object);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void callsRacingWithCloseEitherWorkOrThrowStoreClosed(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 5; round++) {
            Backend backend = open(dir);
            long first = backend.allocateIds(50);
            WriteSet base = new WriteSet();
            for (int i = 0; i < 50; i++) {
                base.put(first + i, bytes("r" + i));
            }
            backend.commit(base.bind("first", first));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            CountDownLatch running = new CountDownLatch(4);
            AtomicLong succeeded = new AtomicLong();
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int kind = t;
                    workers.add(pool.submit(() -> {
                        running.countDown();
                        Random random = new Random(kind);
                        while (true) {
                            try {
                                long id = first + random.nextInt(50);
                                switch (kind) {
                                    case 0 -> backend.read(id);
                                    case 1 -> backend.readMany(new long[] {id, first, id + 1});
                                    case 2 -> {
                                        backend.names();
                                        backend.lookup("first");
                                        backend.statistics();
                                    }
                                    default -> backend.commit(new WriteSet().put(backend.allocateIds(1), bytes("new")));
                                }
                                succeeded.incrementAndGet();
                            } catch (StoreClosedException expected) {
                                return null;
                            }
                        }
                    }));
                }
                running.await();
                Thread.sleep(20 + round * 10);
                backend.close();
                for (Future<?> worker : workers) {
                    worker.get(1, TimeUnit.MINUTES); // anything but StoreClosedException fails here
                }
            } finally {
                pool.shutdownNow();
            }
            assertTrue(succeeded.get() > 0);
        }
        try (Backend backend = open(dir)) {
            assertTrue(backend.lookup("first") > 0);
        }
    }

    // ------------------------------------------------------------------------ statistics, names

    @Test
    void statisticsAreExactThroughOverwritesDeletesAndReopen(@TempDir Path dir) {
        try (RocksDbBackend backend = (RocksDbBackend) open(dir)) {
            long empty = backend.statistics().bytesOnDisk();
            assertTrue(empty > 0, "a new store has files");
            long first = backend.allocateIds(1000);
            WriteSet writes = new WriteSet();
            byte[] big = new byte[4096];
            new Random(1).nextBytes(big);
            for (int i = 0; i < 1000; i++) {
                writes.put(first + i, big);
            }
            backend.commit(writes.bind("a", first).bind("b", first + 1));
            assertEquals(new BackendStatistics(1000, 2, backend.statistics().bytesOnDisk()), backend.statistics());
            assertTrue(backend.statistics().bytesOnDisk() > empty + 1000 * 4096, "4 MB of records are on disk");
            backend.commit(new WriteSet().put(first, bytes("overwrite")).put(first + 5000, bytes("new"))
                    .delete(first + 1).delete(first + 6000).bind("a", first + 2).unbind("b").unbind("never"));
            assertEquals(1000, backend.statistics().objects());
            assertEquals(1, backend.statistics().names());
            backend.flushAndCompact();
            assertEquals(1000, backend.statistics().objects(), "flushing changes no count");
        }
        try (Backend backend = open(dir)) {
            assertEquals(1000, backend.statistics().objects());
            assertEquals(1, backend.statistics().names());
        }
    }

    @Test
    void countsMatchAModelThroughRandomCommitsAndReopens(@TempDir Path dir) {
        Random random = new Random(5);
        java.util.Set<Long> model = new java.util.HashSet<>();
        java.util.Set<String> boundNames = new java.util.HashSet<>();
        long first;
        try (Backend backend = open(dir)) {
            first = backend.allocateIds(200);
        }
        for (int session = 0; session < 4; session++) {
            try (Backend backend = open(dir)) {
                for (int commit = 0; commit < 50; commit++) {
                    WriteSet writes = new WriteSet();
                    for (int op = 0; op < 1 + random.nextInt(20); op++) {
                        long id = first + random.nextInt(200);
                        String name = "n" + random.nextInt(30);
                        switch (random.nextInt(4)) {
                            case 0, 1 -> writes.put(id, bytes("v" + op));
                            case 2 -> writes.delete(id);
                            default -> {
                                if (random.nextBoolean()) {
                                    writes.bind(name, id);
                                } else {
                                    writes.unbind(name);
                                }
                            }
                        }
                    }
                    backend.commit(writes);
                    model.addAll(writes.puts().keySet());
                    model.removeAll(writes.deletes());
                    boundNames.addAll(writes.binds().keySet());
                    boundNames.removeAll(writes.unbinds());
                    BackendStatistics statistics = backend.statistics();
                    assertEquals(model.size(), statistics.objects(), "session " + session + ", commit " + commit);
                    assertEquals(boundNames.size(), statistics.names());
                }
                long present = Arrays.stream(backend.readMany(java.util.stream.LongStream.range(first, first + 200)
                        .toArray())).filter(java.util.Objects::nonNull).count();
                assertEquals(model.size(), present, "the model agrees with the records themselves");
                assertEquals(boundNames, backend.names().keySet());
            }
        }
    }

    @Test
    void idsContinueAboveEveryReservationAfterReopen(@TempDir Path dir) {
        long last;
        try (Backend backend = open(dir)) {
            backend.allocateIds(10);
            last = backend.allocateIds(1); // never written, and the process "forgets" it
        }
        try (Backend backend = open(dir)) {
            assertTrue(backend.allocateIds(1) > last);
        }
    }

    @Test
    void aReservationSurvivesTheKillOfTheProcessThatMadeIt(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        // More ids than the first reservation chunk, and a commit that holds the last of them
        // only as a name's target: no record tells a reopen how far ids went, only the
        // reservation, which must have survived the SIGKILL.
        long last;
        try (ForkedJvm child = ForkedJvm.start(tmp.resolve("child-tmp"), IdReserver.class,
                uri(dir, "").toString(), "5000")) {
            String line = child.awaitLine("COMMITTED ", 2, TimeUnit.MINUTES);
            last = Long.parseLong(line.substring("COMMITTED ".length()));
            child.kill();
        }
        try (Backend backend = open(dir)) {
            assertEquals(last, backend.lookup("last"));
            long next = backend.allocateIds(1);
            assertTrue(next > last, "after SIGKILL the reopened store handed out id " + next + "; the killed process had committed a name bound to " + last);
        }
    }

    @Test
    void namesThatAreNotValidUnicodeAreRejected(@TempDir Path dir) {
        try (Backend backend = open(dir)) {
            long id = backend.allocateIds(1);
            assertThrows(IllegalArgumentException.class, () -> backend.commit(new WriteSet().bind("bad\ud800", id)));
            assertThrows(IllegalArgumentException.class, () -> backend.lookup("\udc00"));
            backend.commit(new WriteSet().bind("fine \ud83d\ude00", id));
            assertEquals(id, backend.lookup("fine \ud83d\ude00"));
        }
    }

    // ------------------------------------------------------------------------ public surface

    @Test
    void noRocksDbTypeIsPartOfThePublicSurface() {
        assertFalse(Modifier.isPublic(RocksDbBackend.class.getModifiers()), "the backend class is package private");
        assertFalse(Modifier.isPublic(RocksDbTuning.class.getModifiers()));
        Class<?> provider = RocksDbBackendProvider.class;
        List<Class<?>> exposed = new ArrayList<>();
        for (Method m : provider.getMethods()) {
            exposed.add(m.getReturnType());
            exposed.addAll(List.of(m.getParameterTypes()));
            exposed.addAll(List.of(m.getExceptionTypes()));
        }
        for (Constructor<?> c : provider.getConstructors()) {
            exposed.addAll(List.of(c.getParameterTypes()));
        }
        for (Field f : provider.getFields()) {
            exposed.add(f.getType());
        }
        exposed.add(provider.getSuperclass());
        exposed.addAll(List.of(provider.getInterfaces()));
        for (Class<?> type : exposed) {
            assertFalse(type.getName().startsWith("org.rocksdb"), provider + " exposes " + type);
        }
    }

    @Test
    void everyFailureIsAPerpetuaException(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("x"), "x");
        PersistentStoreException e = assertThrows(PersistentStoreException.class, () -> open(dir));
        assertFalse(e.getClass().getName().startsWith("org.rocksdb"));
    }
}
