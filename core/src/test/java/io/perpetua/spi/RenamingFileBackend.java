package io.perpetua.spi;

import io.perpetua.CorruptStoreException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A deliberately simple disk backend for testing the test tools themselves (the contract suite
 * and {@link CrashHarness}): every commit rewrites the whole store into a temporary file,
 * forces it to disk and renames it over the old one, so a commit is atomic and durable by the
 * atomicity of {@code rename}. Costs O(store) per commit: not for real use.
 *
 * <p>Thread-safe: reads see an immutable snapshot, commits and allocations are serialized.
 */
final class RenamingFileBackend implements Backend {
    private static final int MAGIC = 0x50524e46; // "PRNF"

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private volatile Data data;
    private volatile boolean closed;
    private long nextId; // guarded by this
    private int failAfter = -1; // guarded by this
    private long tornCommitPauseMillis = -1; // guarded by this

    /** An immutable state of the store. */
    private record Data(Map<Long, byte[]> records, TreeMap<String, Long> names, Map<Integer, byte[]> descriptors) {
    }

    private RenamingFileBackend(Path dir, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /** Opens (creating if needed) the store in {@code dir}. */
    static RenamingFileBackend open(Path dir) {
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new StoreLockedException(dir.toString(), null);
            }
            RenamingFileBackend backend = new RenamingFileBackend(dir, channel, lock);
            backend.load();
            return backend;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StorageException("cannot open " + dir, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** Opens the store such that its next commit fails after {@code operations} operations. */
    static RenamingFileBackend openFailingAfter(Path dir, int operations) {
        RenamingFileBackend backend = open(dir);
        backend.failAfter = operations;
        return backend;
    }

    /**
     * Opens the store broken on purpose, to prove that {@link CrashHarness} notices: each commit
     * first writes a state with only the write set's puts applied, pauses, and only then
     * writes the whole state. A kill in the pause leaves a transaction present in part.
     */
    static RenamingFileBackend openTorn(Path dir, long pauseMillis) {
        RenamingFileBackend backend = open(dir);
        backend.tornCommitPauseMillis = pauseMillis;
        return backend;
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Already failing.
            }
        }
    }

