package io.perpetua.benchmarks.jmh;

import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The OO1 database written by hand on the RocksDB API, record for record as Perpetua stores the
 * model of {@code kernel}: one record per part, holding connections (Perpetua keeps each
 * connection in the record of one of the two parts it joins, as a satellite; here, its source),
 * per index chunk and one for the root, under 8-byte big-endian keys handed out in order.
 * Layouts (big-endian ints; type strings as 10 ISO-8859-1 bytes, padded):
 * <pre>
 *   part        id, x, y (4 each), build (8), type (10), 3 outgoing connection keys (4 each),
 *               incoming count n (4), n incoming connection keys (4 each),
 *               then its 3 outgoing connections: from, to, length (4 each), type (10)
 *                                                                   46 + 4n + 3 * 22 bytes
 *   chunk       1,024 part keys (4 each, 0 for none)                4,096 bytes
 *   root        part count (4), chunk keys (4 each)                 4 + 4c bytes
 * </pre>
 * An insert writes as many records as Perpetua's commit: the new parts (here with their
 * connections; in Perpetua the connections go into the targets' records, which both sides
 * rewrite anyway for their incoming lists), the targets, the chunk and the root. Not
 * thread-safe; owns its database.
 */
final class RawOo1 implements AutoCloseable {
    private static final int CHUNK = 1024;

    private final Path dir;
    private KernelFixtures.Raw raw;
    private final WriteOptions syncWrite;
    private final WriteOptions loadWrite = new WriteOptions().setSync(false);
    private int count;
    private int nextKey = 1;
    private int[] partKey = new int[1];
    private final int rootKey = nextKey++;
    private int[] chunkKeys = new int[0];
    /** The index, resident as Perpetua's is: the chunk records and the root record. */
    private byte[][] chunks = new byte[0][];
    private byte[] root;
    /** The records read by {@link #prepareInsert}: the targets of the next insert, by key. */
    private final Map<Integer, byte[]> resident = new LinkedHashMap<>();
    private int[] targets = new int[0];
    private SplittableRandom pending;
    long recordsWritten;
    long commits;

    static {
        RocksDB.loadLibrary();
    }

    RawOo1(Path dir, boolean sync) {
        this.dir = dir;
        raw = new KernelFixtures.Raw(dir, false);
        syncWrite = new WriteOptions().setSync(sync);
    }

    /** Closes the database and opens it again, as the Perpetua side reopens its store in a fresh session. */
    void reopen() {
        raw.close();
        raw = new KernelFixtures.Raw(dir, false);
    }

