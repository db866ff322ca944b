package io.perpetua.store.file;

import io.perpetua.CorruptStoreException;
import io.perpetua.UnsupportedStoreFormatException;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Opens a store directory: loads the checkpoint, replays the log after it, and cuts a torn tail.
 * One use per open; not thread-safe.
 *
 * <h2>Torn tail or corruption</h2>
 * Every segment's header carries a "committed up to" length C (see {@link Format}), which
 * never reaches the disk before the records it covers and lags at most one synced commit
 * behind them. Replay reads records from the checkpoint's position on and applies a commit
 * when its COMMIT record arrives carrying the next sequence number and the right operation
 * count. When a record fails (bad checksum, impossible length, end of file inside a commit)
 * at offset X:
 * <ul>
 *   <li>if the last complete commit ends before C, committed data is damaged or missing:
 *       {@link CorruptStoreException} naming the segment file and X. Nothing is cut;</li>
 *   <li>otherwise what follows is a commit that was never acknowledged (it was in flight when
 *       the process or the machine died; or, if the power failed before the mark of the last
 *       synced commit was durable, that commit, damaged since): in the last segment it is cut
 *       off (the file is truncated); in an earlier segment (only possible after damage beyond
 *       C, for example bytes appended to the file) the scan goes on with the next segment,
 *       whose first commit must carry the next sequence number, so a lost commit is still
 *       caught.</li>
 * </ul>
 * Segments before the checkpoint's position are not read at open (that is what makes opening
 * fast); their records are checked one by one when they are read, and their sizes against the
 * checkpoint now.
 */
final class Recovery {
    private static final System.Logger LOG = System.getLogger(FileBackend.class.getName());

    /** What an open found. */
    static final class State {
        long storeId;
        long seq;
        long nextId;
        LongIndex index;
        final TreeMap<String, Long> names = new TreeMap<>();
        final Map<Integer, byte[]> descriptors = new HashMap<>();
        final TreeMap<Integer, Segment> segments = new TreeMap<>();
        Segment active;
        int checkpointSegment;
        long checkpointSeq;
        long checkpointFileSize;
        long replayedBytes;
        long cutBytes;
    }

    private final Path dir;
    private final FileIO io;
    private final State state = new State();

    private Recovery(Path dir, FileIO io) {
        this.dir = dir;
        this.io = io;
    }

    /**
     * @param dir an existing directory this process holds the lock of
     * @throws CorruptStoreException if the directory holds a damaged store
     * @throws IOException if the files cannot be read or the torn tail cannot be cut
     */
    static State open(Path dir, FileIO io) throws IOException {
        return new Recovery(dir, io).run();
    }

