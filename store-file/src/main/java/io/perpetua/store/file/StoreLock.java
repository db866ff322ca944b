package io.perpetua.store.file;

import io.perpetua.StorageException;
import io.perpetua.StoreLockedException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock that keeps a second process (and a second open in this JVM) away from a store: an
 * OS file lock ({@link FileChannel#tryLock()}) on the file {@code LOCK}. The operating system
 * drops the lock when the process dies, however it dies, so a lock left by a killed process
 * never blocks the next open; the file itself stays (deleting it would race with an opener).
 * The file holds the owner's process id, for the message a second opener gets.
 *
 * <p>Opens in this JVM are checked first against a set of open directories, before the lock
 * file is touched: on POSIX systems closing any descriptor of a file drops every lock this
 * process holds on it, so a failed second open must never open and close the lock file.
 */
final class StoreLock implements AutoCloseable {
    static final String FILE = "LOCK";
    private static final Set<Path> OPEN_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean released;

    private StoreLock(Path key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * @param dir the store directory, existing
     * @param location the store's location, for messages
     * @throws StoreLockedException if the store is open elsewhere
     */
    static StoreLock acquire(Path dir, String location) {
        Path key;
        try {
            key = dir.toRealPath();
        } catch (IOException e) {
            throw new StorageException("cannot resolve the store directory " + dir, e);
        }
        if (!OPEN_IN_THIS_JVM.add(key)) {
            throw new StoreLockedException(location, new IllegalStateException(
                    "the store is already open in this JVM; close the other backend first"));
        }
        FileChannel channel = null;
        boolean acquired = false;
        try {
            channel = FileChannel.open(key.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Another class loader of this JVM holds it; keep our descriptor open (see above).
                channel = null;
                throw new StoreLockedException(location, e);
            }
            if (lock == null) {
                throw new StoreLockedException(location, new IllegalStateException(
                        "the lock file " + key.resolve(FILE) + " is held by " + owner(channel)));
            }
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(pid), 0);
            StoreLock result = new StoreLock(key, channel, lock);
            acquired = true;
            return result;
        } catch (IOException e) {
            throw new StorageException("cannot lock the store at " + location, e);
        } finally {
            if (!acquired) {
                OPEN_IN_THIS_JVM.remove(key);
                if (channel != null) {
                    try {
                        channel.close();
                    } catch (IOException ignored) {
                        // Nothing was locked through it.
                    }
                }
            }
        }
    }

    private static String owner(FileChannel channel) {
        try {
            ByteBuffer b = ByteBuffer.allocate(32);
            channel.read(b, 0);
            String text = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
            return text.matches("\\d+") ? "process " + text : "another process";
        } catch (IOException e) {
            return "another process";
        }
    }

    @Override
    public synchronized void close() {
        if (released) {
            return;
        }
        released = true;
        try {
            lock.release();
        } catch (IOException ignored) {
            // Closing the channel releases it as well.
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // The lock is gone with the descriptor.
        } finally {
            OPEN_IN_THIS_JVM.remove(key);
        }
    }
}
