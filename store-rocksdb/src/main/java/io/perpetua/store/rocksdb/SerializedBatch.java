package io.perpetua.store.rocksdb;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * A commit's puts and deletes laid out in RocksDB's own write-batch format, handed to RocksDB
 * in one call ({@link #toWriteBatch}). {@link WriteBatch#put} is a JNI call per record, each
 * copying its key and value across: about 0.43 us a record, 0.12 ms of an OO1 insert's 270
 * records (a fifth of raw RocksDB's whole unsynced commit). One copy of the laid-out bytes
 * costs a few microseconds. Not thread-safe: one per commit.
 *
 * <p>The format (RocksDB {@code db/write_batch.cc}, stable since LevelDB): a 12-byte header,
 * the sequence number as a little-endian fixed64 (0 until written) and the record count as a
 * fixed32; then each record, a type byte, for a column family other than the default its id
 * as a varint32, the key and for a put the value, each as a varint32 length and its bytes.
 * {@code SerializedBatchTest} compares the bytes with those {@link WriteBatch#put} lays out.
 *
 * <p>A Java array holds at most 2 GiB: past {@link #limit} bytes, the records laid out so far
 * become a native batch and the rest are put into it one call each.
 *
 * <p>The native batch it makes is its own: {@link #close} closes it.
 */
final class SerializedBatch implements AutoCloseable {
    /** RocksDB's {@code ValueType}s (db/dbformat.h) for the records a commit writes. */
    private static final byte DELETION = 0x0;
    private static final byte VALUE = 0x1;
    private static final byte COLUMN_FAMILY_DELETION = 0x4;
    private static final byte COLUMN_FAMILY_VALUE = 0x5;
    private static final int HEADER = 12;

    /** The size in bytes past which records go to {@link #spill}. */
    private final long limit;
    private byte[] buf;
    private int len = HEADER;
    private int count;
    /** The native batch the records go to once they pass {@link #limit}, else null. */
    private WriteBatch spill;
    /** The native batch {@link #toWriteBatch} returned, else null. */
    private WriteBatch made;

    /** The largest {@link #limit}: an array's largest size, less room for the bytes a record adds to its key and value. */
    private static final long MAX_LIMIT = Integer.MAX_VALUE - 64;

    /**
     * @param capacity the expected size in bytes (the records' keys and values), grown as needed
     * @param limit the size in bytes past which records are put one native call each; at most
     *              {@link #MAX_LIMIT} is used
     */
    SerializedBatch(int capacity, long limit) {
        this.limit = Math.min(limit, MAX_LIMIT);
        buf = new byte[HEADER + (int) Math.min(Math.max(capacity, 64), limit)];
    }

    /**
     * @param cf the column family
     * @param cfId its id ({@link ColumnFamilyHandle#getID}, a native call, so cached by the caller)
     */
    void put(ColumnFamilyHandle cf, int cfId, byte[] key, byte[] value) throws RocksDBException {
        long size = 1 + 5 + 5 + (long) key.length + 5 + value.length;
        if (spilled(size)) {
            spill.put(cf, key, value);
            return;
        }
        ensure((int) size);
        record(cfId, VALUE, COLUMN_FAMILY_VALUE);
        bytes(key);
        bytes(value);
    }

    void delete(ColumnFamilyHandle cf, int cfId, byte[] key) throws RocksDBException {
        long size = 1 + 5 + 5 + (long) key.length;
        if (spilled(size)) {
            spill.delete(cf, key);
            return;
        }
        ensure((int) size);
        record(cfId, DELETION, COLUMN_FAMILY_DELETION);
        bytes(key);
    }

    /** @return true if a record of {@code size} bytes goes to {@link #spill}, made now if it must be */
    private boolean spilled(long size) {
        if (spill == null && len + size > limit) {
            spill = laidOut();
        }
        return spill != null;
    }

    /** @return true once records have passed the limit (for tests) */
    boolean spilled() {
        return spill != null;
    }

    /** @return a native batch holding the records, valid until {@link #close}; call once */
    WriteBatch toWriteBatch() {
        made = spill != null ? spill : laidOut();
        return made;
    }

    /** Closes the native batch this made, if any. */
    @Override
    public void close() {
        if (spill != null) {
            spill.close();
        } else if (made != null) {
            made.close();
        }
    }

    private WriteBatch laidOut() {
        int n = count;
        buf[8] = (byte) n;
        buf[9] = (byte) (n >>> 8);
        buf[10] = (byte) (n >>> 16);
        buf[11] = (byte) (n >>> 24);
        return new WriteBatch(len == buf.length ? buf : Arrays.copyOf(buf, len));
    }

    private void record(int columnFamily, byte defaultType, byte columnFamilyType) {
        if (columnFamily == 0) {
            buf[len++] = defaultType;
        } else {
            buf[len++] = columnFamilyType;
            varInt(columnFamily);
        }
        count++;
    }

    private void bytes(byte[] b) {
        varInt(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    private void varInt(int v) {
        while ((v & ~0x7F) != 0) {
            buf[len++] = (byte) (v & 0x7F | 0x80);
            v >>>= 7;
        }
        buf[len++] = (byte) v;
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, (int) Math.min(Math.max(2L * buf.length, len + more), limit));
        }
    }
}