    private State run() throws IOException {
        TreeMap<Integer, Path> files = new TreeMap<>();
        boolean hasCheckpoint = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (name.equals(Checkpoint.TEMP)
                        || (name.endsWith(StoreFiles.TEMP_SUFFIX) && Format.segmentNumber(
                                name.substring(0, name.length() - StoreFiles.TEMP_SUFFIX.length())) > 0)) {
                    Files.deleteIfExists(p); // a file whose creation a crash interrupted; never used
                } else if (name.equals(Checkpoint.FILE)) {
                    hasCheckpoint = true;
                } else {
                    int n = Format.segmentNumber(name);
                    if (n > 0) {
                        files.put(n, p);
                    }
                }
            }
        }
        if (!hasCheckpoint) {
            return create(files);
        }
        Path checkpointPath = dir.resolve(Checkpoint.FILE);
        byte[] bytes = readFile(checkpointPath);
        Checkpoint checkpoint = Checkpoint.decode(bytes, checkpointPath.toString());
        state.storeId = checkpoint.storeId;
        state.seq = checkpoint.seq;
        state.nextId = checkpoint.nextId;
        state.checkpointSegment = checkpoint.replaySegment;
        state.checkpointSeq = checkpoint.seq;
        state.checkpointFileSize = bytes.length;
        names(checkpoint);
        coveredSegments(checkpoint, files);
        index(checkpoint, checkpointPath.toString());
        int last = files.lastKey();
        for (int n = checkpoint.replaySegment; n <= last; n++) {
            Path path = files.get(n);
            if (path == null) {
                throw new CorruptStoreException(dir.resolve(Format.segmentName(n)).toString(),
                        "the segment file is missing, but segment " + Format.segmentName(last) + " exists", null);
            }
            Segment segment = state.segments.get(n);
            if (segment == null) {
                segment = new Segment(n, path, Format.HEADER_SIZE, 0);
                state.segments.put(n, segment);
            }
            long start = n == checkpoint.replaySegment ? checkpoint.replayOffset : Format.HEADER_SIZE;
            replay(segment, start, n == last);
        }
        state.active = state.segments.get(last);
        return state;
    }

    /** A directory without a checkpoint: a new store (or one whose creation a crash cut short). */
    private State create(TreeMap<Integer, Path> files) throws IOException {
        for (Path p : files.values()) {
            if (Files.size(p) > Format.HEADER_SIZE) {
                throw new CorruptStoreException(dir.resolve(Checkpoint.FILE).toString(),
                        "the checkpoint file is missing, but " + p.getFileName() + " holds records", null);
            }
        }
        for (Path p : files.values()) {
            Files.delete(p);
        }
        long storeId;
        do {
            storeId = ThreadLocalRandom.current().nextLong();
        } while (storeId == 0);
        Segment first = StoreFiles.createSegment(dir, io, 1, storeId, 0);
        Checkpoint checkpoint = new Checkpoint();
        checkpoint.storeId = storeId;
        checkpoint.seq = 0;
        checkpoint.nextId = 1;
        checkpoint.replaySegment = 1;
        checkpoint.replayOffset = Format.HEADER_SIZE;
        checkpoint.segmentNumbers = new int[] {1};
        checkpoint.segmentLengths = new long[] {Format.HEADER_SIZE};
        checkpoint.segmentLive = new long[] {0};
        byte[] data = checkpoint.encode();
        StoreFiles.writeCheckpoint(dir, io, data);
        state.storeId = storeId;
        state.seq = 0;
        state.nextId = 1;
        state.index = new LongIndex(16);
        state.segments.put(1, first);
        state.active = first;
        state.checkpointSegment = 1;
        state.checkpointSeq = 0;
        state.checkpointFileSize = data.length;
        return state;
    }

    private void names(Checkpoint checkpoint) {
        state.names.putAll(checkpoint.names);
        state.descriptors.putAll(checkpoint.descriptors);
    }

    /** Checks the segments the checkpoint covers exist and are long enough; deletes orphans. */
    private void coveredSegments(Checkpoint checkpoint, TreeMap<Integer, Path> files) throws IOException {
        for (int i = 0; i < checkpoint.segmentNumbers.length; i++) {
            int n = checkpoint.segmentNumbers[i];
            Path path = files.get(n);
            String where = dir.resolve(Format.segmentName(n)).toString();
            if (path == null) {
                throw new CorruptStoreException(where, "the segment file is missing; the checkpoint needs its first "
                        + checkpoint.segmentLengths[i] + " bytes", null);
            }
            long size = Files.size(path);
            if (size < checkpoint.segmentLengths[i]) {
                throw new CorruptStoreException(where + " offset " + size, "the file is " + size
                        + " bytes long, but the checkpoint needs its first " + checkpoint.segmentLengths[i], null);
            }
            state.segments.put(n, new Segment(n, path, checkpoint.segmentLengths[i], checkpoint.segmentLive[i]));
        }
        if (!state.segments.containsKey(checkpoint.replaySegment)) {
            throw new CorruptStoreException(dir.resolve(Checkpoint.FILE).toString(),
                    "the checkpoint does not list the segment it starts replay in", null);
        }
        for (Map.Entry<Integer, Path> e : files.headMap(checkpoint.replaySegment).entrySet()) {
            if (!state.segments.containsKey(e.getKey())) {
                // Compacted away; the crash came between the checkpoint that dropped it and its deletion.
                LOG.log(System.Logger.Level.INFO, "deleting compacted segment " + e.getValue());
                Files.deleteIfExists(e.getValue());
            }
        }
        files.headMap(checkpoint.replaySegment).keySet().retainAll(state.segments.keySet());
    }

    private void index(Checkpoint checkpoint, String where) {
        long[] lengthOf = new long[checkpoint.replaySegment + 1];
        for (Segment s : state.segments.values()) {
            lengthOf[s.number] = s.length;
        }
        LongIndex index = LongIndex.withCapacity(checkpoint.capacity);
        for (int i = 0; i < checkpoint.entries; i++) {
            long id = checkpoint.ids[i];
            long location = checkpoint.locations[i];
            int length = checkpoint.lengths[i];
            int segment = Format.segmentOf(location);
            long offset = Format.offsetOf(location);
            if (id <= 0 || segment < 1 || segment >= lengthOf.length || length < Format.PUT_OVERHEAD
                    || offset < Format.HEADER_SIZE || offset + length > lengthOf[segment]) {
                throw new CorruptStoreException(where, "index entry " + i + " (object " + id
                        + ") points outside the store's segments", null);
            }
            index.put(id, location, length);
        }
        state.index = index;
    }

    // ---------------------------------------------------------------- replay

    private void replay(Segment segment, long start, boolean last) throws IOException {
        String where = segment.path.toString();
        try (FileChannel channel = FileChannel.open(segment.path, StandardOpenOption.READ)) {
            long size = channel.size();
            long committed = Math.max(header(channel, size, segment, last), start);
            Scan scan = new Scan(channel, size, segment);
            scan.run(start);
            if (scan.commitEnd < committed) {
                throw new CorruptStoreException(where + " offset " + scan.failedAt, scan.failure
                        + "; the segment is committed up to offset " + committed
                        + ", so this is damage to committed data, not a torn tail", null);
            }
            segment.length = scan.commitEnd;
            state.replayedBytes += scan.commitEnd - start;
            if (last && size > scan.commitEnd) {
                try (FileIO.WriteHandle out = io.open(segment.path, true)) {
                    out.truncate(scan.commitEnd);
                    out.sync();
                }
                state.cutBytes += size - scan.commitEnd;
                LOG.log(System.Logger.Level.INFO, "cut a torn tail of " + (size - scan.commitEnd) + " bytes at "
                        + where + " offset " + scan.commitEnd + " (" + scan.failure + ")");
            }
        }
    }

    /** Checks a segment's header; returns its committed length (the newer valid slot). */
    private long header(FileChannel channel, long size, Segment segment, boolean last) throws IOException {
        String where = segment.path.toString();
        if (size < Format.HEADER_SIZE) {
            throw new CorruptStoreException(where + " offset 0", "the file is " + size
                    + " bytes long, shorter than a segment header", null);
        }
        byte[] h = new byte[Format.HEADER_SIZE];
        readFully(channel, h, 0, h.length, 0);
        if (Format.getInt(h, 0) != Format.SEGMENT_MAGIC
                || Format.crc(h, 0, Format.FIXED_HEADER) != Format.getInt(h, Format.FIXED_HEADER)) {
            throw new CorruptStoreException(where + " offset 0", "damaged segment header", null);
        }
        if (Format.getInt(h, 4) > Format.VERSION) {
            throw new UnsupportedStoreFormatException(where, Format.NAME, Format.getInt(h, 4), Format.VERSION);
        }
        if (Format.getInt(h, 4) != Format.VERSION) {
            throw new CorruptStoreException(where + " offset 4", "unsupported format version " + Format.getInt(h, 4), null);
        }
        if (Format.getInt(h, 8) != segment.number || Format.getLong(h, 12) != state.storeId) {
            throw new CorruptStoreException(where + " offset 8", "the segment belongs to another store "
                    + "or carries another number", null);
        }
        long bestSeq = -1;
        long committed = -1;
        for (int slot = 0; slot < 2; slot++) {
            int off = Format.SLOT_BASE + slot * Format.SLOT_STRIDE;
            if (Format.crc(h, off, 16) == Format.getInt(h, off + 16)) {
                long seq = Format.getLong(h, off);
                long c = Format.getLong(h, off + 8);
                if (seq > bestSeq && c >= Format.HEADER_SIZE) {
                    bestSeq = seq;
                    committed = c;
                }
            }
        }
        if (committed < 0) {
            throw new CorruptStoreException(where + " offset " + Format.SLOT_BASE,
                    "both commit slots of the segment header are damaged", null);
        }
        int successor = Format.sealedSuccessor(h);
        if (last && successor > 0) {
            // Sealed only once its successor was durable: the newest segment file, and the
            // acknowledged commits in it, were deleted (or moved) since.
            throw new CorruptStoreException(dir.resolve(Format.segmentName(successor)).toString(),
                    "the segment file is missing, but " + segment.path.getFileName() + " was sealed when "
                    + Format.segmentName(successor) + " was begun, so that one held the newest commits; put it back,"
                    + " or restore the store from a backup", null);
        }
        return committed;
    }

    /**
     * Reads a whole file in slices: {@code Files.readAllBytes} would read a large checkpoint
     * through one temporary native buffer of its whole size (which the JDK then keeps).
     */
    private static byte[] readFile(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE - 16) {
                throw new CorruptStoreException(path.toString(), "a checkpoint of " + size + " bytes is impossible", null);
            }
            byte[] b = new byte[(int) size];
            for (int at = 0; at < b.length; at += 1 << 20) {
                readFully(channel, b, at, Math.min(1 << 20, b.length - at), at);
            }
            return b;
        }
    }

    static void readFully(FileChannel channel, byte[] b, int off, int len, long position) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position() - off) < 0) {
                throw new EOFException();
            }
        }
    }

    /** One pass over one segment's records. */
    private final class Scan {
        private final FileChannel channel;
        private final long size;
        private final Segment segment;
        private byte[] window = new byte[1 << 20];
        private long windowStart;
        private int windowLength;
        private final Pending pending = new Pending();
        long commitEnd;
        long failedAt;
        String failure;

        Scan(FileChannel channel, long size, Segment segment) {
            this.channel = channel;
            this.size = size;
            this.segment = segment;
        }

        /** @return where in {@link #window} the bytes {@code [pos, pos + n)} are, or -1 past the end */
        private int window(long pos, int n) throws IOException {
            if (pos + n > size) {
                return -1;
            }
            if (pos >= windowStart && pos + n <= windowStart + windowLength) {
                return (int) (pos - windowStart);
            }
            if (n > window.length) {
                window = new byte[n];
            }
            int want = (int) Math.min(window.length, size - pos);
            try {
                readFully(channel, window, 0, want, pos);
            } catch (EOFException e) {
                return -1; // the file shrank under us; treat like its end
            }
            windowStart = pos;
            windowLength = want;
            return 0;
        }

        void run(long start) throws IOException {
            long pos = start;
            commitEnd = start;
            long expectedSeq = state.seq + 1;
            while (true) {
                if (pos == size) {
                    if (pending.count > 0) {
                        fail(commitEnd, "the commit starting here is cut off by the end of the file at " + size);
                    } else {
                        fail(pos, "end of file");
                    }
                    return;
                }
                int at = window(pos, Format.RECORD_HEADER);
                if (at < 0) {
                    fail(pos, "a record header is cut off by the end of the file at " + size);
                    return;
                }
                int length = Format.getInt(window, at + 4);
                if (length < Format.RECORD_HEADER || length > size - pos) {
                    fail(pos, "impossible record length " + length);
                    return;
                }
                at = window(pos, length);
                if (at < 0) {
                    fail(pos, "a record is cut off by the end of the file at " + size);
                    return;
                }
                String bad = Format.check(window, at, length);
                if (bad != null) {
                    fail(pos, bad);
                    return;
                }
                byte type = window[at + 8];
                if (type == Format.COMMIT) {
                    long seq = Format.getLong(window, at + Format.RECORD_HEADER);
                    long nextId = Format.getLong(window, at + Format.RECORD_HEADER + 8);
                    int operations = Format.getInt(window, at + Format.RECORD_HEADER + 16);
                    if (seq != expectedSeq) {
                        fail(pos, "commit record number " + seq + " where number " + expectedSeq + " belongs");
                        return;
                    }
                    if (operations != pending.count) {
                        fail(pos, "commit record counts " + operations + " operations but " + pending.count
                                + " precede it");
                        return;
                    }
                    apply(nextId);
                    state.seq = seq;
                    expectedSeq++;
                    commitEnd = pos + length;
                } else {
                    pending.add(type, window, at, length, pos);
                }
                pos += length;
            }
        }

        private void fail(long at, String why) {
            failedAt = at;
            failure = why;
        }

        private void apply(long nextId) {
            Pending p = pending;
            LongIndex index = state.index;
            for (int i = 0; i < p.count; i++) {
                long id = p.ids[i];
                switch (p.types[i]) {
                    case Format.PUT -> {
                        release(index, id);
                        index.put(id, Format.location(segment.number, p.offsets[i]), p.lengths[i]);
                        segment.liveBytes += p.lengths[i];
                        if (id >= state.nextId && id < Long.MAX_VALUE) {
                            state.nextId = id + 1;
                        }
                    }
                    case Format.DELETE -> {
                        release(index, id);
                        index.remove(id);
                    }
                    case Format.BIND -> state.names.put((String) p.extra[i], id);
                    case Format.UNBIND -> state.names.remove((String) p.extra[i]);
                    case Format.CLASS -> state.descriptors.put((int) id, (byte[]) p.extra[i]);
                    default -> throw new IllegalStateException("record type " + p.types[i]);
                }
            }
            state.nextId = Math.max(state.nextId, nextId);
            p.clear();
        }

        private void release(LongIndex index, long id) {
            int slot = index.find(id);
            if (slot >= 0) {
                Segment old = state.segments.get(Format.segmentOf(index.location(slot)));
                if (old != null) {
                    old.liveBytes -= index.length(slot);
                }
            }
        }
    }

    /** The operations of the commit being read, until its COMMIT record arrives. */
    private static final class Pending {
        int count;
        byte[] types = new byte[64];
        long[] ids = new long[64];
        long[] offsets = new long[64];
        int[] lengths = new int[64];
        Object[] extra = new Object[64];

        void add(byte type, byte[] b, int at, int length, long position) {
            if (count == types.length) {
                int n = count * 2;
                types = Arrays.copyOf(types, n);
                ids = Arrays.copyOf(ids, n);
                offsets = Arrays.copyOf(offsets, n);
                lengths = Arrays.copyOf(lengths, n);
                extra = Arrays.copyOf(extra, n);
            }
            int body = at + Format.RECORD_HEADER;
            types[count] = type;
            offsets[count] = position;
            lengths[count] = length;
            switch (type) {
                case Format.PUT, Format.DELETE -> ids[count] = Format.getLong(b, body);
                case Format.BIND -> {
                    ids[count] = Format.getLong(b, body);
                    extra[count] = new String(b, body + 8, length - Format.RECORD_HEADER - 8, StandardCharsets.UTF_8);
                }
                case Format.UNBIND -> extra[count] = new String(b, body, length - Format.RECORD_HEADER,
                        StandardCharsets.UTF_8);
                case Format.CLASS -> {
                    ids[count] = Format.getInt(b, body);
                    extra[count] = Arrays.copyOfRange(b, body + 4, at + length);
                }
                default -> throw new IllegalStateException("record type " + type);
            }
            count++;
        }

        void clear() {
            Arrays.fill(extra, 0, count, null);
            count = 0;
        }
    }
}
