package io.perpetua.memory;

import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendStatistics;
import io.perpetua.spi.WriteSet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;

/**
 * The {@code memory:} backend: a store held in the Java heap, for tests, samples and programs
 * that want persistence by reachability without a disk.
 *
 * <h2>Anonymous and named stores</h2>
 * {@code memory:} (an empty location) opens a fresh anonymous store, which is gone when its
 * backend is closed. {@code memory:NAME} opens the store called {@code NAME}, creating it empty
 * on first use; a named store lives as long as this class is loaded (for the rest of the JVM,
 * usually) and keeps its records, names, class descriptors and id counter across close and
 * reopen. A named store can be open through one backend at a time: a second open while it is
 * open throws {@link StoreLockedException}, just as a disk store open in another process does.
 * Named stores are never removed, so a long-running program should not invent unbounded names.
 *
 * <h2>Lifecycle</h2>
 * Created open by {@link MemoryBackendProvider} (or {@link #open(String)}); {@link #close()} is
 * idempotent and releases the named store for the next open. Every other method called after
 * {@code close()} throws {@link StoreClosedException}.
 *
 * <h2>Thread-safety and atomicity</h2>
 * All methods may be called from several threads at once. A commit first copies the whole write
 * set aside (validating it), then publishes it under an exclusive lock in one step, so a
 * concurrent {@link #read}, {@link #readMany}, {@link #names()} or {@link #classDescriptors()}
 * sees all of a write set or none of it. Readers do not block one another: they read
 * optimistically and retry under a shared lock only if a commit was published meanwhile.
 * A commit that throws has changed nothing.
 *
 * <h2>Ownership</h2>
 * Byte arrays are copied on the way in and on the way out: the store never keeps an array a
 * caller can see, and arrays it returns belong to the caller.
 *
 * <h2>Durability</h2>
 * None beyond the JVM: a named store survives close and reopen, not the end of the process.
 * {@link #statistics()} reports {@code bytesOnDisk} as {@code 0}.
 */
public final class MemoryBackend implements Backend {

    /** Named stores by name; they are kept for the life of this class. */
    private static final ConcurrentMap<String, Store> NAMED = new ConcurrentHashMap<>();

    /** Numbers anonymous stores, for {@link #location()}. */
    private static final AtomicLong ANONYMOUS = new AtomicLong();

    private static final long NO_FAULT = -1;

    private final Store store;
    private final String location;
    private volatile boolean closed;

    /** Operations after which the next commit fails (a test seam); {@link #NO_FAULT} if none. */
    private final AtomicLong failNextCommitAfter = new AtomicLong(NO_FAULT);

    private MemoryBackend(Store store, String location) {
        this.store = store;
        this.location = location;
    }

    /** @return a named store's location: its name percent-encoded, so that opening the location opens the store */
    private static String location(String name) {
        try {
            return new java.net.URI("memory", name, null).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("not a store name: " + name, e);
        }
    }

    /** @return true for a store opened as {@code memory:}, which nothing can open again */
    public boolean anonymous() {
        return location.startsWith("memory:(anonymous ");
    }

