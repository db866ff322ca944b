package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.benchmarks.oo1.Implementation;
import io.perpetua.benchmarks.oo1.NullProcedure;
import io.perpetua.benchmarks.oo1.Oo1Data;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Raw RocksDB: hand-written records on the RocksDB API, no object layer. The floor for cold
 * times (JSPIN's "C with Mneme"). RocksDB's default options; writes are synced
 * ({@code WriteOptions.setSync(true)}).
 *
 * <p>One key per part, its id as 4 big-endian bytes; the value, fixed layout, big-endian:
 * <pre>
 *   0  x (4)   4  y (4)   8  build, epoch day (4)   12  type (10, ISO-8859-1)
 *  22  3 × [to id (4), length (4), type (10)]
 *  76  incoming count n (4)   80  n × from id (4)
 * </pre>
 * An insert writes the new parts' records and rewrites each target's record with one more
 * incoming id, all in one synced write batch.
 */
public final class RawRocksDb implements Implementation {

    private static final int X = 0;
    private static final int Y = 4;
    private static final int BUILD = 8;
    private static final int TYPE = 12;
    private static final int TYPE_LENGTH = 10;
    private static final int TO = 22;
    private static final int CONNECTION_BYTES = 4 + 4 + TYPE_LENGTH;
    private static final int FROM_COUNT = TO + Oo1Data.FAN_OUT * CONNECTION_BYTES;
    private static final int FROM = FROM_COUNT + 4;
    private static final int LOAD_BATCH = 10_000;

    private Options options;
    private WriteOptions syncWrite;
    private RocksDB db;
    private WriteBatch pending;
    private final byte[] key = new byte[4];

    @Override
    public String version() {
        return "RocksDB " + RocksDB.rocksdbVersion();
    }

    @Override
    public void create(Path directory) throws RocksDBException {
        initiate(directory);
    }

    @Override
    public void initiate(Path directory) throws RocksDBException {
        // Here, inside the timed open, as PersistentStore.open loads it for the Perpetua rows:
        // loading the native library is about 0.15 s of a fresh JVM's first open. (It was in a
        // static initializer, run before the timer: the raw row's open and load were timed
        // without it and the Perpetua rows' with it.)
        RocksDB.loadLibrary();
        options = new Options().setCreateIfMissing(true);
        syncWrite = new WriteOptions().setSync(true);
        db = RocksDB.open(options, directory.toString());
    }

    @Override
    public void fetchDatabase() {
    }

    @Override
    public void makeDatabasePersistent(Oo1Data data) throws RocksDBException {
        int n = data.parts;
        int[] start = new int[n + 1];
        for (int i = 0; i < n; i++) {
            start[i + 1] = start[i] + data.incoming[i];
        }
        int[] sources = new int[start[n]];
        int[] filled = start.clone();
        for (int c = 0; c < data.to.length; c++) {
            sources[filled[data.to[c] - 1]++] = c / Oo1Data.FAN_OUT + 1;
        }
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < n; i++) {
            byte[] value = record(data, i, start[i + 1] - start[i]);
            for (int j = start[i]; j < start[i + 1]; j++) {
                putInt(value, FROM + 4 * (j - start[i]), sources[j]);
            }
            batch.put(key(i + 1), value);
            if (batch.count() == LOAD_BATCH) {
                db.write(syncWrite, batch);
                batch.close();
                batch = new WriteBatch();
            }
        }
        pending = batch;
    }

    /** A part's record with room for {@code incoming} ids, all but the incoming ids filled. */
    private static byte[] record(Oo1Data data, int i, int incoming) {
        byte[] v = new byte[FROM + 4 * incoming];
        putInt(v, X, data.x[i]);
        putInt(v, Y, data.y[i]);
        putInt(v, BUILD, data.buildDay[i]);
        putType(v, TYPE, Oo1Data.PART_TYPES[data.partType[i]]);
        for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
            int c = i * Oo1Data.FAN_OUT + k;
            int at = TO + k * CONNECTION_BYTES;
            putInt(v, at, data.to[c]);
            putInt(v, at + 4, data.length[c]);
            putType(v, at + 8, Oo1Data.CONNECTION_TYPES[data.connectionType[c]]);
        }
        putInt(v, FROM_COUNT, incoming);
        return v;
    }

    @Override
    public void stabilize() throws RocksDBException {
        if (pending != null) {
            db.write(syncWrite, pending);
            pending.close();
            pending = null;
        }
    }

    @Override
    public void terminate() {
        if (pending != null) {
            pending.close();
            pending = null;
        }
        if (db != null) {
            db.close();
            syncWrite.close();
            options.close();
            db = null;
        }
    }

    private byte[] get(int id) throws RocksDBException {
        putInt(key, 0, id);
        byte[] v = db.get(key);
        if (v == null) {
            throw new IllegalStateException("no part " + id);
        }
        return v;
    }

    private static void visit(byte[] v) {
        NullProcedure.call(getInt(v, X), getInt(v, Y),
                new String(v, TYPE, TYPE_LENGTH, StandardCharsets.ISO_8859_1));
    }

    @Override
    public void lookup(int[] ids) throws RocksDBException {
        for (int id : ids) {
            visit(get(id));
        }
    }

    @Override
    public void traverse(int id, int hops) throws RocksDBException {
        byte[] v = get(id);
        visit(v);
        if (hops == 0) {
            return;
        }
        for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
            traverse(getInt(v, TO + k * CONNECTION_BYTES), hops - 1);
        }
    }

    @Override
    public void reverseTraverse(int id, int hops) throws RocksDBException {
        byte[] v = get(id);
        visit(v);
        if (hops == 0) {
            return;
        }
        int n = getInt(v, FROM_COUNT);
        for (int j = 0; j < n; j++) {
            reverseTraverse(getInt(v, FROM + 4 * j), hops - 1);
        }
    }

    @Override
    public void insert(Oo1Data batch, int firstId) throws RocksDBException {
        Map<Integer, byte[]> changed = new HashMap<>();
        for (int i = 0; i < batch.parts; i++) {
            int id = firstId + i;
            byte[] v = record(batch, i, 0);
            changed.put(id, v);
            for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
                int target = batch.to[i * Oo1Data.FAN_OUT + k];
                byte[] t = changed.get(target);
                if (t == null) {
                    t = get(target);
                }
                int n = getInt(t, FROM_COUNT);
                byte[] grown = Arrays.copyOf(t, t.length + 4);
                putInt(grown, FROM_COUNT, n + 1);
                putInt(grown, FROM + 4 * n, id);
                changed.put(target, grown);
            }
            visit(v);
        }
        WriteBatch wb = new WriteBatch();
        for (Map.Entry<Integer, byte[]> e : changed.entrySet()) {
            wb.put(key(e.getKey()), e.getValue());
        }
        pending = wb;
    }

    private static byte[] key(int id) {
        byte[] k = new byte[4];
        putInt(k, 0, id);
        return k;
    }

    private static void putType(byte[] b, int at, String type) {
        for (int i = 0; i < TYPE_LENGTH; i++) {
            b[at + i] = (byte) type.charAt(i);
        }
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static int getInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }
}
