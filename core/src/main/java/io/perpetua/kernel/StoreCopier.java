package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.StoreNotEmptyException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.WriteSet;

import java.util.Arrays;
import java.util.Map;

/**
 * Copies one backend's committed contents into another, empty one: records, names, class
 * descriptors, and the id counter. Works on ids and bytes only, so any backend copies to any
 * other. The caller keeps the source from changing meanwhile (the kernel's lock) and owns both
 * backends. Not thread-safe; one use.
 */
final class StoreCopier {
    /** Records per read of the source. */
    private static final int READ_BATCH = 1024;
    /** Bytes of records per commit to the target: bounds the memory a copy holds at once. */
    private static final int COMMIT_BYTES = 4 << 20;

    private final Backend source;
    private final Backend target;
    /** The source's record ids, in order: the order they are written in. */
    private long[] ids;
    /** How many of {@link #ids} the target holds: what a failed copy deletes. */
    private int committed;

    StoreCopier(Backend source, Backend target) {
        this.source = source;
        this.target = target;
    }

    /**
     * @return how many records were copied
     * @throws StoreNotEmptyException if the target holds anything; it was not written to
     */
    long copy() {
        long[] targetIds = target.recordIds();
        Map<String, Long> targetNames = target.names();
        if (targetIds.length > 0 || !targetNames.isEmpty() || !target.classDescriptors().isEmpty()) {
            throw new StoreNotEmptyException(target.location(), targetIds.length, targetNames.size());
        }
        ids = source.recordIds();
        Arrays.sort(ids); // the target's keys in order: cheaper for an LSM tree or an index to take
        try {
            copyRecords();
            reserveIdsUpTo(ids.length == 0 ? 0 : ids[ids.length - 1]);
            WriteSet last = new WriteSet();
            source.classDescriptors().forEach(last::classDescriptor);
            source.names().forEach(last::bind);
            target.commit(last);
        } catch (RuntimeException e) {
            deleteWritten(e);
            throw e;
        }
        return ids.length;
    }

    private void copyRecords() {
        WriteSet batch = new WriteSet();
        long batchBytes = 0;
        for (int from = 0; from < ids.length; from += READ_BATCH) {
            long[] some = Arrays.copyOfRange(ids, from, Math.min(ids.length, from + READ_BATCH));
            byte[][] records = source.readMany(some);
            for (int i = 0; i < some.length; i++) {
                if (records[i] == null) {
                    // recordIds and readMany ran under the same lock: a record cannot vanish between them
                    throw new CorruptStoreException(source.location(), "record " + some[i]
                            + " is listed by the store but cannot be read", null);
                }
                batch.put(some[i], records[i]);
                batchBytes += records[i].length;
                if (batchBytes >= COMMIT_BYTES) {
                    commitRecords(batch);
                    batch = new WriteSet();
                    batchBytes = 0;
                }
            }
        }
        if (!batch.isEmpty()) {
            commitRecords(batch);
        }
    }

    private void commitRecords(WriteSet batch) {
        target.commit(batch);
        committed += batch.putCount();
    }

    /** Moves the target's id counter past {@code maxId}, so that it never hands out a copied id. */
    private void reserveIdsUpTo(long maxId) {
        long reserved = target.allocateIds(1);
        while (reserved < maxId) {
            int n = (int) Math.min(Integer.MAX_VALUE, maxId - reserved);
            reserved = target.allocateIds(n) + n - 1;
        }
    }

    /** After a failure: deletes what the copy wrote, as far as the target lets it. */
    private void deleteWritten(RuntimeException failure) {
        if (committed == 0) {
            return;
        }
        try {
            WriteSet deletes = new WriteSet();
            for (int i = 0; i < committed; i++) {
                deletes.delete(ids[i]);
            }
            target.commit(deletes);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
