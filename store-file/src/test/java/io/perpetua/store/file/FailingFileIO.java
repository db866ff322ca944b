package io.perpetua.store.file;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file layer whose first commit with operations fails half-written: the records of the first
 * {@code operations} operations reach the file, then the write throws. The torn commit is
 * really on disk; recovery must cut it.
 */
final class FailingFileIO implements FileIO {
    private final int operations;
    private boolean fired;

    FailingFileIO(int operations) {
        this.operations = operations;
    }

    synchronized boolean fired() {
        return fired;
    }

    @Override
    public WriteHandle open(Path path, boolean log) throws IOException {
        WriteHandle real = FileIO.DEFAULT.open(path, log);
        if (!log) {
            return real;
        }
        return new ForwardingWriteHandle(real) {
            @Override
            public void write(long position, byte[] b, int off, int len) throws IOException {
                int cut = -1;
                synchronized (FailingFileIO.this) {
                    if (!fired && position >= Format.HEADER_SIZE) {
                        cut = cutPoint(b, off, len);
                        if (cut >= 0) {
                            fired = true;
                        }
                    }
                }
                if (cut < 0) {
                    real.write(position, b, off, len);
                    return;
                }
                real.write(position, b, off, cut);
                throw new IOException("injected failure after " + operations + " operation(s), " + cut
                        + " of " + len + " bytes written");
            }
        };
    }

    /**
     * @return how many bytes to write before failing: the end of the {@code operations}-th
     *         operation record, or -1 if this write is not a commit with operations
     */
    private int cutPoint(byte[] b, int off, int len) {
        int at = off;
        int seen = 0;
        int cut = -1;
        while (at + Format.RECORD_HEADER <= off + len) {
            int length = Format.getInt(b, at + 4);
            if (b[at + 8] == Format.COMMIT) {
                break;
            }
            if (seen == operations) {
                cut = at - off;
            }
            seen++;
            at += length;
        }
        if (seen == 0) {
            return -1; // an id allocation: no operations
        }
        return cut >= 0 ? cut : at - off; // fewer operations than the budget: fail before the commit record
    }
}
