package io.perpetua.store.file;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStoreException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.BackendStatistics;
import io.perpetua.spi.WriteSet;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A store in one directory, in pure Java: an append-only log of checksummed records in segment
 * files, an in-memory index from object id to record position, a checkpoint of that index so
 * that opening does not read the log, and compaction to reclaim the space of overwritten and
 * deleted records (the design of Bitcask, with H2 MVStore's habits: a double header, a panic
 * latch, a pluggable file layer for fault injection). Opened by {@link FileBackendProvider}
 * ({@code file:/some/dir?sync=false}), which documents the options.
 *
 * <h2>Files</h2>
 * {@code NNNNNNNN.seg} segment files (the log; the highest number is the one appended to),
 * {@code checkpoint} (the index as of a log position), {@code LOCK} (the process lock).
 * The record and file formats are described in {@code Format} and {@code Checkpoint}.
 *
 * <h2>Durability</h2>
 * A commit is its records followed by a commit record, written with one write call; with
 * {@code sync=true} (the default) {@link #commit} and {@link #allocateIds} return only after
 * fsync. A commit whose commit record did not reach the disk is a torn tail and is cut on the
 * next open; damage to committed data is reported as {@link CorruptStoreException} naming the
 * segment file and offset, and never cut. "Committed" is what the segment header's mark
 * covers, and the mark reaches the disk only after those records, so that a power loss during
 * a sync cannot leave a mark ahead of them. A synced commit's mark becomes durable with the
 * next sync: after a killed process damage to the last commit is reported, but after a power
 * loss it is cut as a torn tail (as RocksDB does with its log). With {@code sync=false} a
 * commit survives the death of the process (the data is in the operating system's cache) but
 * not necessarily a crash of the operating system or a power loss, which may lose the commits
 * since the last sync point (a segment change, a checkpoint, close).
 *
 * <h2>Thread-safety</h2>
 * Every method may be called from any thread. Reads take a shared lock and read with
 * positional reads, so readers do not wait for each other; commits are serialized and hold
 * the exclusive lock only to publish a written commit into the index, so a reader sees a
 * commit entirely or not at all. Compaction and checkpoints run on one background thread
 * (or in {@link #compact()} / {@link #checkpoint()}) while the store is in use.
 *
 * <h2>Failures</h2>
 * An I/O error while writing latches the backend closed (H2's panic): the failing call throws
 * {@link StorageException}, every later call {@link StoreClosedException} with that error as
 * its cause, and the lock is released so that the store can be reopened, which recovers it. An
 * I/O error while reading throws {@link StorageException} and changes nothing. Interrupting a
 * reading thread makes its read fail; other readers go on.
 *
 * <h2>Ownership</h2>
 * The backend owns its files and its lock until {@link #close()}; arrays it returns belong to
 * the caller.
 */
public final class FileBackend implements Backend {
    private static final System.Logger LOG = System.getLogger(FileBackend.class.getName());
    /** Live records are copied by compaction in commits of about this size. */
    private static final int REWRITE_BATCH = 4 << 20;
    /** {@link #compact()} rewrites a segment once more than 1/64 of it is garbage. */
    private static final double EXPLICIT_RATIO = 1.0 / 64;
    /**
     * {@link #close()} finishes a due compaction only if it copies at most this many live bytes
     * (deleting segments that hold no live record costs it nothing but the checkpoint it writes
     * anyway); a larger one is left to the background maintenance of the next open.
     */
    private static final long CLOSE_COPY_LIMIT = REWRITE_BATCH;

    private final Path dir;
    private final String location;
    private final Options options;
    private final FileIO io;
    private final StoreLock lock;
    private final long storeId;

    // Lock order: maintenanceLock, then commitLock, then stateLock.
    /** One checkpoint or compaction at a time. */
    private final ReentrantLock maintenanceLock = new ReentrantLock();
    /** Serializes writers to the log; everything below "writer state" is guarded by it. */
    private final ReentrantLock commitLock = new ReentrantLock();
    /** Readers share it; publishing a commit takes it exclusively. */
    private final ReentrantReadWriteLock stateLock = new ReentrantReadWriteLock();

    // State the readers see: guarded by stateLock, changed only with commitLock held as well.
    private final LongIndex index;
    private final TreeMap<String, Long> names;
    private final Map<Integer, byte[]> descriptors;
    private final TreeMap<Integer, Segment> segments;
    private long checkpointFileSize;

    // Writer state: guarded by commitLock.
    private Segment active;
    private FileIO.WriteHandle writer;
    private long appendPos;
    private long seq;
    private long nextId;
    private long logBytes;
    private long checkpointLogBytes;
    /** The log bytes when a checkpoint last failed to be written: the next is due a checkpointBytes later. */
    private long checkpointFailedLogBytes;
    private int checkpointSegment;
    private long checkpointSeq;
    private long freedSinceMaintenance;
    /** A segment was sealed since maintenance last ran, or the open found garbage to compact. */
    private boolean rolledSinceMaintenance;
    /** Set by {@link #append} when a durable commit's mark could not be written. */
    private IOException markFailure;

    private volatile boolean closed;
    private volatile Throwable failure;
    private volatile boolean closing;
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    private final AtomicBoolean maintenanceScheduled = new AtomicBoolean();
    private final ThreadPoolExecutor maintenance;

    private FileBackend(Path dir, String location, Options options, FileIO io, StoreLock lock, Recovery.State s,
            FileIO.WriteHandle writer) {
        this.dir = dir;
        this.location = location;
        this.options = options;
        this.io = io;
        this.lock = lock;
        this.storeId = s.storeId;
        this.index = s.index;
        this.names = s.names;
        this.descriptors = s.descriptors;
        this.segments = s.segments;
        this.checkpointFileSize = s.checkpointFileSize;
        this.active = s.active;
        this.writer = writer;
        this.appendPos = s.active.length;
        this.seq = s.seq;
        this.nextId = s.nextId;
        this.logBytes = s.replayedBytes;
        this.checkpointLogBytes = 0;
        this.checkpointSegment = s.checkpointSegment;
        this.checkpointSeq = s.checkpointSeq;
        String name = "perpetua-file-maintenance " + dir.getFileName();
        this.maintenance = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens (creating if needed) the store in {@code dir}.
     *
     * @throws io.perpetua.StoreLockedException if it is open in another process or in this one
     * @throws CorruptStoreException if the directory holds a damaged store, or is not empty and
     *         holds no file store; the directory is left as it was
     * @throws StorageException if the files cannot be read or written
     */
    static FileBackend open(Path dir, Options options, FileIO io) {
        Path absolute = dir.toAbsolutePath().normalize();
        String location = Backends.location("file", absolute);
        if (Files.exists(absolute) && !Files.isDirectory(absolute)) {
            throw new CorruptStoreException(absolute.toString(), "this is a file, not a store directory", null);
        }
        try {
            Files.createDirectories(absolute);
            // Before the lock, so that a foreign directory is left untouched: the lock file is
            // named LOCK, like RocksDB's, and opening and closing it here would release a lock
            // RocksDB holds on it in this process (POSIX locks belong to the process, and
            // closing any descriptor of the file drops them).
            refuseForeignDirectory(absolute, location);
        } catch (IOException e) {
            throw new StorageException("cannot read or create the store directory " + absolute, e);
        }
        StoreLock lock = StoreLock.acquire(absolute, location);
        FileIO.WriteHandle writer = null;
        try {
            Recovery.State state = Recovery.open(absolute, io);
            writer = io.open(state.active.path, true);
            FileBackend backend = new FileBackend(absolute, location, options, io, lock, state, writer);
            backend.commitLock.lock();
            try {
                // Garbage an earlier session left (it closed before its maintenance ran, or
                // freed it in its last moments) is compacted in this one's background: the
                // segments' live bytes come from the checkpoint and the replay, so this is a
                // look at each segment's figures, not at the files.
                backend.rolledSinceMaintenance = options.autoCompact() && backend.compactionDue();
                backend.scheduleMaintenanceIfDue();
            } finally {
                backend.commitLock.unlock();
            }
            return backend;
        } catch (IOException e) {
            closeQuietly(writer);
            lock.close();
            throw new StorageException("cannot open the store at " + location + ": " + e, e);
        } catch (PersistentStoreException e) {
            closeQuietly(writer);
            lock.close();
            throw e;
        } catch (RuntimeException e) {
            // Decoding damaged files must end in a CorruptStoreException; this is the safety net.
            closeQuietly(writer);
            lock.close();
            throw new CorruptStoreException(location, "cannot read the store: " + e, e);
        } catch (Error e) {
            closeQuietly(writer);
            lock.close();
            throw e;
        }
    }

    /**
     * Refuses a directory that has no checkpoint and holds anything but files this backend
     * writes before its first checkpoint (segments, temporary files, the lock file: what a
     * crash during creation leaves), without changing it: opening it would make a new, empty
     * store among someone else's files, or over a store whose checkpoint is missing.
     */
    private static void refuseForeignDirectory(Path dir, String location) throws IOException {
        if (Files.exists(dir.resolve(Checkpoint.FILE))) {
            return;
        }
        List<String> names = new ArrayList<>();
        boolean foreign = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                names.add(name);
                foreign |= !(StoreFiles.isCreationFile(name) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS));
            }
        }
        if (!foreign) {
            return;
        }
        Collections.sort(names);
        String found = names.size() <= 5 ? String.join(", ", names)
                : String.join(", ", names.subList(0, 5)) + " and " + (names.size() - 5) + " more";
        String rocksDb = names.contains("CURRENT") ? "; it looks like a RocksDB store: open it with rocksdb:" : "";
        throw new CorruptStoreException(location, "the directory is not empty and is not a file store (no "
                + Checkpoint.FILE + " file; it holds " + found + rocksDb + "). Use an empty or new directory; if this "
                + "was a file store, its " + Checkpoint.FILE + " file is missing", null);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public byte[] read(long id) {
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            int slot = index.find(id);
            return slot < 0 ? null : readRecord(id, index.location(slot), index.length(slot));
        } finally {
            read.unlock();
        }
    }

    @Override
    public byte[][] readMany(long[] ids) {
        Objects.requireNonNull(ids, "ids");
        byte[][] result = new byte[ids.length][];
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            for (int i = 0; i < ids.length; i++) {
                int slot = index.find(ids[i]);
                if (slot >= 0) {
                    result[i] = readRecord(ids[i], index.location(slot), index.length(slot));
                }
            }
            return result;
        } finally {
            read.unlock();
        }
    }

    @Override
    public long[] recordIds() {
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            long[] ids = new long[index.size()];
            int n = 0;
            for (int slot = 0, capacity = index.capacity(); slot < capacity; slot++) {
                if (index.keyAt(slot) != 0) {
                    ids[n++] = index.keyAt(slot);
                }
            }
            return ids;
        } finally {
            read.unlock();
        }
    }

    /** Reads and checks one record; the state lock is held (shared). */
    private byte[] readRecord(long id, long loc, int length) {
        Segment segment = segments.get(Format.segmentOf(loc));
        long offset = Format.offsetOf(loc);
        if (segment == null) {
            throw new CorruptStoreException(dir.resolve(Format.segmentName(Format.segmentOf(loc))) + " offset " + offset,
                    "object " + id + " is indexed in a segment the store does not have", null);
        }
        byte[] record = new byte[length];
        try {
            segment.read(record, 0, length, offset);
        } catch (EOFException e) {
            throw new CorruptStoreException(segment.path + " offset " + offset,
                    "the file ends inside the record of object " + id, e);
        } catch (ClosedByInterruptException e) {
            throw new StorageException("interrupted while reading object " + id + " from " + location, e);
        } catch (IOException e) {
            throw new StorageException("cannot read object " + id + " from " + segment.path + " at offset " + offset, e);
        }
        String bad = Format.check(record, 0, length);
        if (bad == null && (record[8] != Format.PUT || Format.getLong(record, Format.RECORD_HEADER) != id)) {
            bad = "the record there is not object " + id + "'s";
        }
        if (bad != null) {
            throw new CorruptStoreException(segment.path + " offset " + offset, bad + " in the record of object " + id,
                    null);
        }
        return Arrays.copyOfRange(record, Format.PUT_OVERHEAD, length);
    }

    @Override
    public long lookup(String name) {
        Objects.requireNonNull(name, "name");
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            Long id = names.get(name);
            return id == null ? 0 : id;
        } finally {
            read.unlock();
        }
    }

    @Override
    public SortedMap<String, Long> names() {
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            return new TreeMap<>(names);
        } finally {
            read.unlock();
        }
    }

    @Override
    public Map<Integer, byte[]> classDescriptors() {
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            Map<Integer, byte[]> copy = new HashMap<>();
            descriptors.forEach((id, bytes) -> copy.put(id, bytes.clone()));
            return copy;
        } finally {
            read.unlock();
        }
    }

    @Override
    public BackendStatistics statistics() {
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            long bytes = checkpointFileSize;
            for (Segment s : segments.values()) {
                bytes += s.length;
            }
            return new BackendStatistics(index.size(), names.size(), bytes);
        } finally {
            read.unlock();
        }
    }

    @Override
    public String location() {
        ensureOpen();
        return location;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public long allocateIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        ensureOpen();
        commitLock.lock();
        try {
            ensureOpen();
            long first = nextId;
            long next = first + count;
            if (next < first) {
                throw new StorageException("the store has run out of object ids", null);
            }
            // The new high-water mark is a commit of its own, so that it is as durable as one.
            byte[] b = new byte[Format.COMMIT_SIZE];
            append(b, b.length, next, 0, options.sync());
            nextId = next;
            publishLength();
            closeIfMarkFailed();
            scheduleMaintenanceIfDue();
            return first;
        } finally {
            commitLock.unlock();
        }
    }

    @Override
    public void commit(WriteSet writes) {
        Objects.requireNonNull(writes, "writes");
        ensureOpen();
        if (writes.isEmpty()) {
            return;
        }
        Encoded e = new Encoded(writes);
        commitLock.lock();
        try {
            ensureOpen();
            long next = Math.max(nextId, e.maxPutId == Long.MAX_VALUE ? Long.MAX_VALUE : e.maxPutId + 1);
            reserveIndex(e.putIds.length); // before the commit is written: out of memory here changes nothing
            long at = append(e.bytes, e.bytes.length, next, e.operations, options.sync());
            nextId = next;
            try {
                publish(e, at);
            } catch (RuntimeException | Error t) {
                // Written and synced, but the index may hold only part of it: no checkpoint may be
                // taken of that index. The next open replays the log, where the commit is whole.
                throw fail("commit " + seq + " is written to " + active.path + " but could not be entered in the"
                        + " index (" + t + "); it is in the store, which closed itself: reopen it", t);
            }
            closeIfMarkFailed();
            scheduleMaintenanceIfDue();
        } finally {
            commitLock.unlock();
        }
    }

    /** A write set encoded as log records, before it has a place in the log. */
    private static final class Encoded {
        final byte[] bytes;
        final int operations;
        final long[] putIds;
        final int[] putOffsets;
        final int[] putLengths;
        final long[] deletes;
        final Map<String, Long> binds;
        final List<String> unbinds;
        final Map<Integer, byte[]> descriptors = new HashMap<>();
        long maxPutId;

        Encoded(WriteSet writes) {
            binds = new HashMap<>(writes.binds());
            unbinds = new ArrayList<>(writes.unbinds());
            long size = Format.COMMIT_SIZE;
            for (int i = 0; i < writes.putCount(); i++) {
                byte[] data = writes.putRecord(i); // a test, not a message lambda: no allocation per record
                if (data == null) {
                    throw new NullPointerException("the record of object " + writes.putId(i) + " is null");
                }
                size += Format.PUT_OVERHEAD + data.length;
            }
            size += (long) writes.deletes().size() * (Format.RECORD_HEADER + 8);
            List<byte[]> bindNames = new ArrayList<>();
            for (String name : binds.keySet()) {
                byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
                bindNames.add(utf8);
                size += Format.RECORD_HEADER + 8 + utf8.length;
            }
            List<byte[]> unbindNames = new ArrayList<>();
            for (String name : unbinds) {
                byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
                unbindNames.add(utf8);
                size += Format.RECORD_HEADER + utf8.length;
            }
            for (Map.Entry<Integer, byte[]> d : writes.classDescriptors().entrySet()) {
                byte[] data = d.getValue();
                if (data == null) {
                    throw new NullPointerException("class descriptor " + d.getKey() + " is null");
                }
                descriptors.put(d.getKey(), data.clone());
                size += Format.RECORD_HEADER + 4 + data.length;
            }
            if (size > Format.MAX_COMMIT) {
                throw new IllegalArgumentException("the write set is too large for one commit: " + size + " bytes");
            }
            byte[] b = new byte[(int) size];
            int at = 0;
            for (Map.Entry<Integer, byte[]> d : descriptors.entrySet()) {
                int length = Format.RECORD_HEADER + 4 + d.getValue().length;
                Format.putInt(b, at + Format.RECORD_HEADER, d.getKey());
                System.arraycopy(d.getValue(), 0, b, at + Format.RECORD_HEADER + 4, d.getValue().length);
                Format.seal(b, at, length, Format.CLASS);
                at += length;
            }
            putIds = new long[writes.putCount()];
            putOffsets = new int[putIds.length];
            putLengths = new int[putIds.length];
            for (int i = 0; i < putIds.length; i++) {
                byte[] data = writes.putRecord(i);
                long id = writes.putId(i);
                int length = Format.PUT_OVERHEAD + data.length;
                Format.putLong(b, at + Format.RECORD_HEADER, id);
                System.arraycopy(data, 0, b, at + Format.PUT_OVERHEAD, data.length);
                Format.seal(b, at, length, Format.PUT);
                putIds[i] = id;
                putOffsets[i] = at;
                putLengths[i] = length;
                maxPutId = Math.max(maxPutId, id);
                at += length;
            }
            deletes = new long[writes.deletes().size()];
            int i = 0;
            for (long id : writes.deletes()) {
                Format.putLong(b, at + Format.RECORD_HEADER, id);
                Format.seal(b, at, Format.RECORD_HEADER + 8, Format.DELETE);
                deletes[i++] = id;
                at += Format.RECORD_HEADER + 8;
            }
            i = 0;
            for (Map.Entry<String, Long> bind : binds.entrySet()) {
                byte[] utf8 = bindNames.get(i++);
                int length = Format.RECORD_HEADER + 8 + utf8.length;
                Format.putLong(b, at + Format.RECORD_HEADER, bind.getValue());
                System.arraycopy(utf8, 0, b, at + Format.RECORD_HEADER + 8, utf8.length);
                Format.seal(b, at, length, Format.BIND);
                at += length;
            }
            for (byte[] utf8 : unbindNames) {
                int length = Format.RECORD_HEADER + utf8.length;
                System.arraycopy(utf8, 0, b, at + Format.RECORD_HEADER, utf8.length);
                Format.seal(b, at, length, Format.UNBIND);
                at += length;
            }
            bytes = b;
            operations = writes.size();
        }
    }

    /**
     * Writes one commit at the end of the log: its records, already in {@code b[0, size -
     * COMMIT_SIZE)}, and its commit record, filled in here. Starts a new segment first if this
     * one is full. The commit lock is held.
     *
     * @return the offset in the active segment where the commit starts
     */
    private long append(byte[] b, int size, long next, int operations, boolean sync) {
        if (appendPos > Format.HEADER_SIZE && appendPos + size > options.segmentSize()) {
            roll();
        }
        long newSeq = seq + 1;
        Format.commitRecord(b, size - Format.COMMIT_SIZE, newSeq, next, operations);
        long at = appendPos;
        try {
            writer.write(at, b, 0, size);
            if (sync) {
                writer.sync();
            }
        } catch (IOException e) {
            throw fail("cannot write a commit to " + active.path + " at offset " + at, e);
        }
        seq = newSeq;
        appendPos = at + size;
        logBytes += size;
        if (sync) {
            // The commit is durable. Its mark follows, unsynced: the next sync carries it, and a
            // killed process leaves it in the operating system's cache. Written before the
            // records' sync, a power loss could keep the mark without the records.
            try {
                writeSlot(newSeq, appendPos);
            } catch (IOException e) {
                markFailure = e;
            }
        }
        return at;
    }

    private void writeSlot(long slotSeq, long committed) throws IOException {
        byte[] slot = Format.slot(slotSeq, committed);
        writer.write(Format.slotOffset(slotSeq), slot, 0, slot.length);
    }

    /**
     * A sync point: syncs the records written so far, then marks them committed in the segment
     * header and syncs again, so that the mark never reaches the disk before what it covers.
     */
    private void syncWithMark() throws IOException {
        writer.sync();
        writeSlot(seq, appendPos);
        writer.sync();
    }

    /**
     * After a durable commit whose mark could not be written: the commit stands (the caller
     * is told it succeeded, and the next open finds it), and the backend closes itself as
     * after any write error. The commit lock is held.
     */
    private void closeIfMarkFailed() {
        if (markFailure != null) {
            IOException e = markFailure;
            markFailure = null;
            fail("commit " + seq + " is durable, but its mark in the header of " + active.path
                    + " could not be written", e);
        }
    }

    /** Grows the index for {@code more} new records, under the write lock (readers probe it). */
    private void reserveIndex(int more) {
        ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
        write.lock();
        try {
            index.reserve(more);
        } finally {
            write.unlock();
        }
    }

    /** Makes a written commit visible to readers, all at once. */
    private void publish(Encoded e, long at) {
        ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
        write.lock();
        try {
            descriptors.putAll(e.descriptors);
            int number = active.number;
            for (int i = 0; i < e.putIds.length; i++) {
                release(e.putIds[i]);
                index.put(e.putIds[i], Format.location(number, at + e.putOffsets[i]), e.putLengths[i]);
                active.liveBytes += e.putLengths[i];
            }
            for (long id : e.deletes) {
                if (release(id)) {
                    index.remove(id);
                }
            }
            names.putAll(e.binds);
            for (String name : e.unbinds) {
                names.remove(name);
            }
            active.length = appendPos;
        } finally {
            write.unlock();
        }
    }

    /** The record of {@code id} becomes garbage. Both locks are held. */
    private boolean release(long id) {
        int slot = index.find(id);
        if (slot < 0) {
            return false;
        }
        Segment old = segments.get(Format.segmentOf(index.location(slot)));
        if (old != null) {
            old.liveBytes -= index.length(slot);
        }
        freedSinceMaintenance += index.length(slot);
        return true;
    }

    private void publishLength() {
        ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
        write.lock();
        try {
            active.length = appendPos;
        } finally {
            write.unlock();
        }
    }

    /**
     * Closes the active segment and begins the next: the old one is synced with its final
     * length in its header before the new one (created by rename) appears, so a segment that
     * has a successor is always complete; then the old one is sealed (see {@link Format}). The
     * commit lock is held.
     */
    private void roll() {
        int number = active.number + 1;
        if (number > Format.MAX_SEGMENT) {
            throw new StorageException("the store has run out of segment numbers; compact it into a new store", null);
        }
        try {
            syncWithMark();
            Segment fresh = StoreFiles.createSegment(dir, io, number, storeId, seq);
            // The successor is durable: the seal says it exists, so that an open that finds
            // this segment last knows the newer one was deleted. It needs no fsync of its own:
            // lost in a power cut, only that check is lost.
            byte[] seal = Format.seal(number);
            writer.write(Format.SEAL_OFFSET, seal, 0, seal.length);
            writer.close();
            writer = null;
            writer = io.open(fresh.path, true);
            ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
            write.lock();
            try {
                active.length = appendPos;
                segments.put(number, fresh);
                active = fresh;
            } finally {
                write.unlock();
            }
            appendPos = Format.HEADER_SIZE;
            rolledSinceMaintenance = true;
        } catch (IOException e) {
            throw fail("cannot begin segment " + Format.segmentName(number) + " in " + dir, e);
        }
    }

    // ---------------------------------------------------------------- maintenance

    /** The commit lock is held. */
    private void scheduleMaintenanceIfDue() {
        boolean due = checkpointDue()
                || (options.autoCompact() && (rolledSinceMaintenance
                        || freedSinceMaintenance >= options.segmentSize() / 4));
        if (due && !closing && maintenanceScheduled.compareAndSet(false, true)) {
            try {
                maintenance.execute(this::runMaintenance);
            } catch (RejectedExecutionException e) {
                maintenanceScheduled.set(false); // closing
            }
        }
    }

    /** The commit lock is held. */
    private boolean checkpointDue() {
        return logBytes - Math.max(checkpointLogBytes, checkpointFailedLogBytes) >= options.checkpointBytes();
    }

    private void runMaintenance() {
        maintenanceScheduled.set(false);
        maintenanceLock.lock();
        try {
            if (closed || closing) {
                return;
            }
            commitLock.lock();
            try {
                freedSinceMaintenance = 0;
                rolledSinceMaintenance = false;
            } finally {
                commitLock.unlock();
            }
            if (options.autoCompact()) {
                compactSegments(options.garbageRatio(), false, false);
            }
            boolean due;
            commitLock.lock();
            try {
                due = !closed && checkpointDue();
            } finally {
                commitLock.unlock();
            }
            if (due && !closing) {
                writeCheckpoint();
            }
        } catch (PersistentStoreException e) {
            LOG.log(System.Logger.Level.WARNING, "background maintenance of " + location + " failed", e);
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "background maintenance of " + location + " failed", e);
        } finally {
            maintenanceLock.unlock();
        }
    }

    /**
     * Writes a checkpoint now, so that the next open replays nothing. Blocks commits only while
     * the index is copied. Returns when the checkpoint is durable.
     *
     * @throws StoreClosedException if the backend is closed
     * @throws StorageException if the log cannot be synced (the backend then closes itself), or
     *         the checkpoint file cannot be written (a full disk: the backend stays open, its log
     *         keeps every commit, and the next checkpoint due tries again)
     */
    public void checkpoint() {
        ensureOpen();
        maintenanceLock.lock();
        try {
            ensureOpen();
            writeCheckpoint();
        } finally {
            maintenanceLock.unlock();
        }
    }

    /**
     * Reclaims the space of overwritten and deleted records now: begins a new segment, then
     * copies the live records of every other segment with more than a little garbage to the end
     * of the log, writes a checkpoint that no longer needs those segments, and deletes them.
     * Reads and commits go on meanwhile. A crash at any point loses nothing: the copies are
     * ordinary commits, and a segment is deleted only after a durable checkpoint no longer
     * names it.
     *
     * @return the bytes of segment files deleted
     * @throws StoreClosedException if the backend is closed
     * @throws CorruptStoreException if a live record to be copied is damaged (nothing is deleted)
     * @throws StorageException if writing the log fails (the backend then closes itself), or
     *         writing the checkpoint file (a full disk: the backend stays open, and nothing is
     *         deleted)
     */
    public long compact() {
        ensureOpen();
        maintenanceLock.lock();
        try {
            ensureOpen();
            return compactSegments(EXPLICIT_RATIO, true, false);
        } finally {
            maintenanceLock.unlock();
        }
    }

    /** The maintenance lock is held. */
    private void writeCheckpoint() {
        Checkpoint c = new Checkpoint();
        LongIndex.Snapshot snapshot;
        long covered;
        commitLock.lock();
        try {
            ensureOpen();
            try {
                syncWithMark();
            } catch (IOException e) {
                throw fail("cannot sync " + active.path, e);
            }
            c.storeId = storeId;
            c.seq = seq;
            c.nextId = nextId;
            c.replaySegment = active.number;
            c.replayOffset = appendPos;
            List<Segment> kept = new ArrayList<>();
            for (Segment s : segments.values()) {
                if (!s.retiring) {
                    kept.add(s);
                }
            }
            c.segmentNumbers = new int[kept.size()];
            c.segmentLengths = new long[kept.size()];
            c.segmentLive = new long[kept.size()];
            for (int i = 0; i < kept.size(); i++) {
                Segment s = kept.get(i);
                c.segmentNumbers[i] = s.number;
                c.segmentLengths[i] = s == active ? appendPos : s.length;
                c.segmentLive[i] = s.liveBytes;
            }
            c.names = new TreeMap<>(names);
            c.descriptors = new HashMap<>(descriptors);
            snapshot = index.snapshot();
            covered = logBytes;
        } finally {
            commitLock.unlock();
        }
        c.index(snapshot);
        byte[] data = c.encode();
        try {
            StoreFiles.writeCheckpoint(dir, io, data);
        } catch (IOException e) {
            // The log was synced above and holds every commit; the checkpoint only shortens the
            // next open. The old checkpoint is still in place (or, if only the directory sync
            // failed, the new one: either is right, and nothing relies on the new one, since
            // the state below is left as it was). So the store stays open, and the checkpoint is
            // tried again when next due. A full disk must not close a store that only reads.
            StoreFiles.deleteCheckpointTemp(dir);
            commitLock.lock();
            try {
                checkpointFailedLogBytes = logBytes;
            } finally {
                commitLock.unlock();
            }
            throw new StorageException("cannot write the checkpoint of " + location + " (the store stays open, and"
                    + " its log keeps every commit; free disk space, and the checkpoint is written when next due): "
                    + e, e);
        }
        commitLock.lock();
        try {
            checkpointSegment = c.replaySegment;
            checkpointSeq = c.seq;
            checkpointLogBytes = covered;
            ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
            write.lock();
            try {
                checkpointFileSize = data.length;
            } finally {
                write.unlock();
            }
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * Whether automatic compaction has work: a sealed segment over {@code garbageRatio}, or an
     * active one due to be sealed for it (see {@link #activeDue}). The commit lock is held.
     */
    private boolean compactionDue() {
        if (activeDue(options.garbageRatio(), false)) {
            return true;
        }
        for (Segment s : segments.values()) {
            if (sealedDue(s, options.garbageRatio(), false)) {
                return true;
            }
        }
        return false;
    }

    /** Whether sealed segment {@code s} is to be compacted. The commit lock is held. */
    private boolean sealedDue(Segment s, double ratio, boolean explicit) {
        long data = s.length - Format.HEADER_SIZE;
        return s != active && !s.retiring && (explicit || !s.compactionFailed)
                && (data == 0 || (s.garbage() > 0 && s.garbage() >= ratio * data));
    }

    /**
     * Whether the active segment is to be sealed so that it can be compacted: its garbage is at
     * least {@code ratio} of its data and, unless {@code explicit}, at least a quarter of a
     * segment (so that a store whose whole log fits in one segment, 64 MB by default, does not
     * keep most of it as garbage until it fills, and a small store does not begin a segment for
     * every few records it overwrites). The commit lock is held.
     */
    private boolean activeDue(double ratio, boolean explicit) {
        long garbage = active.garbage();
        return appendPos > Format.HEADER_SIZE && garbage > 0 && garbage >= ratio * (appendPos - Format.HEADER_SIZE)
                && (explicit || garbage >= options.segmentSize() / 4);
    }

    /**
     * Compacts the sealed segments whose garbage is at least {@code ratio} of their data, after
     * sealing the active one if {@link #activeDue} says so. The maintenance lock is held.
     *
     * @param explicit seal the active segment if it has that much garbage at all, and retry
     *                 segments whose compaction failed before
     * @param atClose  run while closing: compact only as many segments as copy at most
     *                 {@link #CLOSE_COPY_LIMIT} live bytes
     * @return the bytes of segment files deleted
     */
    private long compactSegments(double ratio, boolean explicit, boolean atClose) {
        long copyLimit = atClose ? CLOSE_COPY_LIMIT : Long.MAX_VALUE;
        List<Segment> victims = new ArrayList<>();
        boolean needCheckpoint = false;
        commitLock.lock();
        try {
            ensureOpen();
            if (activeDue(ratio, explicit) && active.liveBytes <= copyLimit) {
                roll();
            }
            long copies = 0;
            for (Segment s : segments.values()) {
                if (sealedDue(s, ratio, explicit) && s.liveBytes <= copyLimit - copies) {
                    victims.add(s);
                    copies += s.liveBytes;
                    // A victim holding nothing live needs no checkpoint before: the one that
                    // drops it (below) lies after it, and nothing is copied out of it.
                    needCheckpoint |= s.liveBytes > 0 && s.number >= checkpointSegment;
                }
            }
        } finally {
            commitLock.unlock();
        }
        if (victims.isEmpty()) {
            return 0;
        }
        if (needCheckpoint) {
            // Every victim must lie before the checkpoint's position, so that nothing but its
            // live records (copied below) is needed from it.
            writeCheckpoint();
        }
        if (!rewrite(victims, atClose)) {
            return 0;
        }
        commitLock.lock();
        try {
            // Every live record was copied; a victim still holding live bytes would be a bug.
            victims.removeIf(v -> {
                if (v.liveBytes != 0) {
                    LOG.log(System.Logger.Level.ERROR, "compaction left " + v.liveBytes + " live bytes in " + v.path
                            + "; keeping it");
                    return true;
                }
                return false;
            });
        } finally {
            commitLock.unlock();
        }
        if (victims.isEmpty()) {
            return 0;
        }
        setRetiring(victims, true);
        try {
            writeCheckpoint();
        } catch (RuntimeException e) {
            setRetiring(victims, false);
            throw e;
        }
        long reclaimed = 0;
        commitLock.lock();
        try {
            ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
            write.lock();
            try {
                for (Segment v : victims) {
                    segments.remove(v.number);
                    v.close();
                    reclaimed += v.length;
                }
            } finally {
                write.unlock();
            }
        } finally {
            commitLock.unlock();
        }
        try {
            for (Segment v : victims) {
                Files.deleteIfExists(v.path);
            }
            io.syncDirectory(dir);
        } catch (IOException e) {
            // The checkpoint no longer names them: the next open deletes what is left.
            LOG.log(System.Logger.Level.WARNING, "cannot delete compacted segments of " + location, e);
        }
        return reclaimed;
    }

    private void setRetiring(List<Segment> victims, boolean retiring) {
        commitLock.lock();
        try {
            for (Segment v : victims) {
                v.retiring = retiring;
            }
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * Copies the live records of the victims to the end of the log, in commits of about
     * {@link #REWRITE_BATCH} bytes, each checked against the index under the commit lock so that
     * a record overwritten or deleted meanwhile is not brought back.
     *
     * @param atClose go on although the backend is closing (close itself compacts)
     * @return false if the backend began closing before the copy was complete
     */
    private boolean rewrite(List<Segment> victims, boolean atClose) {
        Map<Integer, LongList> offsets = new HashMap<>();
        for (Segment v : victims) {
            offsets.put(v.number, new LongList());
        }
        ReentrantReadWriteLock.ReadLock read = stateLock.readLock();
        read.lock();
        try {
            ensureOpen();
            for (int slot = 0, n = index.capacity(); slot < n; slot++) {
                if (index.keyAt(slot) != 0) {
                    LongList list = offsets.get(Format.segmentOf(index.location(slot)));
                    if (list != null) {
                        list.add(Format.offsetOf(index.location(slot)));
                    }
                }
            }
        } finally {
            read.unlock();
        }
        for (Segment v : victims) {
            long[] sorted = offsets.get(v.number).sorted();
            if (sorted.length == 0) {
                continue;
            }
            Batch batch = new Batch();
            byte[] window = new byte[1 << 20];
            long windowStart = 0;
            int windowLength = 0;
            for (long offset : sorted) {
                if (closing && !atClose) {
                    return false;
                }
                try {
                    if (offset < windowStart || offset + Format.RECORD_HEADER > windowStart + windowLength) {
                        windowLength = (int) Math.min(window.length, v.length - offset);
                        windowStart = offset;
                        if (windowLength < Format.RECORD_HEADER) {
                            throw damaged(v, offset, "the segment ends inside a record header");
                        }
                        v.read(window, 0, windowLength, offset);
                    }
                    int at = (int) (offset - windowStart);
                    int length = Format.getInt(window, at + 4);
                    if (length < Format.PUT_OVERHEAD || length > v.length - offset) {
                        throw damaged(v, offset, "impossible record length " + length);
                    }
                    byte[] source = window;
                    if (offset + length > windowStart + windowLength) {
                        if (length > window.length) {
                            source = new byte[length];
                            v.read(source, 0, length, offset);
                            at = 0;
                        } else {
                            windowLength = (int) Math.min(window.length, v.length - offset);
                            windowStart = offset;
                            v.read(window, 0, windowLength, offset);
                            at = 0;
                        }
                    }
                    String bad = Format.check(source, at, length);
                    if (bad == null && source[at + 8] != Format.PUT) {
                        bad = "not an object record";
                    }
                    if (bad != null) {
                        throw damaged(v, offset, bad);
                    }
                    batch.add(source, at, length, offset);
                } catch (IOException e) {
                    throw new StorageException("cannot read " + v.path + " at offset " + offset + " for compaction", e);
                }
                if (batch.size >= REWRITE_BATCH) {
                    flush(v, batch);
                }
            }
            flush(v, batch);
        }
        return atClose || !closing;
    }

    private CorruptStoreException damaged(Segment v, long offset, String why) {
        v.compactionFailed = true;
        return new CorruptStoreException(v.path + " offset " + offset, why + " (found while compacting)", null);
    }

    /** Appends the batch's records that are still live where they were as one commit. */
    private void flush(Segment victim, Batch batch) {
        if (batch.count == 0) {
            return;
        }
        commitLock.lock();
        try {
            ensureOpen();
            byte[] out = new byte[batch.size + Format.COMMIT_SIZE];
            long[] ids = new long[batch.count];
            int[] rel = new int[batch.count];
            int[] lengths = new int[batch.count];
            int kept = 0;
            int size = 0;
            for (int i = 0; i < batch.count; i++) {
                long id = Format.getLong(batch.bytes, batch.starts[i] + Format.RECORD_HEADER);
                int slot = index.find(id);
                if (slot >= 0 && index.location(slot) == Format.location(victim.number, batch.oldOffsets[i])) {
                    System.arraycopy(batch.bytes, batch.starts[i], out, size, batch.lengths[i]);
                    ids[kept] = id;
                    rel[kept] = size;
                    lengths[kept] = batch.lengths[i];
                    size += batch.lengths[i];
                    kept++;
                }
            }
            if (kept > 0) {
                int total = size + Format.COMMIT_SIZE;
                // Synced by the checkpoint that must follow before the victim is deleted.
                long at = append(out, total, nextId, kept, false);
                ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
                write.lock();
                try {
                    for (int i = 0; i < kept; i++) {
                        index.put(ids[i], Format.location(active.number, at + rel[i]), lengths[i]);
                        victim.liveBytes -= lengths[i];
                        active.liveBytes += lengths[i];
                    }
                    active.length = appendPos;
                } finally {
                    write.unlock();
                }
            }
        } finally {
            commitLock.unlock();
        }
        batch.clear();
    }

    /** Records copied from a victim, waiting to be appended. */
    private static final class Batch {
        byte[] bytes = new byte[1 << 16];
        int size;
        int count;
        int[] starts = new int[256];
        int[] lengths = new int[256];
        long[] oldOffsets = new long[256];

        void add(byte[] source, int at, int length, long oldOffset) {
            if (size + length > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + length));
            }
            if (count == starts.length) {
                starts = Arrays.copyOf(starts, count * 2);
                lengths = Arrays.copyOf(lengths, count * 2);
                oldOffsets = Arrays.copyOf(oldOffsets, count * 2);
            }
            System.arraycopy(source, at, bytes, size, length);
            starts[count] = size;
            lengths[count] = length;
            oldOffsets[count] = oldOffset;
            size += length;
            count++;
        }

        void clear() {
            size = 0;
            count = 0;
        }
    }

    private static final class LongList {
        long[] values = new long[16];
        int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] sorted() {
            long[] result = Arrays.copyOf(values, size);
            Arrays.sort(result);
            return result;
        }
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Stops background work, finishes a compaction that is due if it copies at most 4 MB of
     * live records (segments holding only garbage are deleted whatever their size; a larger
     * compaction is left to the background maintenance of the next open), writes a checkpoint
     * if anything changed since the last one (so that the next open replays nothing), and
     * releases the files and the lock. Idempotent.
     *
     * @throws StorageException if the final checkpoint cannot be written; the backend is
     *         closed all the same, and the data is safe in the log
     */
    @Override
    public void close() {
        if (!closeCalled.compareAndSet(false, true)) {
            return;
        }
        closing = true;
        maintenance.shutdown();
        try {
            if (!maintenance.awaitTermination(10, TimeUnit.MINUTES)) {
                LOG.log(System.Logger.Level.WARNING, "background maintenance of " + location + " did not stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        PersistentStoreException error = null;
        maintenanceLock.lock();
        try {
            if (!closed && options.autoCompact()) {
                try {
                    compactSegments(options.garbageRatio(), false, true);
                } catch (PersistentStoreException e) {
                    if (closed) {
                        throw e;
                    }
                    // Damaged data or a full disk: nothing was deleted, and the next open tries again.
                    LOG.log(System.Logger.Level.WARNING, "closing " + location + " without compacting it", e);
                }
            }
            if (!closed) {
                boolean changed;
                commitLock.lock();
                try {
                    changed = seq != checkpointSeq || active.number != checkpointSegment;
                } finally {
                    commitLock.unlock();
                }
                if (changed) {
                    writeCheckpoint();
                }
            }
        } catch (PersistentStoreException e) {
            // A checkpoint file that could not be written (a full disk) loses nothing: the log
            // was synced and keeps every commit; the next open replays it.
            if (closed) {
                error = e;
            } else {
                LOG.log(System.Logger.Level.WARNING, "closing " + location + " without a new checkpoint", e);
            }
        } finally {
            maintenanceLock.unlock();
            releaseResources();
        }
        if (error != null && !(error instanceof StoreClosedException)) {
            throw error;
        }
    }

    /** Latches the backend closed after a fatal error and returns the exception to throw. */
    private StorageException fail(String message, Throwable cause) {
        StorageException e = StorageException.closedAfter(message, cause);
        if (failure == null) {
            failure = e;
        }
        LOG.log(System.Logger.Level.ERROR, message, cause);
        releaseResources();
        return e;
    }

    private void releaseResources() {
        commitLock.lock();
        try {
            ReentrantReadWriteLock.WriteLock write = stateLock.writeLock();
            write.lock();
            try {
                closed = true;
                closeQuietly(writer);
                writer = null;
                for (Segment s : segments.values()) {
                    s.close();
                }
                lock.close();
            } finally {
                write.unlock();
            }
        } finally {
            commitLock.unlock();
        }
        maintenance.shutdown();
    }

    private void ensureOpen() {
        if (closed) {
            throw new StoreClosedException(location, failure);
        }
    }

    private static void closeQuietly(FileIO.WriteHandle handle) {
        if (handle != null) {
            try {
                handle.close();
            } catch (IOException ignored) {
                // Nothing more can be done about it.
            }
        }
    }

    @Override
    public String toString() {
        return "FileBackend[" + location + (closed ? ", closed" : "") + "]";
    }
}
