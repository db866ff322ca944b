package io.perpetua.kernel;

import java.nio.charset.StandardCharsets;

/**
 * Short ASCII strings as decoded, shared: records repeat the same short strings (type codes,
 * names, enum-like values), and a String object of its own for every copy read costs memory and
 * locality. OO1's part and connection types, one new String each per record, made a traversal
 * over resident objects read a separate string for every part it visited. H2 keeps a cache of
 * decoded strings for the same reason.
 *
 * <p>Direct-mapped: a slot holds the last string that hashed to it, so a lookup is one hash and
 * one comparison, and the cache never grows. Strings are values in the record format (their
 * identity is not stored), so sharing one object between fields changes nothing a program may
 * rely on. Not thread-safe: each kernel has one, used under its lock.
 */
final class StringCache {
    /** Longer strings are decoded without the cache: they repeat less, and cost more to compare. */
    static final int MAX_LENGTH = 32;
    private static final int SLOTS = 4096;

    private final String[] strings = new String[SLOTS];

    /**
     * @param buf holds {@code count} ASCII bytes at {@code pos}, {@code count <= MAX_LENGTH}
     * @return a string of those chars: a cached one if there is one
     */
    String ascii(byte[] buf, int pos, int count) {
        int hash = 0;
        for (int i = 0; i < count; i++) {
            hash = 31 * hash + buf[pos + i]; // String.hashCode of the same chars
        }
        int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
        String s = strings[slot];
        if (s != null && s.hashCode() == hash && s.length() == count && sameChars(s, buf, pos)) {
            return s;
        }
        s = new String(buf, pos, count, StandardCharsets.ISO_8859_1);
        strings[slot] = s;
        return s;
    }

    private static boolean sameChars(String s, byte[] buf, int pos) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != buf[pos + i]) {
                return false;
            }
        }
        return true;
    }
}
