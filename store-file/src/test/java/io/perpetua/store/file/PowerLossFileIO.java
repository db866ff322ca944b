package io.perpetua.store.file;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A file layer that loses power at the n-th sync: that sync and every later write or sync
 * throw, and {@link #image} then builds what the disk could hold afterwards. Writes since a log
 * file's last completed sync may have reached the device in any order and in any part, page by
 * page; everything synced is there. Files other than segments are written, synced and renamed
 * before use, and directory changes are synced when made, so they are taken as they are.
 */
final class PowerLossFileIO implements FileIO {
    static final int PAGE = 4096;

    /** One write not yet covered by a sync, with what it overwrote. */
    private record Pending(long position, byte[] written, byte[] overwritten, long lengthBefore) {
    }

    private final Map<Path, List<Pending>> pending = new LinkedHashMap<>();
    private int syncsLeft;
    private boolean lost;

    /** @param lossAtSync the sync that never completes, counted from 1; 0 for none */
    PowerLossFileIO(int lossAtSync) {
        this.syncsLeft = lossAtSync;
    }

    synchronized boolean lost() {
        return lost;
    }

    /** Which parts of the writes in flight at the loss reached the device. */
    interface Survivors {
        /**
         * @param position where the write began in its file
         * @param index the write's place among its file's writes in flight, from 0
         * @param page the offset of one of its pages ({@link #PAGE} bytes, aligned in the file)
         */
        boolean reached(long position, int index, long page);
    }

    /**
     * Copies {@code live} (not its lock file) to {@code to} as the device may hold it after the
     * loss: the synced state, and of the writes in flight the pages {@code survivors} names.
     */
    synchronized void image(Path live, Path to, Survivors survivors) {
        Stores.copy(live, to);
        try {
            for (Map.Entry<Path, List<Pending>> e : pending.entrySet()) {
                Path file = to.resolve(e.getKey().getFileName());
                List<Pending> writes = e.getValue();
                if (writes.isEmpty() || !Files.exists(file)) {
                    continue;
                }
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    for (int i = writes.size() - 1; i >= 0; i--) { // back to the last synced state
                        Pending w = writes.get(i);
                        f.seek(w.position);
                        f.write(w.overwritten);
                    }
                    f.setLength(writes.get(0).lengthBefore);
                    for (int i = 0; i < writes.size(); i++) {
                        Pending w = writes.get(i);
                        long end = w.position + w.written.length;
                        for (long page = w.position / PAGE * PAGE; page < end; page += PAGE) {
                            if (survivors.reached(w.position, i, page)) {
                                long from = Math.max(page, w.position);
                                long until = Math.min(page + PAGE, end);
                                f.seek(from);
                                f.write(w.written, (int) (from - w.position), (int) (until - from));
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private synchronized void sync(Path path, WriteHandle real) throws IOException {
        checkPower();
        if (--syncsLeft == 0) {
            lost = true;
            throw new IOException("simulated power loss during the sync of " + path.getFileName());
        }
        real.sync();
        pending.remove(path);
    }

    private synchronized void write(Path path, long position, byte[] b, int off, int len) throws IOException {
        checkPower();
        byte[] overwritten = new byte[0];
        long length;
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "r")) {
            length = f.length();
            if (position < length) {
                overwritten = new byte[(int) Math.min(len, length - position)];
                f.seek(position);
                f.readFully(overwritten);
            }
        }
        byte[] written = new byte[len];
        System.arraycopy(b, off, written, 0, len);
        pending.computeIfAbsent(path, p -> new ArrayList<>()).add(new Pending(position, written, overwritten, length));
    }

    private synchronized void checkPower() throws IOException {
        if (lost) {
            throw new IOException("the power is off");
        }
    }

    @Override
    public WriteHandle open(Path path, boolean log) throws IOException {
        WriteHandle real = FileIO.DEFAULT.open(path, log);
        return new ForwardingWriteHandle(real) {
            @Override
            public void write(long position, byte[] b, int off, int len) throws IOException {
                if (log) {
                    PowerLossFileIO.this.write(path, position, b, off, len);
                } else {
                    checkPower();
                }
                real.write(position, b, off, len);
            }

            @Override
            public void sync() throws IOException {
                PowerLossFileIO.this.sync(path, real);
            }

            @Override
            public void truncate(long size) throws IOException {
                checkPower();
                real.truncate(size);
            }
        };
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        checkPower();
        FileIO.DEFAULT.syncDirectory(dir);
    }
}
