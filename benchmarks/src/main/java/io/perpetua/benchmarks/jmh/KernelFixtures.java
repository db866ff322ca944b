package io.perpetua.benchmarks.jmh;

import io.perpetua.PersistentStore;
import io.perpetua.benchmarks.oo1.Oo1Data;
import io.perpetua.runtime.ArrayWrites;
import io.perpetua.runtime.Persistent;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * What the kernel benchmarks share: the rewritten model, stores opened through the public API
 * with the rewritten classes visible to the kernel, and raw RocksDB databases configured as
 * {@code perpetua-store-rocksdb} configures its own.
 *
 * <h2>How the model is rewritten</h2>
 * The classes of {@code io.perpetua.benchmarks.jmh.kernel} are loaded by a
 * {@link RewritingLoader}, which runs the agent's own {@code ClassRewriter} over them exactly as
 * {@code -javaagent} would, in the benchmark's forked JVM; the kernel finds them through the
 * thread's context class loader, which {@link #open} sets to that loader while the store opens
 * (the kernel resolves stored class names with the loader it was opened under). No agent jar
 * path has to be found at run time, and the rest of the fork (JMH, core, RocksDB) is untouched.
 * As the agent does when it rewrites every class, {@link #model} tells the kernel to trust the
 * array write log ({@code ArrayWrites.PROPERTY}): the model's classes are the only code that
 * touches persistent arrays here, and they log their writes.
 *
 * <p>Not thread-safe; benchmarks use it from their setup methods.
 */
public final class KernelFixtures {

    /** The seed of every database the benchmarks build (the OO1 harness's is different; it does not matter). */
    public static final long SEED = 1992L;

    // RocksDbTuning.DEFAULT of perpetua-store-rocksdb (package private there), copied: the raw
    // baselines read and write with the same table format, cache, filter and compression.
    private static final long BLOCK_CACHE_BYTES = 32L << 20;
    private static final double BLOOM_BITS_PER_KEY = 10;
    private static final long BLOCK_SIZE = 4096;
    private static final String RECORDS_CF = "perpetua.records";

    private static RewritingLoader loader;

    private KernelFixtures() {
    }

    /** @return a new model, loaded rewritten (one loader per JVM, so one copy of the classes) */
    public static synchronized KernelModel model() {
        if (loader == null) {
            System.setProperty(ArrayWrites.PROPERTY, ArrayWrites.TRACKED);
            loader = new RewritingLoader(KernelFixtures.class.getClassLoader(), KernelModel.class.getPackageName() + ".kernel.");
        }
        try {
            return (KernelModel) Class.forName(KernelModel.class.getPackageName() + ".kernel.Graph", true, loader)
                    .getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Loads the node class of a contended exclusive lock, for a single-shot benchmark to call
     * before its warm-up. The JVM loads the class at the first contention, which in a benchmark
     * fork is JMH's own, between its warm-up and measured iterations; loading it there
     * invalidated every compiled method that had inlined a lock (class hierarchy dependencies:
     * the commit's write and withSatellites, RocksDbBackend.commit, by -XX:+PrintCompilation),
     * and the measured operations ran in C1's code until C2 compiled them again. A
     * long-running program pays that once, early.
     */
    public static void loadContendedLockNode() {
        try {
            Class.forName("java.util.concurrent.locks.AbstractQueuedSynchronizer$ExclusiveNode");
        } catch (ClassNotFoundException e) {
            // another JDK's locks: nothing known to load
        }
    }

    /** Opens a store by URI through the public API, the kernel seeing the rewritten model classes. */
    public static PersistentStore open(String uri) {
        model();
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            return PersistentStore.open(uri);
        } finally {
            t.setContextClassLoader(before);
        }
    }

    /** @return the store id of a persistent object (read from its handle: no fault-in) */
    public static long id(Object persistent) {
        return ((Persistent) persistent).$perpetua$handle().id();
    }

    /**
     * OO1's locality rule, as the OO1 harness draws it ({@link Oo1Data#target}): with probability
     * 0.9 among the N/100 ids centred on {@code from}, folded back inside 1..n, else among all.
     */
    public static int target(SplittableRandom random, int from, int n) {
        return Oo1Data.target(random, from, n);
    }

    /** @return {@code count} distinct ids in 1..n, in random order */
    public static int[] distinct(SplittableRandom random, int count, int n) {
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i + 1;
        }
        for (int i = 0; i < count; i++) {
            int j = i + random.nextInt(n - i);
            int t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return Arrays.copyOf(all, count);
    }

    /**
     * Builds an OO1 database of {@code parts} parts (same seed, same graph whatever the store)
     * and binds it to {@code "oo1"} in one commit, then closes the store.
     */
    public static void buildOo1(String uri, int parts) {
        try (PersistentStore store = open(uri)) {
            store.beginTransaction();
            store.persist(model().build(parts, SEED), "oo1");
            store.commitTransaction();
        }
    }

    /** @return a new empty directory under the temporary directory */
    public static Path tempDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory tree; null does nothing. */
    public static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return {@code id} as the 8-byte big-endian key perpetua-store-rocksdb stores it under */
    public static byte[] key(long id) {
        byte[] k = new byte[8];
        for (int i = 0; i < 8; i++) {
            k[i] = (byte) (id >>> (56 - 8 * i));
        }
        return k;
    }

    /**
     * A raw RocksDB database with the table settings of perpetua-store-rocksdb (32 MiB LRU block
     * cache of its own, Bloom filter of 10 bits per key, index and filter blocks in the cache
     * with high priority and pinned for L0, 4 KiB blocks, LZ4 for records, no compression for
     * the small column families). Owns every native object it made; close it.
     */
    public static final class Raw implements AutoCloseable {
        private final List<AutoCloseable> natives = new ArrayList<>();
        public final RocksDB db;
        /** Every column family, in the order they were listed; {@link #records} among them. */
        public final List<ColumnFamilyHandle> handles = new ArrayList<>();
        public final ColumnFamilyHandle records;

        static {
            RocksDB.loadLibrary();
        }

        /**
         * Opens a database: every column family it has (or, new, the default one with the
         * records' settings).
         *
         * @param readOnly open with {@code RocksDB.openReadOnly} (nothing in the directory changes)
         */
        public Raw(Path dir, boolean readOnly) {
            try {
                LRUCache cache = add(new LRUCache(BLOCK_CACHE_BYTES));
                BloomFilter bloom = add(new BloomFilter(BLOOM_BITS_PER_KEY));
                DBOptions options = add(new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                        .setKeepLogFileNum(2).setInfoLogLevel(InfoLogLevel.WARN_LEVEL));
                List<byte[]> names;
                try (Options o = new Options()) {
                    names = Files.exists(dir.resolve("CURRENT")) ? RocksDB.listColumnFamilies(o, dir.toString()) : List.of();
                }
                boolean single = names.isEmpty();
                if (single) {
                    names = List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
                }
                List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
                int recordsAt = 0;
                for (byte[] name : names) {
                    boolean isRecords = single || new String(name, java.nio.charset.StandardCharsets.US_ASCII).equals(RECORDS_CF);
                    if (isRecords) {
                        recordsAt = descriptors.size();
                    }
                    BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache).setBlockSize(BLOCK_SIZE)
                            .setCacheIndexAndFilterBlocks(true).setCacheIndexAndFilterBlocksWithHighPriority(true)
                            .setPinL0FilterAndIndexBlocksInCache(true).setFilterPolicy(bloom);
                    ColumnFamilyOptions cf = add(new ColumnFamilyOptions().setTableFormatConfig(table));
                    if (isRecords) {
                        cf.setCompressionType(CompressionType.LZ4_COMPRESSION);
                    } else {
                        cf.setWriteBufferSize(4L << 20).setCompressionType(CompressionType.NO_COMPRESSION);
                    }
                    descriptors.add(new ColumnFamilyDescriptor(name, cf));
                }
                db = readOnly
                        ? RocksDB.openReadOnly(options, dir.toString(), descriptors, handles)
                        : RocksDB.open(options, dir.toString(), descriptors, handles);
                records = handles.get(recordsAt);
            } catch (RocksDBException e) {
                close();
                throw new IllegalStateException("cannot open " + dir + ": " + e.getMessage(), e);
            }
        }

        private <T extends AutoCloseable> T add(T t) {
            natives.add(t);
            return t;
        }

        /** Flushes every memtable and compacts every column family into one sorted run. */
        public void flushAndCompact() {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush, handles);
                for (ColumnFamilyHandle h : handles) {
                    db.compactRange(h);
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            handles.forEach(ColumnFamilyHandle::close);
            if (db != null) {
                db.close();
            }
            for (int i = natives.size() - 1; i >= 0; i--) {
                try {
                    natives.get(i).close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
