package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.WriteSet;

import java.util.Arrays;

/**
 * The collection of {@link Kernel#collectGarbage}: marks every record reachable from the
 * roots it is given by reading the stored records, then deletes the others in one write set.
 *
 * <p>It reads references straight from the record bytes, by the stored class descriptors, and
 * builds no object: what is marked is what the store holds, not what the program has changed
 * since, and a class that can no longer be loaded does not stop it. The unit is the record: a
 * satellite keeps its home's whole record, and a container embedded in a record is looked into
 * as part of it. One collection per instance, under the kernel's lock.
 */
final class GarbageCollector {
    /** Records read per {@link Backend#readMany} call. */
    private static final int BATCH = 1024;

    private final Backend backend;
    private final String location;
    private final ReferenceScanner scanner;
    private final LongSet marked = new LongSet();
    private long[] queue = new long[BATCH];
    private int queued;
    private long recordsRead;

    GarbageCollector(Backend backend, ClassRegistry classes, String location) {
        this.backend = backend;
        this.location = location;
        this.scanner = new ReferenceScanner(classes, location, this::reach);
    }

    /**
     * Marks what {@code roots} reach and deletes every other record.
     *
     * @param roots ids of objects or containers that must stay (bound to names, or resident);
     *              one without a record (not written yet) is ignored
     * @return how many records were deleted
     * @throws CorruptStoreException if a stored reference leads to a missing or malformed
     *         record; nothing is deleted then
     */
    long collect(long[] roots) {
        // The roots first: a resident object without a record (not committed yet) is no error.
        long[] rootRecords = new long[roots.length];
        int n = 0;
        for (long id : roots) {
            long record = recordOf(id);
            if (record > 0 && marked.add(record)) {
                rootRecords[n++] = record;
            }
        }
        for (int from = 0; from < n; from += BATCH) {
            long[] batch = Arrays.copyOfRange(rootRecords, from, Math.min(n, from + BATCH));
            scanAll(batch, backend.readMany(batch), false);
        }
        // Then what stored records refer to, which must be there.
        while (queued > 0) {
            long[] batch = Arrays.copyOfRange(queue, queued - Math.min(queued, BATCH), queued);
            queued -= batch.length;
            scanAll(batch, backend.readMany(batch), true);
        }
        WriteSet deletes = new WriteSet();
        long deleted = 0;
        for (long id : backend.recordIds()) {
            if (!marked.contains(id)) {
                deletes.delete(id);
                deleted++;
            }
        }
        if (deleted > 0) {
            backend.commit(deletes);
        }
        return deleted;
    }

    /** @return how many records the marking read */
    long recordsRead() {
        return recordsRead;
    }

    private void scanAll(long[] ids, byte[][] records, boolean mustExist) {
        recordsRead += ids.length;
        for (int i = 0; i < ids.length; i++) {
            if (records[i] != null) {
                scan(ids[i], records[i]);
            } else if (mustExist) {
                throw new CorruptStoreException(location + ", object #" + ids[i],
                        "a stored object refers to it and its record is missing; nothing was collected", null);
            }
        }
    }

    /** @return the id of the record that holds an object or container: a satellite's is its home's */
    private static long recordOf(long id) {
        return Satellites.isSatellite(id) ? Satellites.home(id) : id;
    }

    /** Queues the record that holds an object or container that a stored record refers to, once. */
    private void reach(long id) {
        long record = recordOf(id);
        if (record > 0 && marked.add(record)) {
            if (queued == queue.length) {
                queue = Arrays.copyOf(queue, queued * 2);
            }
            queue[queued++] = record;
        }
    }

    private void scan(long id, byte[] record) {
        try {
            scanner.record(id, record);
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(location + ", object #" + id, m.getMessage() + "; nothing was collected", null);
        }
    }
}
