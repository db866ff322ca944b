package io.perpetua.store.file;

import io.perpetua.CorruptStoreException;
import io.perpetua.UnsupportedStoreFormatException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A checkpoint: the whole index, the names, the class descriptors and the id high-water mark as
 * of one position in the log, so that opening reads this one compact file sequentially and
 * replays only the log after that position (Bitcask's hint file, taken to the whole state).
 * Written to {@code checkpoint.tmp}, synced, and renamed over {@code checkpoint}: a crash leaves
 * either the old or the new one.
 *
 * <pre>
 * int magic "PCKP", int version, long store id, long seq, long next id,
 * int replay segment, long replay offset,
 * int n, n * (int segment number, long length, long live bytes)
 * int n, n * (int descriptor id, int length, bytes)
 * int n, n * (int length, UTF-8 name, long id)
 * int n, int table capacity, long[n] ids, long[n] locations, int[n] lengths
 * int CRC32C of everything before it
 * </pre>
 * The index arrays are written in hash-table order with the table's capacity, so that reloading
 * into a table of that capacity inserts them in slot order: each lands in (or right after) the
 * slot it had, and the table is filled front to back instead of at random. The arrays are
 * read with bulk copies. Both keep opening the OO1 large store (1.4 million entries) fast.
 */
final class Checkpoint {
    static final String FILE = "checkpoint";
    static final String TEMP = "checkpoint.tmp";

    long storeId;
    long seq;
    long nextId;
    int replaySegment;
    long replayOffset;
    int[] segmentNumbers = new int[0];
    long[] segmentLengths = new long[0];
    long[] segmentLive = new long[0];
    Map<Integer, byte[]> descriptors = new HashMap<>();
    TreeMap<String, Long> names = new TreeMap<>();
    int entries;
    int capacity = 16;
    long[] ids = new long[0];
    long[] locations = new long[0];
    int[] lengths = new int[0];

    /** Fills the index part from a snapshot of the index, skipping empty slots. */
    void index(LongIndex.Snapshot snapshot) {
        entries = snapshot.size();
        capacity = snapshot.keys().length;
        ids = new long[entries];
        locations = new long[entries];
        lengths = new int[entries];
        int n = 0;
        long[] keys = snapshot.keys();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                ids[n] = keys[i];
                locations[n] = snapshot.locations()[i];
                lengths[n] = snapshot.lengths()[i];
                n++;
            }
        }
    }

    byte[] encode() {
        Map<String, byte[]> encodedNames = new TreeMap<>();
        long size = 4 + 4 + 8 + 8 + 8 + 4 + 8;
        size += 4 + (long) segmentNumbers.length * 20;
        size += 4;
        for (byte[] d : descriptors.values()) {
            size += 8 + d.length;
        }
        size += 4;
        for (String name : names.keySet()) {
            byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
            encodedNames.put(name, utf8);
            size += 4 + utf8.length + 8;
        }
        size += 8 + (long) entries * 20 + 4;
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("checkpoint too large: " + size + " bytes");
        }
        byte[] b = new byte[(int) size];
        int at = 0;
        Format.putInt(b, at, Format.CHECKPOINT_MAGIC);
        Format.putInt(b, at + 4, Format.VERSION);
        Format.putLong(b, at + 8, storeId);
        Format.putLong(b, at + 16, seq);
        Format.putLong(b, at + 24, nextId);
        Format.putInt(b, at + 32, replaySegment);
        Format.putLong(b, at + 36, replayOffset);
        at += 44;
        Format.putInt(b, at, segmentNumbers.length);
        at += 4;
        for (int i = 0; i < segmentNumbers.length; i++) {
            Format.putInt(b, at, segmentNumbers[i]);
            Format.putLong(b, at + 4, segmentLengths[i]);
            Format.putLong(b, at + 12, segmentLive[i]);
            at += 20;
        }
        Format.putInt(b, at, descriptors.size());
        at += 4;
        for (Map.Entry<Integer, byte[]> e : new TreeMap<>(descriptors).entrySet()) {
            Format.putInt(b, at, e.getKey());
            Format.putInt(b, at + 4, e.getValue().length);
            System.arraycopy(e.getValue(), 0, b, at + 8, e.getValue().length);
            at += 8 + e.getValue().length;
        }
        Format.putInt(b, at, names.size());
        at += 4;
        for (Map.Entry<String, Long> e : names.entrySet()) {
            byte[] utf8 = encodedNames.get(e.getKey());
            Format.putInt(b, at, utf8.length);
            System.arraycopy(utf8, 0, b, at + 4, utf8.length);
            Format.putLong(b, at + 4 + utf8.length, e.getValue());
            at += 12 + utf8.length;
        }
        Format.putInt(b, at, entries);
        Format.putInt(b, at + 4, capacity);
        at += 8;
        ByteBuffer buffer = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        buffer.position(at);
        buffer.asLongBuffer().put(ids, 0, entries);
        at += entries * 8;
        buffer.position(at);
        buffer.asLongBuffer().put(locations, 0, entries);
        at += entries * 8;
        buffer.position(at);
        buffer.asIntBuffer().put(lengths, 0, entries);
        at += entries * 4;
        Format.putInt(b, at, Format.crc(b, 0, at));
        return b;
    }

    /**
     * Decodes a checkpoint file's bytes, checking every count against the bytes left before
     * allocating anything, so that a damaged file gives a {@link CorruptStoreException} and never
     * another exception or a huge allocation.
     *
     * @param where the file, for messages
     */
    static Checkpoint decode(byte[] b, String where) {
        if (b.length < 4 + 4 + 8 + 8 + 8 + 4 + 8 + 4 * 4 + 4) {
            throw corrupt(where, 0, "file is too short (" + b.length + " bytes) to be a checkpoint");
        }
        int end = b.length - 4;
        if (Format.getInt(b, 0) != Format.CHECKPOINT_MAGIC) {
            throw corrupt(where, 0, "not a checkpoint file (bad magic)");
        }
        if (Format.crc(b, 0, end) != Format.getInt(b, end)) {
            throw corrupt(where, end, "checksum mismatch over the whole checkpoint");
        }
        if (Format.getInt(b, 4) > Format.VERSION) {
            throw new UnsupportedStoreFormatException(where, Format.NAME, Format.getInt(b, 4), Format.VERSION);
        }
        if (Format.getInt(b, 4) != Format.VERSION) {
            throw corrupt(where, 4, "unsupported format version " + Format.getInt(b, 4));
        }
        Checkpoint c = new Checkpoint();
        Reader r = new Reader(b, end, where);
        r.at = 8;
        c.storeId = r.getLong();
        c.seq = r.getLong();
        c.nextId = r.getLong();
        c.replaySegment = r.getInt();
        c.replayOffset = r.getLong();
        if (c.seq < 0 || c.nextId < 1 || c.replaySegment < 1 || c.replaySegment > Format.MAX_SEGMENT
                || c.replayOffset < Format.HEADER_SIZE || c.replayOffset > Format.OFFSET_MASK) {
            throw corrupt(where, 16, "impossible header values");
        }
        int segments = r.count(20);
        c.segmentNumbers = new int[segments];
        c.segmentLengths = new long[segments];
        c.segmentLive = new long[segments];
        for (int i = 0; i < segments; i++) {
            c.segmentNumbers[i] = r.getInt();
            c.segmentLengths[i] = r.getLong();
            c.segmentLive[i] = r.getLong();
            if (c.segmentNumbers[i] < 1 || c.segmentNumbers[i] > c.replaySegment
                    || c.segmentLengths[i] < Format.HEADER_SIZE || c.segmentLengths[i] > Format.OFFSET_MASK
                    || c.segmentLive[i] < 0 || c.segmentLive[i] > c.segmentLengths[i]) {
                throw corrupt(where, r.at - 20, "impossible segment entry");
            }
        }
        int descriptors = r.count(8);
        for (int i = 0; i < descriptors; i++) {
            int id = r.getInt();
            byte[] bytes = r.bytes(r.getInt());
            c.descriptors.put(id, bytes);
        }
        int names = r.count(12);
        for (int i = 0; i < names; i++) {
            String name = new String(r.bytes(r.getInt()), StandardCharsets.UTF_8);
            c.names.put(name, r.getLong());
        }
        int entries = r.count(20);
        c.entries = entries;
        c.capacity = r.getInt();
        if (c.capacity < 16 || c.capacity > (1 << 30) || Integer.bitCount(c.capacity) != 1 || c.capacity < entries) {
            throw corrupt(where, r.at - 4, "impossible index capacity " + c.capacity);
        }
        r.need((long) entries * 20);
        c.ids = new long[entries];
        c.locations = new long[entries];
        c.lengths = new int[entries];
        ByteBuffer buffer = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        buffer.position(r.at);
        buffer.asLongBuffer().get(c.ids);
        buffer.position(r.at + entries * 8);
        buffer.asLongBuffer().get(c.locations);
        buffer.position(r.at + entries * 16);
        buffer.asIntBuffer().get(c.lengths);
        r.at += entries * 20;
        if (r.at != end) {
            throw corrupt(where, r.at, (end - r.at) + " unexpected bytes after the index");
        }
        return c;
    }

    static CorruptStoreException corrupt(String where, long offset, String detail) {
        return new CorruptStoreException(where + " offset " + offset, detail, null);
    }

    /** A bounds-checked cursor. */
    private static final class Reader {
        final byte[] b;
        final int end;
        final String where;
        int at;

        Reader(byte[] b, int end, String where) {
            this.b = b;
            this.end = end;
            this.where = where;
        }

        void need(long n) {
            if (n < 0 || at + n > end) {
                throw corrupt(where, at, "a length or count points past the end of the file");
            }
        }

        int getInt() {
            need(4);
            int v = Format.getInt(b, at);
            at += 4;
            return v;
        }

        long getLong() {
            need(8);
            long v = Format.getLong(b, at);
            at += 8;
            return v;
        }

        /** Reads a count of items of at least {@code minItemSize} bytes each. */
        int count(int minItemSize) {
            int n = getInt();
            need((long) n * minItemSize);
            return n;
        }

        byte[] bytes(int n) {
            need(n);
            byte[] v = new byte[n];
            System.arraycopy(b, at, v, 0, n);
            at += n;
            return v;
        }
    }
}
