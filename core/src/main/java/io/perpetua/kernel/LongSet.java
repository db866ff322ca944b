package io.perpetua.kernel;

/**
 * A set of ids (positive longs), open addressing with no boxing, for a commit's bookkeeping:
 * asking it costs no identity hash of an object (the first one of an object is a call into the
 * JVM). Not thread-safe.
 */
final class LongSet {
    private long[] keys = new long[16];
    private int size;

    /** @return true if {@code id} was not in the set */
    boolean add(long id) {
        int mask = keys.length - 1;
        int i = ObjectTable.mix(id) & mask;
        for (long k; (k = keys[i]) != 0; i = (i + 1) & mask) {
            if (k == id) {
                return false;
            }
        }
        keys[i] = id;
        if (++size * 2 > keys.length) {
            grow();
        }
        return true;
    }

    boolean contains(long id) {
        int mask = keys.length - 1;
        for (int i = ObjectTable.mix(id) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == id) {
                return true;
            }
            if (k == 0) {
                return false;
            }
        }
    }

    private void grow() {
        long[] old = keys;
        keys = new long[old.length * 2];
        size = 0;
        for (long k : old) {
            if (k != 0) {
                add(k);
            }
        }
    }
}