    private void load() throws IOException {
        Map<Long, byte[]> records = new HashMap<>();
        TreeMap<String, Long> names = new TreeMap<>();
        Map<Integer, byte[]> descriptors = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(dir.resolve("state"))))) {
            if (in.readInt() != MAGIC) {
                throw new CorruptStoreException(dir.resolve("state").toString(), "not a store", null);
            }
            for (int i = in.readInt(); i > 0; i--) {
                records.put(in.readLong(), readBytes(in));
            }
            for (int i = in.readInt(); i > 0; i--) {
                names.put(in.readUTF(), in.readLong());
            }
            for (int i = in.readInt(); i > 0; i--) {
                descriptors.put(in.readInt(), readBytes(in));
            }
        } catch (NoSuchFileException e) {
            // A new store.
        } catch (java.io.EOFException e) {
            throw new CorruptStoreException(dir.resolve("state").toString(), "truncated", e);
        }
        try (DataInputStream in = new DataInputStream(Files.newInputStream(dir.resolve("ids")))) {
            nextId = in.readLong();
        } catch (NoSuchFileException e) {
            nextId = 1;
        }
        data = new Data(records, names, descriptors);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    @Override
    public byte[] read(long id) {
        checkOpen();
        byte[] record = data.records().get(id);
        return record == null ? null : record.clone();
    }

    @Override
    public byte[][] readMany(long[] ids) {
        checkOpen();
        Data d = data;
        byte[][] result = new byte[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            byte[] record = d.records().get(ids[i]);
            result[i] = record == null ? null : record.clone();
        }
        return result;
    }

    @Override
    public long[] recordIds() {
        checkOpen();
        return data.records().keySet().stream().mapToLong(Long::longValue).toArray();
    }

    @Override
    public long lookup(String name) {
        checkOpen();
        Long id = data.names().get(name);
        return id == null ? 0 : id;
    }

    @Override
    public SortedMap<String, Long> names() {
        checkOpen();
        return new TreeMap<>(data.names());
    }

    @Override
    public Map<Integer, byte[]> classDescriptors() {
        checkOpen();
        Map<Integer, byte[]> copy = new HashMap<>();
        data.descriptors().forEach((id, bytes) -> copy.put(id, bytes.clone()));
        return copy;
    }

    @Override
    public synchronized long allocateIds(int count) {
        checkOpen();
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        long first = nextId;
        try {
            replace("ids", out -> out.writeLong(first + count));
        } catch (IOException e) {
            throw new StorageException("cannot allocate ids in " + dir, e);
        }
        nextId = first + count;
        return first;
    }

    @Override
    public synchronized void commit(WriteSet writes) {
        checkOpen();
        int fail = failAfter;
        failAfter = -1;
        Data old = data;
        Map<Long, byte[]> records = new HashMap<>(old.records());
        TreeMap<String, Long> names = new TreeMap<>(old.names());
        Map<Integer, byte[]> descriptors = new HashMap<>(old.descriptors());
        int applied = 0;
        for (Map.Entry<Long, byte[]> e : writes.puts().entrySet()) {
            applied = count(applied, fail);
            records.put(e.getKey(), e.getValue().clone());
        }
        if (tornCommitPauseMillis >= 0) {
            try {
                write(records, old.names(), old.descriptors());
                Thread.sleep(tornCommitPauseMillis);
            } catch (IOException | InterruptedException e) {
                throw new StorageException("torn commit failed", e);
            }
        }
        for (Long id : writes.deletes()) {
            applied = count(applied, fail);
            records.remove(id);
        }
        for (Map.Entry<String, Long> e : writes.binds().entrySet()) {
            applied = count(applied, fail);
            names.put(e.getKey(), e.getValue());
        }
        for (String name : writes.unbinds()) {
            applied = count(applied, fail);
            names.remove(name);
        }
        for (Map.Entry<Integer, byte[]> e : writes.classDescriptors().entrySet()) {
            applied = count(applied, fail);
            descriptors.put(e.getKey(), e.getValue().clone());
        }
        if (fail >= 0) {
            throw new StorageException("injected failure at the end of a commit to " + dir, null);
        }
        try {
            write(records, names, descriptors);
        } catch (IOException e) {
            throw new StorageException("cannot commit to " + dir, e);
        }
        data = new Data(records, names, descriptors);
    }

    private void write(Map<Long, byte[]> records, Map<String, Long> names, Map<Integer, byte[]> descriptors)
            throws IOException {
        replace("state", out -> {
            out.writeInt(MAGIC);
            out.writeInt(records.size());
            for (Map.Entry<Long, byte[]> e : records.entrySet()) {
                out.writeLong(e.getKey());
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
            out.writeInt(names.size());
            for (Map.Entry<String, Long> e : names.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue());
            }
            out.writeInt(descriptors.size());
            for (Map.Entry<Integer, byte[]> e : descriptors.entrySet()) {
                out.writeInt(e.getKey());
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
        });
    }

    private int count(int applied, int fail) {
        if (applied == fail) {
            throw new StorageException("injected failure after " + fail + " operations of a commit to " + dir, null);
        }
        return applied + 1;
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    /** Writes a file aside, forces it, and renames it over {@code name}. */
    private void replace(String name, Writer writer) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        try (FileOutputStream file = new FileOutputStream(tmp.toFile());
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(file, 1 << 16))) {
            writer.write(out);
            out.flush();
            file.getFD().sync();
        }
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public BackendStatistics statistics() {
        checkOpen();
        Data d = data;
        long bytes;
        try {
            bytes = Files.size(dir.resolve("state"));
        } catch (IOException e) {
            bytes = 0;
        }
        return new BackendStatistics(d.records().size(), d.names().size(), bytes);
    }

    @Override
    public String location() {
        checkOpen();
        return "renaming-file:" + dir;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            throw new StorageException("cannot release the lock of " + dir, e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreClosedException("renaming-file:" + dir);
        }
    }
}
