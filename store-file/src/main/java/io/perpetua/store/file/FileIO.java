package io.perpetua.store.file;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How the store writes files: the seam where tests inject I/O failures (H2's pluggable file
 * store, reduced to what this backend needs). Reads do not go through it.
 */
interface FileIO {

    /** The real file system. */
    FileIO DEFAULT = new FileIO() {
    };

    /**
     * Opens a file for positional writes, creating it if needed.
     *
     * @param path the file
     * @param log true for a segment file (log records are written to it), false for the others
     */
    default WriteHandle open(Path path, boolean log) throws IOException {
        return new RandomAccessWriteHandle(path);
    }

    /** Makes the creation, rename and deletion of files in {@code dir} durable. */
    default void syncDirectory(Path dir) throws IOException {
        if (File.separatorChar == '\\') {
            return; // Windows cannot open a directory; NTFS journals its metadata.
        }
        // A FileChannel closes when its thread is interrupted: a commit that begins a segment on
        // a thread of a cancelled task would close the store. The interrupt is set again after.
        boolean interrupted = Thread.interrupted();
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A file open for writing. Used by one thread at a time. */
    interface WriteHandle extends Closeable {
        /** Writes all of {@code b[off, off + len)} at {@code position}. */
        void write(long position, byte[] b, int off, int len) throws IOException;

        /** Forces everything written so far to the device (fsync). */
        void sync() throws IOException;

        void truncate(long size) throws IOException;

        long size() throws IOException;
    }

    /**
     * Writes through {@link RandomAccessFile}, which, unlike a {@code FileChannel}, is not closed
     * when the writing thread is interrupted: an interrupt cannot turn into a fatal error.
     */
    final class RandomAccessWriteHandle implements WriteHandle {
        /** The JDK copies each write through a native buffer of this size at most. */
        private static final int CHUNK = 1 << 20;
        private final RandomAccessFile file;

        RandomAccessWriteHandle(Path path) throws IOException {
            this.file = new RandomAccessFile(path.toFile(), "rw");
        }

        @Override
        public void write(long position, byte[] b, int off, int len) throws IOException {
            file.seek(position);
            while (len > 0) {
                int n = Math.min(len, CHUNK);
                file.write(b, off, n);
                off += n;
                len -= n;
            }
        }

        @Override
        public void sync() throws IOException {
            file.getFD().sync();
        }

        @Override
        public void truncate(long size) throws IOException {
            file.setLength(size);
        }

        @Override
        public long size() throws IOException {
            return file.length();
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