    /**
     * Opens a memory store.
     *
     * @param name the store's name, or the empty string for a fresh anonymous store; not null
     * @return an open backend the caller owns and must close
     * @throws StoreLockedException if the named store is already open
     */
    public static MemoryBackend open(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            return new MemoryBackend(new Store(), "memory:(anonymous " + ANONYMOUS.incrementAndGet() + ")");
        }
        Store store = NAMED.computeIfAbsent(name, n -> new Store());
        String location = location(name);
        if (!store.inUse.compareAndSet(false, true)) {
            throw new StoreLockedException(location, null);
        }
        return new MemoryBackend(store, location);
    }

    /**
     * Test seam: makes the next commit throw {@link StorageException} after it has applied
     * {@code operations} of its write set's operations (to the copy it builds aside), or at the
     * end, just before publishing, if the write set has no more operations than that. The
     * failure fires once. Operations are counted in the order puts, deletes, binds, unbinds,
     * class descriptors.
     *
     * @param operations how many operations succeed before the failure, at least 0
     */
    void failNextCommitAfter(int operations) {
        if (operations < 0) {
            throw new IllegalArgumentException("operations must be at least 0: " + operations);
        }
        failNextCommitAfter.set(operations);
    }

    @Override
    public byte[] read(long id) {
        checkOpen();
        // One map read sees a commit whole or not at all; no lock needed.
        return copy(store.records.get(id));
    }

    @Override
    public byte[][] readMany(long[] ids) {
        Objects.requireNonNull(ids, "ids");
        checkOpen();
        byte[][] found = store.optimistically(() -> {
            byte[][] result = new byte[ids.length][];
            for (int i = 0; i < ids.length; i++) {
                result[i] = store.records.get(ids[i]);
            }
            return result;
        });
        // Stored arrays are never changed, so copying them outside the lock is safe.
        for (int i = 0; i < found.length; i++) {
            found[i] = copy(found[i]);
        }
        return found;
    }

    @Override
    public long[] recordIds() {
        checkOpen();
        return store.optimistically(() -> store.records.keySet().stream().mapToLong(Long::longValue).toArray());
    }

    @Override
    public long lookup(String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        Long id = store.names.get(name);
        return id == null ? 0 : id;
    }

    @Override
    public SortedMap<String, Long> names() {
        checkOpen();
        return store.optimistically(() -> new TreeMap<>(store.names));
    }

    @Override
    public Map<Integer, byte[]> classDescriptors() {
        checkOpen();
        Map<Integer, byte[]> snapshot = store.optimistically(() -> new HashMap<>(store.descriptors));
        snapshot.replaceAll((descriptorId, bytes) -> bytes.clone());
        return snapshot;
    }

    @Override
    public long allocateIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        checkOpen();
        long first = store.nextId.getAndUpdate(next -> {
            if (next > Long.MAX_VALUE - count) {
                throw new StorageException(location + " has run out of object ids", null);
            }
            return next + count;
        });
        return first;
    }

    @Override
    public void commit(WriteSet writes) {
        Objects.requireNonNull(writes, "writes");
        checkOpen();
        long failAfter = failNextCommitAfter.getAndSet(NO_FAULT);
        Staged staged = stage(writes, failAfter);
        long stamp = store.lock.writeLock();
        try {
            // Checked under the lock so that no commit is published after close() returned.
            checkOpen();
            for (Map.Entry<Integer, byte[]> e : staged.descriptors.entrySet()) {
                byte[] existing = store.descriptors.get(e.getKey());
                if (existing != null && !Arrays.equals(existing, e.getValue())) {
                    throw new IllegalArgumentException("class descriptor " + e.getKey()
                            + " is already committed in " + location + " with different content;"
                            + " descriptors are never replaced");
                }
            }
            if (failAfter >= 0) {
                // The write set had no more than failAfter operations: fail just before publishing.
                throw injectedFailure(failAfter);
            }
            // Publishing: plain map updates that cannot fail half-way on valid, staged input.
            store.records.putAll(staged.puts);
            for (Long id : staged.deletes) {
                store.records.remove(id);
            }
            store.names.putAll(staged.binds);
            for (String name : staged.unbinds) {
                store.names.remove(name);
            }
            store.descriptors.putAll(staged.descriptors);
        } finally {
            store.lock.unlockWrite(stamp);
        }
    }

    /**
     * Copies a write set aside, validating it and counting operations for the fault seam.
     * Changes nothing in the store.
     */
    private Staged stage(WriteSet writes, long failAfter) {
        Staged staged = new Staged();
        long applied = 0;
        for (int i = 0; i < writes.putCount(); i++) {
            applied = countOperation(applied, failAfter);
            byte[] record = writes.putRecord(i);
            if (record == null) {
                throw new IllegalArgumentException("the write set puts a null record for id " + writes.putId(i));
            }
            staged.puts.put(writes.putId(i), record.clone());
        }
        for (Long id : writes.deletes()) {
            applied = countOperation(applied, failAfter);
            staged.deletes.add(id);
        }
        for (Map.Entry<String, Long> e : writes.binds().entrySet()) {
            applied = countOperation(applied, failAfter);
            staged.binds.put(Objects.requireNonNull(e.getKey(), "the write set binds a null name"), e.getValue());
        }
        for (String name : writes.unbinds()) {
            applied = countOperation(applied, failAfter);
            staged.unbinds.add(Objects.requireNonNull(name, "the write set unbinds a null name"));
        }
        for (Map.Entry<Integer, byte[]> e : writes.classDescriptors().entrySet()) {
            applied = countOperation(applied, failAfter);
            byte[] descriptor = e.getValue();
            if (descriptor == null) {
                throw new IllegalArgumentException("the write set adds a null class descriptor " + e.getKey());
            }
            staged.descriptors.put(e.getKey(), descriptor.clone());
        }
        return staged;
    }

    private long countOperation(long applied, long failAfter) {
        if (applied == failAfter) {
            throw injectedFailure(failAfter);
        }
        return applied + 1;
    }

    private StorageException injectedFailure(long operations) {
        return new StorageException("injected failure in " + location + " after " + operations
                + " operation(s) of a commit", null);
    }

    @Override
    public BackendStatistics statistics() {
        checkOpen();
        return store.optimistically(() -> new BackendStatistics(store.records.size(), store.names.size(), 0));
    }

    @Override
    public String location() {
        checkOpen();
        return location;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        // Wait for a commit in progress, so that none is published after close returns.
        long stamp = store.lock.writeLock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            store.lock.unlockWrite(stamp);
        }
        store.inUse.set(false);
    }

    @Override
    public String toString() {
        return "MemoryBackend[" + location + (closed ? ", closed" : "") + "]";
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreClosedException(location);
        }
    }

    private static byte[] copy(byte[] bytes) {
        return bytes == null ? null : bytes.clone();
    }

    /** A write set copied aside, ready to publish. */
    private static final class Staged {
        final Map<Long, byte[]> puts = new HashMap<>();
        final List<Long> deletes = new ArrayList<>();
        final Map<String, Long> binds = new HashMap<>();
        final List<String> unbinds = new ArrayList<>();
        final Map<Integer, byte[]> descriptors = new HashMap<>();
    }

    /**
     * The data of one store, shared by the successive backends that open it. Stored arrays are
     * private copies that are never changed. The maps are concurrent so that optimistic readers
     * never see a map in a broken state; {@link #lock} makes a commit's changes appear at once.
     */
    private static final class Store {
        final ConcurrentHashMap<Long, byte[]> records = new ConcurrentHashMap<>();
        final ConcurrentSkipListMap<String, Long> names = new ConcurrentSkipListMap<>();
        final ConcurrentHashMap<Integer, byte[]> descriptors = new ConcurrentHashMap<>();
        /** The next id to hand out; ids start at 1 and only grow. */
        final AtomicLong nextId = new AtomicLong(1);
        /** Exclusive for publishing a commit; readers validate against it. */
        final StampedLock lock = new StampedLock();
        /** True while a backend has this store open. */
        final AtomicBoolean inUse = new AtomicBoolean();

        /**
         * Runs a read that must see one consistent state: optimistically first, then, if a
         * commit was published meanwhile, again under the shared lock.
         */
        <T> T optimistically(Supplier<T> read) {
            long stamp = lock.tryOptimisticRead();
            if (stamp != 0) {
                T result = read.get();
                if (lock.validate(stamp)) {
                    return result;
                }
            }
            stamp = lock.readLock();
            try {
                return read.get();
            } finally {
                lock.unlockRead(stamp);
            }
        }
    }
}
