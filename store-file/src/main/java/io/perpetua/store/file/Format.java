package io.perpetua.store.file;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The on-disk format of a file store: constants and the little-endian helpers that read and
 * write it. Stateless.
 *
 * <h2>Segment file {@code NNNNNNNN.seg}</h2>
 * <pre>
 *   0  int   magic "PSEG"          fixed part, written once when the file is created
 *   4  int   format version
 *   8  int   segment number
 *  12  long  store id              (random, the same in every file of one store)
 *  20  int   CRC32C of bytes 0..20
 *  32  slot 0 | 64  slot 1         each: long seq, long committed length, int CRC32C of the 16 bytes
 *  96  seal                        int magic "SEAL", int successor's number, int CRC32C of the 8 bytes;
 *                                  zeros until the next segment is begun
 * 128  records...
 * </pre>
 * The two slots alternate (the slot of sequence number {@code s} is {@code s & 1}), so that a
 * torn slot write always leaves the other, older one readable (the H2 MVStore double header).
 * A slot says "everything up to this length is committed". It never reaches the disk before
 * what it covers: a synced commit writes it after the commit's fsync (the next fsync makes it
 * durable), and a sync point (roll, checkpoint, close) syncs the records, writes it, and syncs
 * again. Recovery treats damage below it as corruption and damage above it as a torn tail.
 * <p>
 * The seal is written when the next segment is begun, after that segment (and the directory
 * entry naming it) is durable, and reaches the disk with the operating system's writeback (no
 * fsync of its own). A sealed segment with no successor is therefore a successor deleted, not a
 * crash. Stores written before the seal existed have zeros there, which mean "not sealed".
 *
 * <h2>Record</h2>
 * <pre>
 *   0  int   CRC32C of bytes 4..length
 *   4  int   length of the whole record, header included (at least 9)
 *   8  byte  type
 *   9  body: PUT long id, data | DELETE long id | BIND long id, UTF-8 name | UNBIND UTF-8 name
 *            CLASS int descriptor id, bytes | COMMIT long seq, long next id, int operation count
 * </pre>
 * A commit is its operation records followed by one COMMIT record, written with one write call.
 * Sequence numbers are consecutive over the whole store: recovery accepts a COMMIT record only
 * if it carries the next number and counts exactly the operations before it.
 */
final class Format {
    static final int SEGMENT_MAGIC = 0x50534547; // "PSEG"
    static final int CHECKPOINT_MAGIC = 0x50434b50; // "PCKP"
    /**
     * The format version. A later format keeps the magic, the version and the CRC where they
     * are in a segment's fixed part and a checkpoint, so that this version tells a store in a
     * newer format ({@link io.perpetua.UnsupportedStoreFormatException}) from a damaged one.
     */
    static final int VERSION = 1;
    /** What {@link io.perpetua.UnsupportedStoreFormatException} calls the format. */
    static final String NAME = "file store format";

    static final int HEADER_SIZE = 128;
    static final int FIXED_HEADER = 20;
    static final int SLOT_BASE = 32;
    static final int SLOT_STRIDE = 32;
    static final int SLOT_SIZE = 20;
    static final int SEAL_OFFSET = 96;
    static final int SEAL_SIZE = 12;
    static final int SEAL_MAGIC = 0x4c414553; // "SEAL"

    static final int RECORD_HEADER = 9;
    static final int PUT_OVERHEAD = RECORD_HEADER + 8;
    static final int COMMIT_SIZE = RECORD_HEADER + 8 + 8 + 4;

    static final byte PUT = 1;
    static final byte DELETE = 2;
    static final byte BIND = 3;
    static final byte UNBIND = 4;
    static final byte CLASS = 5;
    static final byte COMMIT = 6;

    /** The largest encoded commit (one write call, one array). */
    static final int MAX_COMMIT = Integer.MAX_VALUE - 64;

    /** Locations pack a segment number (23 bits) and an offset (40 bits) into one long. */
    static final int OFFSET_BITS = 40;
    static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    static final int MAX_SEGMENT = (1 << 23) - 1;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Format() {
    }

    static String segmentName(int number) {
        return String.format("%08d.seg", number);
    }