    /** Builds the database the way {@code Graph.build} builds the model: same generator, same draws. */
    void build(int parts, long seed) throws RocksDBException {
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] records = new byte[parts + 1][];
        partKey = new int[parts + 1];
        for (int id = 1; id <= parts; id++) {
            partKey[id] = nextKey++;
            records[id] = part(id, random);
            addToIndex(id);
        }
        for (int id = 1; id <= parts; id++) {
            for (int k = 0; k < 3; k++) {
                int t = KernelFixtures.target(random, id, parts);
                int c = nextKey++;
                records[id] = withConnection(records[id], connection(partKey[id], partKey[t], random));
                putInt(records[id], 30 + 4 * k, c);
                records[t] = addFrom(records[t], c);
            }
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (int id = 1; id <= parts; id++) {
                batch.put(KernelFixtures.key(partKey[id]), records[id]);
            }
            writeIndex(batch);
            raw.db.write(loadWrite, batch);
        }
        count = parts;
    }

    private void addToIndex(int id) {
        int c = (id - 1) / CHUNK;
        if (c == chunks.length) {
            chunks = Arrays.copyOf(chunks, c + 1);
            chunks[c] = new byte[4 * CHUNK];
            chunkKeys = Arrays.copyOf(chunkKeys, c + 1);
            chunkKeys[c] = nextKey++;
        }
        putInt(chunks[c], 4 * ((id - 1) % CHUNK), partKey[id]);
        root = new byte[4 + 4 * chunks.length];
        putInt(root, 0, id);
        for (int i = 0; i < chunkKeys.length; i++) {
            putInt(root, 4 + 4 * i, chunkKeys[i]);
        }
    }

    private void writeIndex(WriteBatch batch) throws RocksDBException {
        for (int c = 0; c < chunks.length; c++) {
            batch.put(KernelFixtures.key(chunkKeys[c]), chunks[c]);
        }
        batch.put(KernelFixtures.key(rootKey), root);
    }

    private static byte[] part(int id, SplittableRandom random) {
        byte[] v = new byte[46];
        int type = random.nextInt(10);
        putInt(v, 0, id);
        putInt(v, 4, random.nextInt(100_000));
        putInt(v, 8, random.nextInt(100_000));
        long build = random.nextLong(3_650);
        putInt(v, 12, (int) (build >>> 32));
        putInt(v, 16, (int) build);
        putType(v, 20, "part-type" + type);
        return v;
    }

    private static byte[] connection(int from, int to, SplittableRandom random) {
        byte[] v = new byte[22];
        putInt(v, 0, from);
        putInt(v, 4, to);
        putType(v, 12, "conn-type" + random.nextInt(10));
        putInt(v, 8, 1 + random.nextInt(1000));
        return v;
    }

    /** Inserts an incoming connection key after the others, before the part's own connections. */
    private static byte[] addFrom(byte[] part, int connectionKey) {
        int n = getInt(part, 42);
        int at = 46 + 4 * n;
        byte[] grown = new byte[part.length + 4];
        System.arraycopy(part, 0, grown, 0, at);
        System.arraycopy(part, at, grown, at + 4, part.length - at);
        putInt(grown, 42, n + 1);
        putInt(grown, at, connectionKey);
        return grown;
    }

    /** Appends one of the part's outgoing connections to its record. */
    private static byte[] withConnection(byte[] part, byte[] connection) {
        byte[] grown = Arrays.copyOf(part, part.length + connection.length);
        System.arraycopy(connection, 0, grown, part.length, connection.length);
        return grown;
    }

    /** As {@code Graph.prepareInsert}: the same draws; reads each target's record (the Perpetua side faults it in). */
    int[] prepareInsert(int n, SplittableRandom random) throws RocksDBException {
        resident.clear();
        targets = new int[3 * n];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                int t = KernelFixtures.target(random, count + 1 + i, count);
                targets[3 * i + k] = t;
                if (!resident.containsKey(partKey[t])) {
                    resident.put(partKey[t], raw.db.get(raw.records, KernelFixtures.key(partKey[t])));
                }
            }
        }
        pending = random.split();
        return targets.clone();
    }

    /**
     * As {@code Graph.insert} and a commit: encodes the new parts with their connections,
     * appends to the targets' incoming lists, updates the chunk and the root, and writes all of
     * these records in one write batch.
     */
    void insertAndCommit() throws RocksDBException {
        int n = targets.length / 3;
        int firstChunk = count / CHUNK;
        Map<Integer, byte[]> changed = new LinkedHashMap<>();
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < n; i++) {
                int id = count + 1;
                if (id == partKey.length) {
                    partKey = Arrays.copyOf(partKey, partKey.length * 2);
                }
                partKey[id] = nextKey++;
                byte[] p = part(id, pending);
                for (int k = 0; k < 3; k++) {
                    int tk = partKey[targets[3 * i + k]];
                    int c = nextKey++;
                    p = withConnection(p, connection(partKey[id], tk, pending));
                    putInt(p, 30 + 4 * k, c);
                    byte[] t = changed.containsKey(tk) ? changed.get(tk) : resident.get(tk);
                    changed.put(tk, addFrom(t, c));
                }
                batch.put(KernelFixtures.key(partKey[id]), p);
                addToIndex(id);
                count = id;
            }
            for (Map.Entry<Integer, byte[]> e : changed.entrySet()) {
                batch.put(KernelFixtures.key(e.getKey()), e.getValue());
            }
            for (int c = firstChunk; c < chunks.length; c++) {
                batch.put(KernelFixtures.key(chunkKeys[c]), chunks[c]);
            }
            batch.put(KernelFixtures.key(rootKey), root);
            recordsWritten += batch.count();
            commits++;
            raw.db.write(syncWrite, batch);
        }
        targets = new int[0];
    }

    @Override
    public void close() {
        syncWrite.close();
        loadWrite.close();
        raw.close();
    }

    private static void putType(byte[] b, int at, String type) {
        for (int i = 0; i < 10 && i < type.length(); i++) {
            b[at + i] = (byte) type.charAt(i);
        }
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    static int getInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }
}
