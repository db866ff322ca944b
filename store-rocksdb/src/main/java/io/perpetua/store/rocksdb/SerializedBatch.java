package io.perpetua.store.rocksdb;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * A commit's puts and deletes laid out in RocksDB's own write-batch format, handed to RocksDB
 * in one call ({@link #toWriteBatch}). {@link WriteBatch#put} is a JNI call per record, each
 * copying its key and value across: about 0.43 us a record, 0.12 ms of an OO1 insert's 270
 * records (a fifth of raw RocksDB's whole unsynced commit). Here a put only notes its key and
 * value; {@link #toWriteBatch} lays them all out in one array of the exact size, which RocksDB
 * copies once. Not thread-safe: one per commit.
 *
 * <p>The format (RocksDB {@code db/write_batch.cc}, stable since LevelDB): a 12-byte header,
 * the sequence number as a little-endian fixed64 (0 until written) and the record count as a
 * fixed32; then each record, a type byte, for a column family other than the default its id
 * as a varint32, the key and for a put the value, each as a varint32 length and its bytes.
 * {@code SerializedBatchTest} compares the bytes with those {@link WriteBatch#put} lays out.
 *
 * <p>A Java array holds at most 2 GiB: past {@link #limit} bytes, the records noted so far are
 * laid out as a native batch and the rest are put into it one call each.
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
    /** The largest {@link #limit}: an array's largest size, less room for the bytes a record adds to its key and value. */
    private static final long MAX_LIMIT = Integer.MAX_VALUE - 64;

    /** The size in bytes past which records go to {@link #spill}. */
    private final long limit;
    /** The records noted, {@code [0, count)}: column family id, key, and value (null for a delete). */
    private int[] families = new int[64];
    private byte[][] keys = new byte[64][];
    private byte[][] values = new byte[64][];
    private int count;
    /** The size of the laid-out batch of the records noted. */
    private long size = HEADER;
    /** The native batch the records go to once they pass {@link #limit}, else null. */
    private WriteBatch spill;
    /** The native batch {@link #toWriteBatch} returned, else null. */
    private WriteBatch made;
    /**
     * The column family of the last record noted, and its id: {@link ColumnFamilyHandle#getID}
     * is a native call, and a commit's records come in runs of one family.
     */
    private ColumnFamilyHandle lastFamily;
    private int lastFamilyId;

    /**
     * @param limit the size in bytes past which records are put one native call each; at most
     *              {@link #MAX_LIMIT} is used
     */
    SerializedBatch(long limit) {
        this.limit = Math.min(limit, MAX_LIMIT);
    }

    /** Notes a put. The arrays are the caller's, read when the batch is laid out: not changed until then. */
    void put(ColumnFamilyHandle cf, byte[] key, byte[] value) throws RocksDBException {
        int cfId = idOf(cf);
        long more = recordSize(cfId, key.length) + varIntSize(value.length) + value.length;
        if (spilled(more)) {
            spill.put(cf, key, value);
        } else {
            note(cfId, key, value, more);
        }
    }

    /** Notes a delete, as {@link #put} notes a put. */
    void delete(ColumnFamilyHandle cf, byte[] key) throws RocksDBException {
        int cfId = idOf(cf);
        long more = recordSize(cfId, key.length);
        if (spilled(more)) {
            spill.delete(cf, key);
        } else {
            note(cfId, key, null, more);
        }
    }

    private int idOf(ColumnFamilyHandle cf) {
        if (cf != lastFamily) {
            lastFamilyId = cf.getID();
            lastFamily = cf;
        }
        return lastFamilyId;
    }

    /** @return the bytes of a record's type, column family and key */
    private static long recordSize(int cfId, int keyLength) {
        return 1 + (cfId == 0 ? 0 : varIntSize(cfId)) + varIntSize(keyLength) + (long) keyLength;
    }

    private static int varIntSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private void note(int cfId, byte[] key, byte[] value, long more) {
        if (count == keys.length) {
            families = Arrays.copyOf(families, count * 2);
            keys = Arrays.copyOf(keys, count * 2);
            values = Arrays.copyOf(values, count * 2);
        }
        families[count] = cfId;
        keys[count] = key;
        values[count] = value;
        count++;
        size += more;
    }

    /** @return true if a record of {@code more} bytes goes to {@link #spill}, made now if it must be */
    private boolean spilled(long more) {
        if (spill == null && size + more > limit) {
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

    /** Lays out the records noted, in one array of the exact size (RocksDB takes its length as the batch's). */
    private WriteBatch laidOut() {
        byte[] buf = new byte[(int) size];
        buf[8] = (byte) count;
        buf[9] = (byte) (count >>> 8);
        buf[10] = (byte) (count >>> 16);
        buf[11] = (byte) (count >>> 24);
        int at = HEADER;
        for (int i = 0; i < count; i++) {
            boolean put = values[i] != null;
            if (families[i] == 0) {
                buf[at++] = put ? VALUE : DELETION;
            } else {
                buf[at++] = put ? COLUMN_FAMILY_VALUE : COLUMN_FAMILY_DELETION;
                at = varInt(buf, at, families[i]);
            }
            at = bytes(buf, at, keys[i]);
            if (put) {
                at = bytes(buf, at, values[i]);
            }
            keys[i] = null; // laid out: no longer held
            values[i] = null;
        }
        if (at != buf.length) {
            throw new IllegalStateException("laid out " + at + " bytes of " + buf.length);
        }
        return new WriteBatch(buf);
    }

    private static int bytes(byte[] buf, int at, byte[] b) {
        at = varInt(buf, at, b.length);
        System.arraycopy(b, 0, buf, at, b.length);
        return at + b.length;
    }

    private static int varInt(byte[] buf, int at, int v) {
        while ((v & ~0x7F) != 0) {
            buf[at++] = (byte) (v & 0x7F | 0x80);
            v >>>= 7;
        }
        buf[at++] = (byte) v;
        return at;
    }
}
