package io.perpetua.kernel;

/**
 * A set of ids (positive longs): open addressing, linear probing, at most half full, no
 * boxing. Asking it costs no identity hash of an object, as an identity map would (the first
 * one of an object is a call into the JVM). Not thread-safe.
 */
final class LongSet {
    private long[] keys = new long[16];
    private int size;

    /** @return true if {@code key} (positive) was not in the set */
    boolean add(long key) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = ObjectTable.mix(key) & mask; ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return false;
            }
            if (keys[i] == 0) {
                keys[i] = key;
                size++;
                return true;
            }
        }
    }

    boolean contains(long key) {
        int mask = keys.length - 1;
        for (int i = ObjectTable.mix(key) & mask; keys[i] != 0; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return true;
            }
        }
        return false;
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
