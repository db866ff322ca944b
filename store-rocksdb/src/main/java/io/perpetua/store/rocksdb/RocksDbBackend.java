package io.perpetua.store.rocksdb;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStoreException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.BackendStatistics;
import io.perpetua.spi.WriteSet;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Filter;
import org.rocksdb.FlushOptions;
import org.rocksdb.IndexType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.Status;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * The RocksDB backend. One RocksDB database per store directory, with four column families:
 * <ul>
 * <li>{@code perpetua.records}: object id (8 bytes, big-endian, so that iteration is in id
 *     order) → record bytes;</li>
 * <li>{@code perpetua.names}: name (UTF-8) → object id (8 bytes);</li>
 * <li>{@code perpetua.classes}: descriptor id (4 bytes, big-endian) → descriptor bytes;</li>
 * <li>{@code default}: metadata: the format marker, the id high-water mark and the exact counts
 *     of records and names.</li>
 * </ul>
 * A commit is one {@link WriteBatch}, which RocksDB writes to its write-ahead log as one
 * checksummed record: after a crash it is replayed whole or not at all.
 *
 * <h2>Damage</h2>
 * Besides RocksDB's own checks ({@code paranoid_checks}, block checksums on every read), an
 * open refuses with {@link CorruptStoreException}: a non-empty directory without a CURRENT
 * file, a RocksDB database that is not a Perpetua store, a store whose format marker is gone
 * while its {@value #MARKER_FILE} file is there, a store whose RocksDB sequence number is below
 * the one recorded in {@value #MARKER_FILE} at the last close, and a store whose exact counts
 * exceed the entries RocksDB lists. Together these turn a damaged or truncated MANIFEST, which
 * RocksDB itself takes for one torn by a crash, into an error instead of an older or empty
 * store. After a crash, a write-ahead log damaged anywhere but in its last record, or missing,
 * is refused too (see {@link #open} and {@link #newDbOptions}), before RocksDB changes a file.
 *
 * <h2>Native resources</h2>
 * Every native object (options, cache, filter, read and write options, column family handles,
 * the database) is created by {@link #open} and closed exactly once, by {@link #close()} or by
 * a failed open. Every method that touches native code holds the read side of
 * {@link #lifecycle}; {@code close} takes the write side, so a call racing with {@code close}
 * either finishes before the natives are freed or sees the store closed: it never touches a
 * freed handle (which would crash the JVM).
 *
 * <h2>Thread-safety</h2>
 * Reads run concurrently. Commits are serialized by {@link #commitLock} because each commit
 * reads the existence of the keys it writes to keep the counts exact; id reservations are
 * serialized by {@link #idLock}.
 *
 * <p>Package private: the public face is {@link RocksDbBackendProvider} and the
 * {@link Backend} interface, so no {@code org.rocksdb} type is visible outside this package.
 */
final class RocksDbBackend implements Backend {

    static final String RECORDS_CF = "perpetua.records";
    static final String NAMES_CF = "perpetua.names";
    static final String CLASSES_CF = "perpetua.classes";
    private static final String DEFAULT_CF = "default";

    /** Marks a Perpetua store: its value is {@link #FORMAT_NAME}, a space and the format version. */
    static final byte[] FORMAT_KEY = ascii("perpetua.format");
    static final String FORMAT_NAME = "perpetua-rocksdb";
    static final int FORMAT_VERSION = 1;
    static final byte[] FORMAT_VALUE = ascii(FORMAT_NAME + " " + FORMAT_VERSION);
    /** The id high-water mark: no id at or above it was ever handed out. */
    static final byte[] NEXT_ID_KEY = ascii("perpetua.next-id");
    static final byte[] OBJECTS_KEY = ascii("perpetua.objects");
    static final byte[] NAMES_KEY = ascii("perpetua.names");
    /** The file that says the directory holds a complete store; see {@link #writeMarkerFile(long)}. */
    static final String MARKER_FILE = "PERPETUA";
    private static final String SEQUENCE_LINE = "sequence ";

    /** The first id reservation of a session; later ones double up to {@link #MAX_ID_CHUNK}. */
    private static final long FIRST_ID_CHUNK = 1024;
    /**
     * Each reservation is one write; doubling keeps a bulk load of n objects at O(log n) of
     * them, and at most this many ids are skipped when the process dies.
     */
    private static final long MAX_ID_CHUNK = 1L << 20;
    /** The size of a commit's records past which they are put into its batch one native call each (see {@link SerializedBatch}). */
    private static final long SERIALIZED_BATCH_LIMIT = 1L << 30;

    private final Path directory;
    private final String location;
    private final boolean sync;

    private final RocksDB db;
    private final ColumnFamilyHandle meta;
    private final ColumnFamilyHandle records;
    private final ColumnFamilyHandle names;
    private final ColumnFamilyHandle classes;
    private final WriteOptions commitOptions;
    private final WriteOptions syncOptions;
    /** Not synced: see {@link #allocateIds}. */
    private final WriteOptions reservationOptions;
    private final ReadOptions readOptions;
    /** Every native object, in the order to close them. */
    private final List<AutoCloseable> natives;

    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    /** This store's entry in {@link #OPEN_DIRECTORIES}, set once it is open. */
    private Object directoryKey;
    /** Written under the write lock; read under the read lock. */
    private boolean closed;
    /** The first fatal error; once set, every call throws {@link StoreClosedException}. */
    private volatile Throwable fatal;

    private final ReentrantLock commitLock = new ReentrantLock();
    /** Guarded by {@link #commitLock}. */
    private long objectCount;
    /** Guarded by {@link #commitLock}. */
    private long nameCount;
    /** Guarded by {@link #commitLock}: no id above this has a record. */
    private long highestRecordId;
    /** Test seam, guarded by {@link #commitLock}: operations left before the next commit fails; -1 = never. */
    private long operationsBeforeFailure = -1;
    /** Test seam, guarded by {@link #commitLock}: what the next batch write throws instead of writing. */
    private RocksDBException nextWriteFailure;

    private final Object idLock = new Object();
    /** Guarded by {@link #idLock}: the next id to hand out. */
    private long nextId;
    /** Guarded by {@link #idLock}: ids below this are reserved (see {@link #allocateIds}). */
    private long reservedEnd;
    /** Guarded by {@link #idLock}. */
    private long idChunk = FIRST_ID_CHUNK;

    private RocksDbBackend(Path directory, String location, boolean sync, RocksDB db,
                           List<ColumnFamilyHandle> handles, WriteOptions commitOptions,
                           WriteOptions syncOptions, WriteOptions reservationOptions, ReadOptions readOptions,
                           List<AutoCloseable> natives) {
        this.directory = directory;
        this.location = location;
        this.sync = sync;
        this.db = db;
        this.meta = handles.get(0);
        this.records = handles.get(1);
        this.names = handles.get(2);
        this.classes = handles.get(3);
        this.commitOptions = commitOptions;
        this.syncOptions = syncOptions;
        this.reservationOptions = reservationOptions;
        this.readOptions = readOptions;
        this.natives = natives;
    }

    // ---------------------------------------------------------------------------------------
    // Opening

    /**
     * Opens or creates the store in a directory.
     *
     * @param directory the store's directory; created (with its parents) if missing
     * @param sync whether commits are synced to disk before they return
     * @param tuning the RocksDB settings
     * @return the open backend, owned by the caller
     * @throws StoreLockedException if the store is open elsewhere (another process, or this one)
     * @throws CorruptStoreException if the directory holds something that is not a readable store
     * @throws StorageException if the directory cannot be created or read
     */
    static RocksDbBackend open(Path directory, boolean sync, RocksDbTuning tuning) {
        Path dir = directory.toAbsolutePath().normalize();
        String location = Backends.location("rocksdb", dir);
        loadLibrary(location);
        boolean existing = inspectDirectory(dir, location);
        try {
            // RocksDB keeps a second open in this process out by the path string of its LOCK
            // file (the operating system's lock does not work within one process), so two
            // spellings of one directory (a symbolic link) must become one.
            dir = dir.toRealPath();
        } catch (IOException e) {
            throw new StorageException("cannot resolve the store directory " + location, e);
        }
        // A directory mounted twice (a bind mount) has two real paths: RocksDB's check by path
        // lets both in, and two databases over one directory destroy it. Keyed by the file
        // system's identity of the directory (device and inode), the second is refused.
        Object key = directoryKey(dir);
        if (!OPEN_DIRECTORIES.add(key)) {
            throw new StoreLockedException(location, null);
        }

        // Every native object goes into this list as soon as it exists, so that a failure at
        // any point closes exactly what was made, once, in reverse order.
        List<AutoCloseable> made = new ArrayList<>();
        boolean opened = false;
        try {
            Cache cache = add(made, new LRUCache(tuning.blockCacheBytes()));
            Filter bloom = tuning.bloomBitsPerKey() > 0 ? add(made, new BloomFilter(tuning.bloomBitsPerKey())) : null;

            DBOptions dbOptions = add(made, newDbOptions(existing && Files.exists(dir.resolve(MARKER_FILE)))
                    // Never create a database over an existing directory that lost its CURRENT
                    // file: inspectDirectory decided whether this is a new store.
                    .setCreateIfMissing(!existing)
                    .setCreateMissingColumnFamilies(true)
                    // paranoid_checks (RocksDB's default, set explicitly because it matters):
                    // at open, RocksDB checks the MANIFEST and that every SST file it lists is
                    // there with the right size, and reports Corruption instead of opening a
                    // store that silently lacks data; at run time, a corruption found by a
                    // background flush or compaction stops writes instead of spreading.
                    .setParanoidChecks(true)
                    // After a crash, replay the write-ahead log whole, accepting only an
                    // incomplete last record (a commit torn by the kill, never acknowledged; a
                    // commit is one WAL record, so none is replayed in part), and refuse to
                    // open with Corruption on any other damage. Point-in-time recovery would
                    // instead stop at a damaged record in the middle and silently drop every
                    // acknowledged commit after it; absolute consistency would refuse the
                    // torn last record that any kill -9 may leave.
                    .setWalRecoveryMode(WALRecoveryMode.TolerateCorruptedTailRecords)
                    // avoid_flush_during_recovery stays off (the default): measured, it keeps
                    // every WAL until a flush, so each open replays them all (a store reopened
                    // per OO1 insert opened in 94 ms instead of 16), and commits were no faster.
                    // RocksDB starts a new info LOG at every open; keep a few, not a thousand.
                    .setKeepLogFileNum(4)
                    .setInfoLogLevel(InfoLogLevel.WARN_LEVEL));

            ColumnFamilyOptions recordOptions = add(made, new ColumnFamilyOptions()
                    .setCompressionType(tuning.lz4() ? CompressionType.LZ4_COMPRESSION : CompressionType.NO_COMPRESSION)
                    .setTableFormatConfig(tableConfig(cache, bloom, tuning.blockSize())));
            // Names, class descriptors and metadata are small: a small memtable each, the same
            // cache and filter (a name lookup that misses is answered by the filter).
            ColumnFamilyOptions smallOptions = add(made, new ColumnFamilyOptions()
                    .setWriteBufferSize(4L << 20)
                    .setCompressionType(CompressionType.NO_COMPRESSION)
                    .setTableFormatConfig(tableConfig(cache, bloom, tuning.blockSize())));

            WriteOptions commitOptions = add(made, new WriteOptions().setSync(sync));
            WriteOptions syncOptions = add(made, new WriteOptions().setSync(true));
            WriteOptions reservationOptions = add(made, new WriteOptions().setSync(false));
            ReadOptions readOptions = add(made, new ReadOptions());

            if (existing) {
                checkColumnFamilies(dir, location, dbOptions);
            }
            List<ColumnFamilyDescriptor> descriptors = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, smallOptions),
                    new ColumnFamilyDescriptor(ascii(RECORDS_CF), recordOptions),
                    new ColumnFamilyDescriptor(ascii(NAMES_CF), smallOptions),
                    new ColumnFamilyDescriptor(ascii(CLASSES_CF), smallOptions));
            List<ColumnFamilyHandle> handles = new ArrayList<>(4);
            RocksDB db;
            try {
                db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
            } finally {
                // RocksDB fills the handles only on success; close whatever it made either way.
                made.addAll(handles);
            }
            // Close order: handles, then the database, then the options they were made with.
            made.add(made.size() - handles.size(), db);

            RocksDbBackend backend = new RocksDbBackend(dir, location, sync, db, handles,
                    commitOptions, syncOptions, reservationOptions, readOptions, reverse(made));
            backend.directoryKey = key;
            backend.initialize();
            opened = true;
            return backend;
        } catch (RocksDBException e) {
            closeAll(reverse(made), null);
            throw openFailure(location, e);
        } catch (RuntimeException | Error e) {
            closeAll(reverse(made), e);
            throw e;
        } finally {
            if (!opened) {
                OPEN_DIRECTORIES.remove(key);
            }
        }
    }

    /** The directories of the stores open in this JVM, by {@link #directoryKey}. */
    private static final java.util.Set<Object> OPEN_DIRECTORIES = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** @return what identifies a directory whatever path reaches it: its file key (device and inode), else its real path */
    private static Object directoryKey(Path realDirectory) {
        try {
            Object key = Files.readAttributes(realDirectory, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
            return key != null ? key : realDirectory.toString();
        } catch (IOException e) {
            return realDirectory.toString();
        }
    }

    /**
     * The database options to start from. Once the store has been opened whole (its
     * {@value #MARKER_FILE} file exists), with RocksDB's {@code track_and_verify_wals}: each new
     * write-ahead log records its predecessor, and an open refuses with Corruption when the
     * logs still needed are all missing ("Opening an existing DB with no WAL files") or one
     * of them is ("Missing WAL of log number"), instead of opening without the commits they
     * held. Not before that: a database whose creation was interrupted has no log yet, and
     * must open. rocksdbjni 11.0.4 has no setter for the option: it goes through RocksDB's
     * option parser. It cannot tell an emptied or shortened last log from one torn by a
     * crash; nothing can, short of a write per commit outside the log (README, Known limits,
     * says so).
     */
    private static DBOptions newDbOptions(boolean verifyWals) {
        if (!verifyWals) {
            return new DBOptions();
        }
        Properties properties = new Properties();
        properties.setProperty("track_and_verify_wals", "true");
        DBOptions options = DBOptions.getDBOptionsFromProps(properties);
        if (options == null) {
            throw new IllegalStateException("this RocksDB does not know the option track_and_verify_wals");
        }
        return options;
    }

    private static BlockBasedTableConfig tableConfig(Cache cache, Filter bloom, long blockSize) {
        BlockBasedTableConfig config = new BlockBasedTableConfig()
                .setBlockCache(cache)
                .setBlockSize(blockSize)
                // Index and filter blocks live in the block cache, so the memory of the store
                // is bounded by the cache whatever its size; with high priority, and pinned for
                // L0, so that data blocks do not evict them. They are partitioned (RocksDB's
                // advice for large stores): an SST file's whole index and filter, some hundreds
                // of KB for a 64 MB file, is larger than a shard of the cache, and was evicted
                // right after each use, so every get read and decompressed it again (100 times
                // slower reads in a store of 2 million 1 KB records, found in session 40). Their
                // small top levels stay pinned. Filter, cache size, compression and block size:
                // RocksDbTuning.
                .setCacheIndexAndFilterBlocks(true)
                .setCacheIndexAndFilterBlocksWithHighPriority(true)
                .setPinL0FilterAndIndexBlocksInCache(true)
                .setIndexType(IndexType.kTwoLevelIndexSearch)
                .setPartitionFilters(true)
                .setMetadataBlockSize(4096)
                .setPinTopLevelIndexAndFilter(true);
        if (bloom != null) {
            config.setFilterPolicy(bloom);
        }
        return config;
    }

    private static void loadLibrary(String location) {
        try {
            NativeLibrary.load();
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            throw new StorageException("cannot load the RocksDB native library for " + location
                    + " (is this platform supported by rocksdbjni?)", e);
        }
    }

    /**
     * Decides whether the directory holds an existing RocksDB database, is new, or holds
     * something else. Creates the directory if it is missing.
     *
     * @return true if the directory holds a RocksDB database (a CURRENT file)
     */
    private static boolean inspectDirectory(Path dir, String location) {
        try {
            if (!Files.exists(dir)) {
                Files.createDirectories(dir);
                return false;
            }
            if (!Files.isDirectory(dir)) {
                throw new CorruptStoreException(location, "it is a file, not a store directory", null);
            }
            if (Files.exists(dir.resolve("CURRENT"))) {
                return true;
            }
            List<String> foreign;
            try (Stream<Path> files = Files.list(dir)) {
                foreign = files.map(p -> p.getFileName().toString())
                        .filter(name -> !isCreationDebris(name))
                        .sorted()
                        .toList();
            }
            if (!foreign.isEmpty()) {
                boolean fileStore = foreign.contains("checkpoint") || foreign.stream().anyMatch(n -> n.endsWith(".seg"));
                throw new CorruptStoreException(location, "the directory is not empty and is not a Perpetua store "
                        + "(no RocksDB CURRENT file; it holds " + describe(foreign) + "). " + (fileStore
                                ? "It looks like a file store: open it with file:" + dir.toUri().getRawPath()
                                : "Use an empty or new directory; if this was a store, its CURRENT file is missing"),
                        null);
            }
            return false;
        } catch (IOException e) {
            throw new StorageException("cannot read or create the store directory " + location, e);
        }
    }

    /**
     * Files RocksDB writes while it creates a database, before the CURRENT file exists. A
     * directory holding only these is a store whose creation was interrupted (no commit can
     * have been acknowledged in it, since a store opens only once CURRENT exists): it is
     * created again.
     */
    private static boolean isCreationDebris(String name) {
        return name.equals("LOCK") || name.equals("IDENTITY") || name.equals("LOG") || name.startsWith("LOG.old.")
                || name.equals("MANIFEST-000001") || name.endsWith(".dbtmp");
    }

    private static String describe(List<String> files) {
        return files.size() <= 5 ? String.join(", ", files)
                : String.join(", ", files.subList(0, 5)) + " and " + (files.size() - 5) + " more";
    }

    /**
     * Refuses a RocksDB database that is not a Perpetua store: one with column families of its
     * own, or one with only the default column family holding data. A database with only the
     * default column family and no data is a store whose creation was interrupted before its
     * column families were made.
     */
    private static void checkColumnFamilies(Path dir, String location, DBOptions dbOptions) throws RocksDBException {
        List<String> present = new ArrayList<>();
        try (Options options = new Options()) {
            for (byte[] cf : RocksDB.listColumnFamilies(options, dir.toString())) {
                present.add(new String(cf, StandardCharsets.UTF_8));
            }
        }
        List<String> ours = List.of(DEFAULT_CF, RECORDS_CF, NAMES_CF, CLASSES_CF);
        List<String> unknown = present.stream().filter(cf -> !ours.contains(cf)).toList();
        if (!unknown.isEmpty()) {
            throw new CorruptStoreException(location, "it is a RocksDB database but not a Perpetua store "
                    + "(column families " + present + ")", null);
        }
        if (!present.containsAll(ours) && !defaultFamilyIsEmpty(dir, dbOptions)) {
            throw new CorruptStoreException(location, "it is a RocksDB database but not a Perpetua store "
                    + "(column families " + present + ", with data)", null);
        }
    }

    private static boolean defaultFamilyIsEmpty(Path dir, DBOptions dbOptions) throws RocksDBException {
        List<ColumnFamilyHandle> handles = new ArrayList<>(1);
        try (ColumnFamilyOptions cfOptions = new ColumnFamilyOptions()) {
            RocksDB db = RocksDB.openReadOnly(dbOptions, dir.toString(),
                    List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)), handles);
            try (RocksIterator it = db.newIterator(handles.get(0))) {
                it.seekToFirst();
                boolean empty = !it.isValid();
                it.status();
                return empty;
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
                db.close();
            }
        }
    }

    /**
     * Checks the format marker (or writes it into a new store), loads the counters and checks
     * them against what RocksDB holds.
     */
    private void initialize() throws RocksDBException {
        byte[] format = db.get(meta, FORMAT_KEY);
        boolean markerFile = Files.exists(directory.resolve(MARKER_FILE));
        if (format == null) {
            if (markerFile) {
                // The directory was a complete store, yet RocksDB no longer sees its first
                // write: files were removed or the MANIFEST was cut short (RocksDB takes a
                // truncated MANIFEST for one torn by a crash and opens what it still lists).
                throw new CorruptStoreException(location, "the store's own metadata is missing although the "
                        + "directory held a store (" + MARKER_FILE + " is there): its MANIFEST is damaged or files "
                        + "of the store were removed", null);
            }
            if (!isEmpty(meta) || !isEmpty(records) || !isEmpty(names) || !isEmpty(classes)) {
                throw new CorruptStoreException(location, "it is a RocksDB database but not a Perpetua store "
                        + "(it has data but no Perpetua format marker)", null);
            }
            // A new store (or one whose creation was interrupted): mark it, durably, before
            // anything else is written to it, and flush the mark into an SST file, so that it
            // does not live only in the write-ahead log: a store whose log file was deleted
            // must not pass for a new, empty one at the next open.
            db.put(meta, syncOptions, FORMAT_KEY, FORMAT_VALUE);
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush, meta);
            }
        } else if (!Arrays.equals(format, FORMAT_VALUE)) {
            int version = formatVersion(format);
            if (version > FORMAT_VERSION) {
                throw new UnsupportedStoreFormatException(location, FORMAT_NAME + " format", version, FORMAT_VERSION);
            }
            throw new CorruptStoreException(location, "unknown store format \""
                    + new String(format, StandardCharsets.ISO_8859_1) + "\"; this version of Perpetua reads \""
                    + new String(FORMAT_VALUE, StandardCharsets.ISO_8859_1) + "\"", null);
        }
        long latest = db.getLatestSequenceNumber();
        if (markerFile) {
            long closedAt = readMarkerSequence();
            if (latest < closedAt) {
                // RocksDB's sequence numbers only grow, and everything up to closedAt was on
                // disk when the store was last closed: later edits of the MANIFEST are lost.
                throw new CorruptStoreException(location, "RocksDB's data ends at sequence number " + latest
                        + " but the store held data up to " + closedAt + " when it was last closed: files of the "
                        + "store are missing or its MANIFEST is damaged", null);
            }
        } else {
            writeMarkerFile(latest);
        }
        objectCount = readCounter(OBJECTS_KEY);
        nameCount = readCounter(NAMES_KEY);
        checkCount(records, objectCount, "records");
        checkCount(names, nameCount, "names");
        try (RocksIterator it = db.newIterator(records)) {
            it.seekToLast();
            highestRecordId = it.isValid() ? decodeId(it.key()) : 0;
            it.status();
        }
        // Defence in depth: never hand out an id that has a record, even if the high-water
        // mark were behind (it cannot be, since ids are reserved durably before they are
        // handed out).
        long next = Math.max(Math.max(1, readCounter(NEXT_ID_KEY)), highestRecordId + 1);
        nextId = next;
        reservedEnd = next;
    }

    /** @return the version a format value names if it is this backend's name and a number, else 0 */
    private static int formatVersion(byte[] format) {
        String value = new String(format, StandardCharsets.ISO_8859_1);
        String prefix = FORMAT_NAME + " ";
        if (!value.startsWith(prefix) || !value.substring(prefix.length()).matches("[1-9][0-9]{0,8}")) {
            return 0;
        }
        return Integer.parseInt(value.substring(prefix.length()));
    }

    /**
     * Writes the marker file that says "this directory holds a complete store, which held
     * data up to this RocksDB sequence number", atomically (a temporary file, synced, renamed
     * over the old one, the directory synced). It lives outside RocksDB's own files, so that a
     * store whose MANIFEST lost edits is reported as damaged instead of opening as an older or
     * empty store: RocksDB itself takes a MANIFEST cut short for one torn by a crash.
     *
     * @param sequence a sequence number up to which everything is durably on disk
     */
    private void writeMarkerFile(long sequence) {
        Path marker = directory.resolve(MARKER_FILE);
        Path temporary = directory.resolve(MARKER_FILE + ".tmp");
        String content = new String(FORMAT_VALUE, StandardCharsets.US_ASCII) + "\n"
                + SEQUENCE_LINE + sequence + "\n"
                + "This directory is a Perpetua store kept by RocksDB. Do not edit or remove its files.\n";
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(ByteBuffer.wrap(content.getBytes(StandardCharsets.US_ASCII)));
                channel.force(true);
            }
            Files.move(temporary, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new StorageException("cannot write " + marker, e);
        }
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException ignored) {
            // Not every platform can sync a directory; RocksDB's next directory sync covers it.
        }
    }

    /** @return the sequence number the marker file records, 0 if it records none */
    private long readMarkerSequence() {
        Path marker = directory.resolve(MARKER_FILE);
        try {
            for (String line : Files.readAllLines(marker, StandardCharsets.US_ASCII)) {
                if (line.startsWith(SEQUENCE_LINE)) {
                    return Long.parseLong(line.substring(SEQUENCE_LINE.length()).trim());
                }
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            throw new CorruptStoreException(location, "its " + MARKER_FILE + " file cannot be read: " + e, e);
        }
    }

    /**
     * A cheap and sound consistency check at open, without reading any record: every live
     * key has at least one entry in a live SST file or a memtable, so the exact count kept in
     * the metadata can never exceed the number of entries RocksDB lists. If it does, SST files
     * were lost (a damaged MANIFEST, removed files), and the store would otherwise open with
     * records silently missing. Also, a count of zero over a column family that has keys means
     * the metadata itself was lost.
     */
    private void checkCount(ColumnFamilyHandle cf, long counted, String what) throws RocksDBException {
        String cfName = cf == records ? RECORDS_CF : NAMES_CF;
        long entries = db.getLongProperty(cf, "rocksdb.num-entries-active-mem-table")
                + db.getLongProperty(cf, "rocksdb.num-entries-imm-mem-tables");
        for (LiveFileMetaData file : db.getLiveFilesMetaData()) {
            if (cfName.equals(new String(file.columnFamilyName(), StandardCharsets.UTF_8))) {
                entries += file.numEntries();
            }
        }
        if (counted > entries || (counted == 0) != isEmpty(cf)) {
            throw new CorruptStoreException(location, "the store counted " + counted + " " + what + " but RocksDB "
                    + "holds " + (counted > entries ? "at most " + entries : "others") + ": files of the store are "
                    + "missing or its MANIFEST is damaged", null);
        }
    }

    private boolean isEmpty(ColumnFamilyHandle cf) throws RocksDBException {
        try (RocksIterator it = db.newIterator(cf)) {
            it.seekToFirst();
            boolean empty = !it.isValid();
            it.status();
            return empty;
        }
    }

    private long readCounter(byte[] key) throws RocksDBException {
        byte[] value = db.get(meta, key);
        if (value == null) {
            return 0;
        }
        if (value.length != Long.BYTES) {
            throw new CorruptStoreException(location, "metadata " + new String(key, StandardCharsets.ISO_8859_1)
                    + " has " + value.length + " bytes, not 8", null);
        }
        return decodeLong(value);
    }

    private static PersistentStoreException openFailure(String location, RocksDBException e) {
        Status.Code code = code(e);
        String message = String.valueOf(e.getMessage());
        // RocksDB's own LOCK file (an fcntl lock): "While lock file: <dir>/LOCK: Resource
        // temporarily unavailable" from another process, "lock hold by current process" from
        // this one. The operating system drops the lock when a process dies, so there is never
        // a stale lock to clean up.
        if (code == Status.Code.IOError && (message.contains("LOCK") || message.contains("lock hold"))) {
            return new StoreLockedException(location, e);
        }
        if (code == Status.Code.Corruption) {
            return new CorruptStoreException(location, message, e);
        }
        if (code == Status.Code.IOError && message.contains("No such file")) {
            return new CorruptStoreException(location, "a file of the store is missing: " + message, e);
        }
        if (code == Status.Code.InvalidArgument || code == Status.Code.NotSupported) {
            return new CorruptStoreException(location, "RocksDB cannot open it: " + message, e);
        }
        return new StorageException("cannot open " + location + ": " + message, e);
    }

    // ---------------------------------------------------------------------------------------
    // Reads

    @Override
    public byte[] read(long id) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            if (id <= 0) {
                return null;
            }
            return db.get(records, readOptions, encodeId(id));
        } catch (RocksDBException e) {
            throw readFailure("reading object " + id, e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public byte[][] readMany(long[] ids) {
        Objects.requireNonNull(ids, "ids");
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            byte[][] result = new byte[ids.length][];
            if (ids.length == 0) {
                return result;
            }
            List<byte[]> keys = new ArrayList<>(ids.length);
            int[] slots = new int[ids.length];
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] > 0) {
                    slots[keys.size()] = i;
                    keys.add(encodeId(ids[i]));
                }
            }
            // One snapshot for every key: a commit that lands during the call is seen whole or
            // not at all.
            Snapshot snapshot = db.getSnapshot();
            try (ReadOptions options = new ReadOptions().setSnapshot(snapshot)) {
                byte[][] values = multiGet(options, records, keys);
                for (int k = 0; k < values.length; k++) {
                    result[slots[k]] = values[k];
                }
            } finally {
                db.releaseSnapshot(snapshot);
            }
            return result;
        } catch (RocksDBException e) {
            throw readFailure("reading " + ids.length + " objects", e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public long lookup(String name) {
        byte[] key = encodeName(name);
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            byte[] value = db.get(names, readOptions, key);
            return value == null ? 0 : decodeNameValue(name, value);
        } catch (RocksDBException e) {
            throw readFailure("looking up the name \"" + name + "\"", e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public long[] recordIds() {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            long[] ids = new long[1024];
            int n = 0;
            // An iterator reads from the implicit snapshot taken when it is created.
            try (RocksIterator it = db.newIterator(records, readOptions)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    if (n == ids.length) {
                        ids = Arrays.copyOf(ids, n * 2);
                    }
                    ids[n++] = decodeId(it.key());
                }
                it.status();
            }
            return Arrays.copyOf(ids, n);
        } catch (RocksDBException e) {
            throw readFailure("listing the objects", e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public SortedMap<String, Long> names() {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            SortedMap<String, Long> result = new TreeMap<>();
            // An iterator reads from the implicit snapshot taken when it is created.
            try (RocksIterator it = db.newIterator(names, readOptions)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    String name = new String(it.key(), StandardCharsets.UTF_8);
                    result.put(name, decodeNameValue(name, it.value()));
                }
                it.status();
            }
            return result;
        } catch (RocksDBException e) {
            throw readFailure("listing the names", e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public Map<Integer, byte[]> classDescriptors() {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            Map<Integer, byte[]> result = new HashMap<>();
            try (RocksIterator it = db.newIterator(classes, readOptions)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    byte[] key = it.key();
                    if (key.length != Integer.BYTES) {
                        throw new CorruptStoreException(location, "a class descriptor key has " + key.length
                                + " bytes, not 4", null);
                    }
                    result.put(ByteBuffer.wrap(key).getInt(), it.value());
                }
                it.status();
            }
            return result;
        } catch (RocksDBException e) {
            throw readFailure("reading the class descriptors", e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Writes

    @Override
    public long allocateIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        RuntimeException failure;
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            synchronized (idLock) {
                if (nextId > Long.MAX_VALUE - count) {
                    throw new StorageException(location + " has no object ids left", null);
                }
                long end = nextId + count;
                if (end > reservedEnd) {
                    long newEnd = end + Math.min(idChunk, Long.MAX_VALUE - end);
                    // A reservation must survive every crash that a commit using its ids
                    // survives, and it does without a sync of its own: the death of the process
                    // loses no write that RocksDB has returned from, synced or not; and RocksDB
                    // recovers its write-ahead log (one log for all column families) as a prefix,
                    // so a commit recovered after a machine crash brings back every write made
                    // before it. A sync here cost a fresh session's first commit one more
                    // fsync (about 0.5 ms of a 100-part OO1 insert).
                    db.put(meta, reservationOptions, NEXT_ID_KEY, encodeLong(newEnd));
                    reservedEnd = newEnd;
                    idChunk = Math.min(idChunk * 2, MAX_ID_CHUNK);
                }
                long first = nextId;
                nextId = end;
                return first;
            }
        } catch (RocksDBException e) {
            failure = latch("reserving object ids", e);
        } finally {
            lifecycle.readLock().unlock();
        }
        close();
        throw failure;
    }

    @Override
    public void commit(WriteSet writes) {
        Objects.requireNonNull(writes, "writes");
        // Caller errors are reported before anything is touched. Loops, not lambdas: each lambda
        // costs a JVM its first commit a generated class (a few milliseconds for these six).
        for (int i = 0; i < writes.putCount(); i++) {
            if (writes.putRecord(i) == null) {
                throw new NullPointerException("the record of object " + writes.putId(i));
            }
        }
        for (Map.Entry<Integer, byte[]> e : writes.classDescriptors().entrySet()) {
            if (e.getValue() == null) {
                throw new NullPointerException("class descriptor " + e.getKey());
            }
        }
        Map<String, byte[]> bindKeys = new HashMap<>();
        for (String name : writes.binds().keySet()) {
            bindKeys.put(name, encodeName(name));
        }
        Map<String, byte[]> unbindKeys = new HashMap<>();
        for (String name : writes.unbinds()) {
            unbindKeys.put(name, encodeName(name));
        }

        RuntimeException failure;
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            if (writes.isEmpty()) {
                return;
            }
            commitLock.lock();
            try {
                commitLocked(writes, bindKeys, unbindKeys);
                return;
            } finally {
                operationsBeforeFailure = -1;
                commitLock.unlock();
            }
        } catch (RocksDBException e) {
            failure = latch("committing " + writes.size() + " changes", e);
        } finally {
            lifecycle.readLock().unlock();
        }
        close();
        throw failure;
    }

    private void commitLocked(WriteSet writes, Map<String, byte[]> bindKeys, Map<String, byte[]> unbindKeys)
            throws RocksDBException {
        // Exact counts, kept in the same batch as the change they count: a put adds one only if
        // the id had no record, a delete removes one only if it had. Commits are serialized, so
        // what the batch is checked against is what it will be applied to. Most puts need no
        // check: an id above every id ever written has no record (new objects, since ids are
        // handed out in increasing order), and a replace is the kernel's word that the record
        // exists (an object it read or committed). The others are checked with one multiGet per
        // commit; measured (RocksDbMeasure, "mget/rec") at about 3.7 us of CPU per record, which
        // made it a third of an OO1 insert's backend time when every overwrite was checked. The
        // alternative, counting by a scan, would make statistics() O(n), and RocksDB's key
        // estimate is not exact.
        List<byte[]> recordKeys = new ArrayList<>(writes.putCount() + writes.deletes().size());
        List<byte[]> toCheck = new ArrayList<>();
        // per put: whether RocksDB is asked, else the kernel's word
        boolean[] asked = new boolean[writes.putCount()];
        long highest = highestRecordId;
        for (int p = 0; p < asked.length; p++) {
            long id = writes.putId(p);
            byte[] key = encodeId(id);
            recordKeys.add(key);
            asked[p] = id <= highestRecordId && !writes.putReplaces(p);
            if (asked[p]) {
                toCheck.add(key);
            }
            highest = Math.max(highest, id);
        }
        for (long id : writes.deletes()) {
            byte[] key = encodeId(id);
            recordKeys.add(key);
            if (id <= highestRecordId) {
                toCheck.add(key);
            }
        }
        boolean[] checked = existing(records, toCheck);
        boolean[] recordExists = new boolean[recordKeys.size()];
        int c = 0;
        int r = 0;
        for (int i = 0; i < asked.length; i++) {
            recordExists[r++] = asked[i] ? checked[c++] : writes.putReplaces(i);
        }
        for (long id : writes.deletes()) {
            recordExists[r++] = id <= highestRecordId && checked[c++];
        }
        List<byte[]> nameKeys = new ArrayList<>(bindKeys.size() + unbindKeys.size());
        for (String name : writes.binds().keySet()) {
            nameKeys.add(bindKeys.get(name));
        }
        for (String name : writes.unbinds()) {
            nameKeys.add(unbindKeys.get(name));
        }
        boolean[] nameExists = existing(names, nameKeys);

        long objects = objectCount;
        try (SerializedBatch batch = new SerializedBatch(SERIALIZED_BATCH_LIMIT)) {
            int k = 0;
            for (int i = 0; i < writes.putCount(); i++) {
                countOperation();
                if (!recordExists[k]) {
                    objects++;
                }
                batch.put(records, recordKeys.get(k++), writes.putRecord(i));
            }
            for (int d = 0; d < writes.deletes().size(); d++) {
                countOperation();
                if (recordExists[k]) {
                    objects--;
                }
                batch.delete(records, recordKeys.get(k++));
            }
            long boundNames = nameCount;
            k = 0;
            for (long id : writes.binds().values()) {
                countOperation();
                if (!nameExists[k]) {
                    boundNames++;
                }
                batch.put(names, nameKeys.get(k++), encodeLong(id));
            }
            for (int u = 0; u < writes.unbinds().size(); u++) {
                countOperation();
                if (nameExists[k]) {
                    boundNames--;
                }
                batch.delete(names, nameKeys.get(k++));
            }
            for (Map.Entry<Integer, byte[]> descriptor : writes.classDescriptors().entrySet()) {
                countOperation();
                batch.put(classes, ByteBuffer.allocate(Integer.BYTES).putInt(descriptor.getKey()).array(),
                        descriptor.getValue());
            }
            if (objects != objectCount) {
                batch.put(meta, OBJECTS_KEY, encodeLong(objects));
            }
            if (boundNames != nameCount) {
                batch.put(meta, NAMES_KEY, encodeLong(boundNames));
            }
            RocksDBException injected = nextWriteFailure;
            if (injected != null) {
                nextWriteFailure = null;
                throw injected;
            }
            db.write(commitOptions, batch.toWriteBatch());
            objectCount = objects;
            nameCount = boundNames;
            highestRecordId = highest;
        }
    }

    /**
     * @return for each key, whether it has a value now; one multiGet for all of them
     * @throws CorruptStoreException or {@link StorageException} if a key cannot be read (a
     *         damaged block would otherwise count as no record); nothing was written yet, so the
     *         commit fails and the store stays open
     */
    private boolean[] existing(ColumnFamilyHandle cf, List<byte[]> keys) {
        boolean[] exists = new boolean[keys.size()];
        if (!keys.isEmpty()) {
            byte[][] values;
            try {
                values = multiGet(readOptions, cf, keys);
            } catch (RocksDBException e) {
                throw readFailure("checking which of " + keys.size() + " keys exist before a commit (nothing was written)", e);
            }
            for (int i = 0; i < exists.length; i++) {
                exists[i] = values[i] != null;
            }
        }
        return exists;
    }

    /**
     * Reads many keys of one column family. rocksdbjni's {@code multiGetAsList} gives null both
     * for a key with no value and for a key it could not read (a damaged block, an I/O error:
     * the per-key status is dropped), so each null is asked again with {@code get}, which throws
     * on an error and gives null only for a missing key. Missing keys are rare where this is used
     * (the kernel reads records it knows of), and with the bloom filter cheap to ask again.
     *
     * @return the values, in the order of the keys; null for a key that has no value
     * @throws RocksDBException if a key cannot be read
     */
    private byte[][] multiGet(ReadOptions options, ColumnFamilyHandle cf, List<byte[]> keys) throws RocksDBException {
        List<byte[]> list = db.multiGetAsList(options, Collections.nCopies(keys.size(), cf), keys);
        byte[][] values = list.toArray(new byte[list.size()][]);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                values[i] = db.get(cf, options, keys.get(i));
            }
        }
        return values;
    }

    /** The test seam of {@link #failNextCommitAfter(int)}. */
    private void countOperation() {
        if (operationsBeforeFailure < 0) {
            return;
        }
        if (operationsBeforeFailure == 0) {
            operationsBeforeFailure = -1;
            throw new StorageException(location + ": injected failure (test seam) while committing", null);
        }
        operationsBeforeFailure--;
    }

    /**
     * Test seam: if the next non-empty commit has more than {@code operations} operations
     * (puts, deletes, binds, unbinds, descriptors), it throws {@link StorageException} while its
     * batch is being built, after that many were added, so it writes nothing. Later commits
     * are not affected.
     */
    void failNextCommitAfter(int operations) {
        if (operations < 0) {
            throw new IllegalArgumentException("operations must not be negative: " + operations);
        }
        commitLock.lock();
        try {
            operationsBeforeFailure = operations;
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * Test seam: the next commit's batch write fails with a RocksDB {@code IOError} instead of
     * reaching RocksDB, as a failed write-ahead log write would, so that the fatal-error path
     * can be tested.
     */
    void failNextWrite(String message) {
        commitLock.lock();
        try {
            nextWriteFailure = new RocksDBException(message, new Status(Status.Code.IOError, Status.SubCode.None, message));
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * Flushes every memtable to SST files and compacts the records, so that tests and
     * measurements can work on SST files (RocksDB otherwise flushes when a memtable is full).
     */
    void flushAndCompact() {
        flush(true);
    }

    /** Flushes every memtable to SST files (L0), without a compaction. */
    void flush() {
        flush(false);
    }

    private void flush(boolean compact) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
                db.flush(options, List.of(meta, records, names, classes));
            }
            if (compact) {
                db.compactRange(records);
            }
        } catch (RocksDBException e) {
            throw new StorageException(location + ": flush failed: " + e.getMessage(), e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** @return the store's directory, for tests */
    Path directory() {
        return directory;
    }

    /** @return every native object this backend owns, for tests that check they were closed */
    List<AutoCloseable> natives() {
        return natives;
    }

    // ---------------------------------------------------------------------------------------
    // Statistics, lifecycle

    @Override
    public BackendStatistics statistics() {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            long objects;
            long boundNames;
            commitLock.lock();
            try {
                objects = objectCount;
                boundNames = nameCount;
            } finally {
                commitLock.unlock();
            }
            return new BackendStatistics(objects, boundNames, directorySize());
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Sums the sizes of the files in the store's directory: SST files, the write-ahead log,
     * MANIFEST, OPTIONS and info LOG files, that is, everything the store takes on disk,
     * including space a compaction has not reclaimed yet. RocksDB deletes obsolete files in
     * the background, so a file may vanish while the directory is listed; it then counts 0.
     */
    private long directorySize() {
        long total = 0;
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                try {
                    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                    if (attributes.isRegularFile()) {
                        total += attributes.size();
                    }
                } catch (NoSuchFileException vanished) {
                    // deleted by RocksDB while we were listing
                }
            }
        } catch (IOException | UncheckedIOException e) {
            throw new StorageException("cannot measure the size of " + location, e);
        }
        return total;
    }

    @Override
    public String location() {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            return location;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Closes the store: syncs the write-ahead log if commits were not synced, then closes every
     * native object once and releases the directory's lock. Waits for calls in progress on
     * other threads. Idempotent.
     *
     * @throws StorageException if the final sync or RocksDB's own close failed; the store is
     *         closed and every resource released all the same
     */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            Throwable failure = null;
            if (fatal == null) {
                try {
                    // Also with sync on: the last write may be an id reservation, which is not
                    // synced, and the marker must not claim a write the disk may not hold.
                    db.syncWal();
                    // Everything up to here is durable: record how far the store got.
                    writeMarkerFile(db.getLatestSequenceNumber());
                } catch (RocksDBException | RuntimeException e) {
                    failure = e;
                }
            }
            failure = closeAll(natives, failure);
            OPEN_DIRECTORIES.remove(directoryKey);
            if (failure != null && fatal == null) {
                throw new StorageException("closing " + location + " failed", failure);
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /** Called with the read lock held; throws if the store is closed or latched closed. */
    private void ensureOpen() {
        if (closed || fatal != null) {
            throw new StoreClosedException(location, fatal);
        }
    }

    /**
     * Records a fatal write failure. RocksDB stops accepting writes after a failed write-ahead
     * log write or sync, and what is on disk is then uncertain, so the backend latches closed:
     * the caller closes it (outside the read lock) and every later call throws
     * {@link StoreClosedException} with this failure as its cause.
     */
    private RuntimeException latch(String doing, RocksDBException e) {
        RuntimeException failure = code(e) == Status.Code.Corruption
                ? new CorruptStoreException(location, doing + " failed: " + e.getMessage(), e)
                : StorageException.closedAfter(location + ": " + doing + " failed: " + e.getMessage(), e);
        synchronized (idLock) {
            if (fatal == null) {
                fatal = failure;
            }
        }
        return failure;
    }

    /** A read failure does not close the store: the damage may be local to one record. */
    private RuntimeException readFailure(String doing, RocksDBException e) {
        if (code(e) == Status.Code.Corruption) {
            return new CorruptStoreException(location, doing + " failed: " + e.getMessage(), e);
        }
        return new StorageException(location + ": " + doing + " failed: " + e.getMessage(), e);
    }

    private static Status.Code code(RocksDBException e) {
        Status status = e.getStatus();
        return status == null ? null : status.getCode();
    }

    /** Closes each object once, in order, even if some fail; returns the first failure. */
    private static Throwable closeAll(List<AutoCloseable> objects, Throwable first) {
        for (AutoCloseable object : objects) {
            try {
                if (object instanceof RocksDB database) {
                    database.closeE();
                } else {
                    object.close();
                }
            } catch (Exception | Error e) {
                if (first == null) {
                    first = e;
                } else if (first != e) {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }

    private static <T extends AutoCloseable> T add(List<AutoCloseable> made, T object) {
        made.add(object);
        return object;
    }

    private static List<AutoCloseable> reverse(List<AutoCloseable> made) {
        List<AutoCloseable> reversed = new ArrayList<>(made);
        Collections.reverse(reversed);
        return List.copyOf(reversed);
    }

    // ---------------------------------------------------------------------------------------
    // Encoding

    static byte[] encodeId(long id) {
        return encodeLong(id);
    }

    static long decodeId(byte[] key) {
        return decodeLong(key);
    }

    /** Big-endian, so that keys sort as ids do. By hand: a ByteBuffer per key showed in a commit's allocation profile. */
    static byte[] encodeLong(long value) {
        byte[] b = new byte[Long.BYTES];
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            b[i] = (byte) value;
            value >>>= 8;
        }
        return b;
    }

    static long decodeLong(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }

    private long decodeNameValue(String name, byte[] value) {
        if (value.length != Long.BYTES) {
            throw new CorruptStoreException(location, "the name \"" + name + "\" is bound to " + value.length
                    + " bytes, not an 8-byte id", null);
        }
        return decodeLong(value);
    }

    /** Names are stored as strict UTF-8: a name with an unpaired surrogate cannot round-trip. */
    private static byte[] encodeName(String name) {
        Objects.requireNonNull(name, "name");
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(name));
            return Arrays.copyOf(bytes.array(), bytes.limit());
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("a name must be valid Unicode (no unpaired surrogate): " + name, e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