    /** @return the segment number of a file name, or -1 if it is not a segment's name */
    static int segmentNumber(String fileName) {
        if (fileName.length() != 12 || !fileName.endsWith(".seg")) {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < 8; i++) {
            char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    static long location(int segment, long offset) {
        return ((long) segment << OFFSET_BITS) | offset;
    }

    static int segmentOf(long location) {
        return (int) (location >>> OFFSET_BITS);
    }

    static long offsetOf(long location) {
        return location & OFFSET_MASK;
    }

    static int getInt(byte[] b, int off) {
        return (int) INT.get(b, off);
    }

    static void putInt(byte[] b, int off, int v) {
        INT.set(b, off, v);
    }

    static long getLong(byte[] b, int off) {
        return (long) LONG.get(b, off);
    }

    static void putLong(byte[] b, int off, long v) {
        LONG.set(b, off, v);
    }

    static int crc(byte[] b, int off, int len) {
        CRC32C crc = new CRC32C();
        crc.update(b, off, len);
        return (int) crc.getValue();
    }

    /** Writes the length, type and checksum of a record whose body is already in place. */
    static void seal(byte[] b, int off, int length, byte type) {
        putInt(b, off + 4, length);
        b[off + 8] = type;
        putInt(b, off, crc(b, off + 4, length - 4));
    }

    /** Fills in a COMMIT record at {@code off}. */
    static void commitRecord(byte[] b, int off, long seq, long nextId, int operations) {
        putLong(b, off + RECORD_HEADER, seq);
        putLong(b, off + RECORD_HEADER + 8, nextId);
        putInt(b, off + RECORD_HEADER + 16, operations);
        seal(b, off, COMMIT_SIZE, COMMIT);
    }

    /**
     * Checks a whole record in {@code b[off, off + length)}: its checksum and that its body fits
     * its type.
     *
     * @return null if it is valid, otherwise what is wrong with it
     */
    static String check(byte[] b, int off, int length) {
        if (length < RECORD_HEADER) {
            return "record shorter than a record header";
        }
        if (getInt(b, off + 4) != length) {
            return "record length field does not match";
        }
        if (crc(b, off + 4, length - 4) != getInt(b, off)) {
            return "checksum mismatch";
        }
        int body = length - RECORD_HEADER;
        int at = off + RECORD_HEADER;
        switch (b[off + 8]) {
            case PUT, BIND:
                return body >= 8 && getLong(b, at) > 0 ? null : "malformed record body";
            case DELETE:
                return body == 8 && getLong(b, at) > 0 ? null : "malformed delete record";
            case UNBIND:
                return null;
            case CLASS:
                return body >= 4 && getInt(b, at) > 0 ? null : "malformed class descriptor record";
            case COMMIT:
                return body == COMMIT_SIZE - RECORD_HEADER && getLong(b, at) > 0 && getLong(b, at + 8) > 0
                        && getInt(b, at + 16) >= 0 ? null : "malformed commit record";
            default:
                return "unknown record type " + b[off + 8];
        }
    }

    /** @return a segment file's header with both slots saying (seq, committed) */
    static byte[] segmentHeader(int number, long storeId, long seq, long committed) {
        byte[] h = new byte[HEADER_SIZE];
        putInt(h, 0, SEGMENT_MAGIC);
        putInt(h, 4, VERSION);
        putInt(h, 8, number);
        putLong(h, 12, storeId);
        putInt(h, FIXED_HEADER, crc(h, 0, FIXED_HEADER));
        byte[] slot = slot(seq, committed);
        System.arraycopy(slot, 0, h, SLOT_BASE, SLOT_SIZE);
        System.arraycopy(slot, 0, h, SLOT_BASE + SLOT_STRIDE, SLOT_SIZE);
        return h;
    }

    static byte[] slot(long seq, long committed) {
        byte[] s = new byte[SLOT_SIZE];
        putLong(s, 0, seq);
        putLong(s, 8, committed);
        putInt(s, 16, crc(s, 0, 16));
        return s;
    }

    /** @return the seal of a segment whose successor is {@code successor} */
    static byte[] seal(int successor) {
        byte[] s = new byte[SEAL_SIZE];
        putInt(s, 0, SEAL_MAGIC);
        putInt(s, 4, successor);
        putInt(s, 8, crc(s, 0, 8));
        return s;
    }

    /** @return the successor a segment header's seal names, or -1 if it is not sealed */
    static int sealedSuccessor(byte[] header) {
        if (getInt(header, SEAL_OFFSET) != SEAL_MAGIC
                || crc(header, SEAL_OFFSET, 8) != getInt(header, SEAL_OFFSET + 8)) {
            return -1;
        }
        return getInt(header, SEAL_OFFSET + 4);
    }

    static long slotOffset(long seq) {
        return SLOT_BASE + (seq & 1) * SLOT_STRIDE;
    }
}
