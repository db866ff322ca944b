package io.perpetua.store.file;

import java.util.Arrays;

/**
 * The in-memory index: object id to (location, record length), as an open-addressing hash table
 * on primitive arrays with linear probing and backward-shift deletion (no tombstones). About 20
 * bytes per slot at a load factor of at most 0.7, so the 1.4 million records of the OO1 large
 * store take some 40 MB, against well over 100 MB for a {@code HashMap<Long, ...>}.
 *
 * <p>Key 0 marks an empty slot (0 is never an object id). Not thread-safe: {@link FileBackend}
 * guards it with its state lock.
 */
final class LongIndex {
    private static final long PHI = 0x9E3779B97F4A7C15L;
    private static final double LOAD = 0.7;

    private long[] keys;
    private long[] locations;
    private int[] lengths;
    private int size;
    private int shift;
    private int mask;
    private int resizeAt;

    LongIndex(int expected) {
        allocate(capacityFor(expected));
    }

    /**
     * A table of exactly {@code capacity} slots (a power of two), for reloading entries in the
     * slot order of a table of that capacity; more entries than it holds make it grow.
     */
    static LongIndex withCapacity(int capacity) {
        LongIndex index = new LongIndex(16);
        index.allocate(Math.max(16, capacity));
        return index;
    }

    private static int capacityFor(int expected) {
        long wanted = Math.max(16, (long) Math.ceil(expected / LOAD) + 1);
        int capacity = Integer.highestOneBit((int) Math.min(1 << 30, wanted));
        return capacity < wanted ? capacity << 1 : capacity;
    }

    /** All three arrays are made before any is replaced: running out of memory leaves the table as it was. */
    private void allocate(int capacity) {
        long[] newKeys = new long[capacity];
        long[] newLocations = new long[capacity];
        int[] newLengths = new int[capacity];
        keys = newKeys;
        locations = newLocations;
        lengths = newLengths;
        mask = capacity - 1;
        shift = 64 - Integer.numberOfTrailingZeros(capacity);
        resizeAt = (int) (capacity * LOAD);
    }

    private int home(long key) {
        return (int) ((key * PHI) >>> shift);
    }

    int size() {
        return size;
    }

    int capacity() {
        return keys.length;
    }

    /** @return the slot holding {@code key}, or -1 */
    int find(long key) {
        int i = home(key);
        long k;
        while ((k = keys[i]) != 0) {
            if (k == key) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    long keyAt(int slot) {
        return keys[slot];
    }

    long location(int slot) {
        return locations[slot];
    }

    int length(int slot) {
        return lengths[slot];
    }

    /** Inserts or replaces. */
    void put(long key, long location, int length) {
        int i = home(key);
        long k;
        while ((k = keys[i]) != 0) {
            if (k == key) {
                locations[i] = location;
                lengths[i] = length;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        locations[i] = location;
        lengths[i] = length;
        if (++size > resizeAt) {
            grow();
        }
    }

    /** Removes {@code key} if present; shifts later entries of its probe run back. */
    boolean remove(long key) {
        int i = find(key);
        if (i < 0) {
            return false;
        }
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            long k = keys[j];
            if (k == 0) {
                break;
            }
            int h = home(k);
            // Move k back into the hole at i unless its home lies cyclically in (i, j].
            boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (!stays) {
                keys[i] = k;
                locations[i] = locations[j];
                lengths[i] = lengths[j];
                i = j;
            }
        }
        keys[i] = 0;
        locations[i] = 0;
        lengths[i] = 0;
        size--;
        return true;
    }

    /**
     * Grows the table now, if needed, so that {@code more} new keys go in without growing it:
     * the memory a commit's entries need is found before the commit is written, not after.
     */
    void reserve(int more) {
        if ((long) size + more > resizeAt) {
            resize(capacityFor((int) Math.min(Integer.MAX_VALUE / 2, (long) size + more)));
        }
    }

    private void grow() {
        resize(keys.length << 1);
    }

    private void resize(int capacity) {
        long[] oldKeys = keys;
        long[] oldLocations = locations;
        int[] oldLengths = lengths;
        allocate(capacity);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                put(oldKeys[i], oldLocations[i], oldLengths[i]);
            }
        }
    }

    /** Copies of the three arrays, for a checkpoint taken outside the lock. */
    Snapshot snapshot() {
        return new Snapshot(keys.clone(), locations.clone(), lengths.clone(), size);
    }

    record Snapshot(long[] keys, long[] locations, int[] lengths, int size) {
    }

    @Override
    public String toString() {
        return "LongIndex[size=" + size + ", capacity=" + keys.length + "]";
    }

    /** For tests: every key in slot order. */
    long[] keys() {
        return Arrays.stream(keys).filter(k -> k != 0).toArray();
    }
}
