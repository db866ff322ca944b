package io.perpetua.store.rocksdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The commit's batch, laid out by hand, is byte for byte the one RocksDB's own puts lay out, and RocksDB applies it. */
class SerializedBatchTest {

    static {
        RocksDB.loadLibrary();
    }

    @TempDir
    Path dir;

    @Test
    void layoutIsRocksDbsOwn() throws RocksDBException {
        sameAsRocksDbs(Long.MAX_VALUE);
    }

    /** Past its limit, the records laid out so far become a native batch, and the rest are put into it. */
    @Test
    void pastItsLimitItPutsTheRestNatively() throws RocksDBException {
        sameAsRocksDbs(40_000);
    }

    private void sameAsRocksDbs(long limit) throws RocksDBException {
        try (Db db = new Db(dir)) {
            Random random = new Random(7);
            // the notes grow several times
            try (SerializedBatch ours = new SerializedBatch(limit); WriteBatch theirs = new WriteBatch()) {
                for (int i = 0; i < 500; i++) {
                    ColumnFamilyHandle cf = db.handles.get(i % db.handles.size());
                    // lengths across the varint's one-, two- and three-byte forms, empty values too
                    byte[] key = bytes(random, 1 + random.nextInt(i % 50 == 0 ? 300 : 20));
                    if (i % 7 == 3) {
                        ours.delete(cf, key);
                        theirs.delete(cf, key);
                    } else {
                        byte[] value = bytes(random, i % 97 == 0 ? 20_000 + random.nextInt(5_000) : random.nextInt(200));
                        ours.put(cf, key, value);
                        theirs.put(cf, key, value);
                    }
                }
                assertEquals(limit < Long.MAX_VALUE, ours.spilled());
                WriteBatch laidOut = ours.toWriteBatch();
                assertEquals(500, laidOut.count());
                assertArrayEquals(theirs.data(), laidOut.data());
            }
        }
    }

    @Test
    void rocksDbAppliesIt() throws RocksDBException {
        byte[] a = "a".getBytes(StandardCharsets.UTF_8);
        byte[] b = "b".getBytes(StandardCharsets.UTF_8);
        try (Db db = new Db(dir); WriteOptions sync = new WriteOptions().setSync(true)) {
            ColumnFamilyHandle main = db.handles.get(0);
            ColumnFamilyHandle other = db.handles.get(2);
            db.db.put(other, b, a);
            try (SerializedBatch batch = new SerializedBatch(Long.MAX_VALUE)) {
                batch.put(main, a, b);
                batch.put(other, a, new byte[0]);
                batch.delete(other, b);
                db.db.write(sync, batch.toWriteBatch());
            }
            assertArrayEquals(b, db.db.get(main, a));
            assertArrayEquals(new byte[0], db.db.get(other, a));
            assertNull(db.db.get(other, b));
        }
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** A database with the default column family and two others. */
    private static final class Db implements AutoCloseable {
        final RocksDB db;
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        private final DBOptions options;

        Db(Path dir) throws RocksDBException {
            options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
            List<ColumnFamilyDescriptor> families = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                    new ColumnFamilyDescriptor("one".getBytes(StandardCharsets.UTF_8)),
                    new ColumnFamilyDescriptor("two".getBytes(StandardCharsets.UTF_8)));
            db = RocksDB.open(options, dir.toString(), families, handles);
        }

        @Override
        public void close() {
            for (ColumnFamilyHandle h : handles) {
                h.close();
            }
            db.close();
            options.close();
        }
    }
}
