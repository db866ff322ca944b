package io.perpetua.kernel;

/**
 * The version of the record format, stored with the class descriptors so that a version of
 * Perpetua that cannot read a store says so when the store is opened, not with a "corrupt
 * record" on the first object it cannot decode.
 *
 * <ul>
 *   <li>1: references to objects by id (tag 1). A store with no format entry is in format 1.</li>
 *   <li>2: also references to satellites by home and index ({@link Tag#SATELLITE}) and within
 *       the record ({@link Tag#LOCAL}). Format 2 reads format 1 records.</li>
 *   <li>3: also references to {@link Constants constants} by class and field name
 *       ({@link Tag#CONSTANT}), and {@code MathContext} values ({@link Tag#MATH_CONTEXT}).
 *       Format 3 reads format 1 and 2 records.</li>
 *   <li>4: also {@code Locale}, {@code Currency}, {@code URI}, {@code URL}, {@code Path},
 *       {@code File}, {@code Pattern} and {@code Charset} values ({@link Tag#LOCALE} to
 *       {@link Tag#CHARSET}), and holder containers ({@code Date}, {@code StringBuilder},
 *       the atomic numbers, {@code BitSet}: {@link ClassDescriptor.Kind#HOLDER}). Format 4
 *       reads format 1 to 3 records.</li>
 *   <li>5: also {@code java.sql.Timestamp}, {@code java.sql.Date} and {@code java.sql.Time} as
 *       holders ({@link SqlTimes}, class names a format 4 reader does not know), and
 *       {@code AtomicReference}, the JDK's three {@code Map.Entry} classes and the
 *       {@code Collections.synchronized*} wrappers ({@link ClassDescriptor.Kind#ATOMIC_REFERENCE}
 *       to {@link ClassDescriptor.Kind#WRAPPER}). Format 5 reads format 1 to 4 records.</li>
 *   <li>6: also {@code Class} values ({@link Tag#CLASS}). Format 6 reads format 1 to 5
 *       records.</li>
 *   <li>7: also plain {@code Object}s, {@code ReentrantLock}s and
 *       {@code ReentrantReadWriteLock}s as holders (class names a format 6 reader does not
 *       know). Format 7 reads format 1 to 6 records.</li>
 *   <li>8: also the JDK's other serializable classes, by their Java serialization
 *       ({@link ClassDescriptor.Kind#SERIALIZED}), and {@code SecureRandom} as a holder of its
 *       algorithm. Format 8 reads format 1 to 7 records.</li>
 *   <li>9: also the blocking queues as collections (the bounded ones with their capacity, before
 *       their elements), and {@code ConcurrentHashMap}'s key set views
 *       ({@link ClassDescriptor.Kind#KEY_SET_VIEW}). Format 9 reads format 1 to 8 records.</li>
 *   <li>10: also objects stored by their serialization replacement ({@link Tag#REPLACED}):
 *       Guava's immutable maps. Format 10 reads format 1 to 9 records.</li>
 *   <li>11: such objects have ids and records of their own (the record their replacement would
 *       have: {@link RecordEncoder#replacedObject}), so that they keep their identity; format 10
 *       stored them inline, as values. Format 11 reads format 1 to 10 records.</li>
 *   <li>12: also empty {@code OptionalInt}, {@code OptionalLong} and {@code OptionalDouble} values
 *       ({@link Tag#OPTIONAL_INT_EMPTY} to {@link Tag#OPTIONAL_DOUBLE_EMPTY}); format 11 and older
 *       wrote them as an empty {@code Optional}, which is how their records still read. Also
 *       {@code Collections.emptyNavigableSet()} and {@code emptyNavigableMap()} (and the sorted
 *       ones, the same objects), as immutable sets and maps of their class, which a format 11
 *       reader would read as {@code Set.of()} and {@code Map.of()}. Format 12 reads format 1 to
 *       11 records.</li>
 * </ul>
 *
 * <p>The entry is a class descriptor entry (an id of the descriptors' sequence) whose bytes
 * start with a 0 where a descriptor starts with its own version (1): {@code varint 0, varint
 * format}. A version of Perpetua from before the entry reports it as a class descriptor in an
 * unknown format. The first commit that writes anything to a store without the current format's
 * entry adds one: a store is never marked newer than what it may hold, nor left older. Stateless.
 */
final class RecordFormat {
    /** What {@link io.perpetua.UnsupportedStoreFormatException} calls it. */
    static final String NAME = "record format";
    /** The format this version writes, and the newest it reads. */
    static final int CURRENT = 12;
    /** The format of a store that holds no format entry. */
    static final int UNMARKED = 1;
    /** What a format entry's bytes start with; a class descriptor starts with its version, 1. */
    private static final int ENTRY = 0;

    private RecordFormat() {
    }

    /** @return true if a descriptor entry's bytes are a format entry, not a class descriptor */
    static boolean isEntry(byte[] bytes) {
        return bytes.length > 0 && bytes[0] == ENTRY;
    }

    /** @return the format a format entry names */
    static int decode(byte[] bytes) {
        ByteIn in = new ByteIn(bytes);
        in.readVarInt();
        int format = in.readVarInt();
        if (format < 1 || !in.atEnd()) {
            throw new ByteIn.MalformedRecord("a record format entry names format " + format
                    + (in.atEnd() ? "" : " and has bytes after it"));
        }
        return format;
    }

    /** @return the bytes of the entry for {@link #CURRENT} */
    static byte[] encodeCurrent() {
        ByteOut out = new ByteOut(4);
        out.writeVarInt(ENTRY);
        out.writeVarInt(CURRENT);
        return out.toByteArray();
    }
}
