package io.perpetua.store.file;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One segment file, as the readers see it: a channel for positional reads (shared by all
 * reader threads, which therefore never contend for a file position) and the space figures
 * compaction decides on.
 *
 * <p>{@link #length} and {@link #liveBytes} are guarded by the backend's state lock (written
 * with the commit lock held as well); the channel is managed here.
 */
final class Segment {
    private static final int READ_CHUNK = 1 << 20;

    final int number;
    final Path path;
    /** The bytes of this segment the store uses: header and committed records. */
    long length;
    /** The bytes of the records the index points to. */
    long liveBytes;
    /** Being compacted away: left out of checkpoints. */
    boolean retiring;
    /** A compaction of this segment failed (damaged data): do not retry automatically. */
    boolean compactionFailed;

    private FileChannel channel;
    private boolean closed;

    Segment(int number, Path path, long length, long liveBytes) {
        this.number = number;
        this.path = path;
        this.length = length;
        this.liveBytes = liveBytes;
    }

    String name() {
        return Format.segmentName(number);
    }

    /** @return the bytes this segment holds that no index entry points to */
    long garbage() {
        return Math.max(0, length - Format.HEADER_SIZE - liveBytes);
    }

    private synchronized FileChannel channel() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (channel == null || !channel.isOpen()) {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        }
        return channel;
    }

    /**
     * Reads {@code dst.length} bytes at {@code position}. If another thread's interrupt closed
     * the shared channel under this read, reopens it and goes on; an interrupt of this thread
     * ends the read with {@link ClosedByInterruptException}.
     *
     * @throws EOFException if the file ends first
     */
    void read(byte[] dst, int off, int len, long position) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(dst, off, len);
        int retries = 0;
        int done;
        while ((done = buffer.position() - off) < len) {
            // Bounded slices: the JDK reads through a temporary native buffer of the slice's size.
            buffer.limit(off + Math.min(len, done + READ_CHUNK));
            try {
                int n = channel().read(buffer, position + done);
                if (n < 0) {
                    throw new EOFException(name() + " ends at " + (position + done) + ", before "
                            + (position + len));
                }
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (ClosedChannelException e) {
                if (Thread.currentThread().isInterrupted() || ++retries > 3 || isClosed()) {
                    throw e;
                }
            }
        }
    }

    /** @return the file's current size on disk */
    long fileSize() throws IOException {
        return channel().size();
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    synchronized void close() {
        closed = true;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // A read-only channel has nothing to lose.
            }
            channel = null;
        }
    }

    @Override
    public String toString() {
        return name() + "[length=" + length + ", live=" + liveBytes + "]";
    }
}
