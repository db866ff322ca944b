package io.perpetua.kernel;

/** The first byte of every reference value in a record. Stored: never renumber. */
final class Tag {
    static final int NULL = 0;
    /** A rewritten object: varint descriptor id, varlong object id. */
    static final int OBJECT = 1;
    /** A container with a record of its own: varlong object id. */
    static final int CONTAINER = 2;
    static final int STRING = 3;
    static final int TRUE = 4;
    static final int FALSE = 5;
    static final int BYTE = 6;
    static final int CHAR = 7;
    static final int SHORT = 8;
    static final int INT = 9;
    static final int LONG = 10;
    static final int FLOAT = 11;
    static final int DOUBLE = 12;
    /** varint enum descriptor id, string constant name. */
    static final int ENUM = 13;
    static final int BIG_INTEGER = 14;
    static final int BIG_DECIMAL = 15;
    static final int UUID = 16;
    static final int OPTIONAL_EMPTY = 17;
    static final int OPTIONAL = 18;
    /** varint record descriptor id, then the components as fields. */
    static final int RECORD = 19;
    static final int LOCAL_DATE = 20;
    static final int LOCAL_TIME = 21;
    static final int LOCAL_DATE_TIME = 22;
    static final int INSTANT = 23;
    static final int DURATION = 24;
    static final int PERIOD = 25;
    static final int ZONE_OFFSET = 26;
    static final int ZONE_ID = 27;
    static final int OFFSET_DATE_TIME = 28;
    static final int ZONED_DATE_TIME = 29;
    static final int OFFSET_TIME = 30;
    static final int YEAR = 31;
    static final int YEAR_MONTH = 32;
    static final int MONTH_DAY = 33;
    static final int NATURAL_ORDER = 34;
    static final int REVERSE_ORDER = 35;
    static final int CASE_INSENSITIVE_ORDER = 36;
    static final int OPTIONAL_INT = 37;
    static final int OPTIONAL_LONG = 38;
    static final int OPTIONAL_DOUBLE = 39;
    /**
     * A container embedded in the record of the one object that refers to it: varlong object
     * id, then the container's descriptor id and body. It keeps its id, so it can move to a
     * record of its own (be "promoted") when a second referrer appears.
     */
    static final int INLINE_CONTAINER = 40;
    /**
     * {@link #INLINE_CONTAINER} with the length of what follows the id: varlong object id, varint
     * length, then the container's descriptor id and body. The length lets a fill step over an
     * array field without decoding it (see {@link LazyFields}). What the encoder writes since
     * 0.1; records with tag 40 are still read.
     */
    static final int INLINE_CONTAINER_SIZED = 41;
    /**
     * A rewritten object stored as a {@link Satellites satellite}: varint descriptor id, varlong
     * id of its home, varint index in the home: {@link #OBJECT} with the id split, because an id
     * of {@code k << 40 | home} takes six or seven bytes as one varlong, and a home below
     * {@code 2^21} and {@code k} four (with this tag alone, OO1's records were 11% smaller; a
     * part's record holds about three such references, to its incoming connections). What the
     * encoder writes since 0.1; satellites referred to with tag 1 are still read.
     */
    static final int SATELLITE = 42;
    /**
     * A rewritten object held in the record this reference is in: varint descriptor id, varint
     * index, 0 for the record's own object (its home) or {@code k} for its satellite {@code k}.
     * Which record that is, a decoder knows from the id it reads: an OO1 part's references to
     * its own connections, and each connection's to its part, take three bytes so. Written in
     * the records of objects and satellites and in the containers embedded in them (whose
     * snapshots are read back with their owner's id), never in a container's own record.
     */
    static final int LOCAL = 43;
    /**
     * A {@link Constants constant}: string name of the class that declares it, string name of
     * the static final field that holds it. Format 3.
     */
    static final int CONSTANT = 44;
    /**
     * A {@code java.math.MathContext} (Scala's {@code BigDecimal} holds one): varint precision,
     * varint ordinal of its {@code RoundingMode}, whose constants the JDK fixes. Format 3.
     */
    static final int MATH_CONTEXT = 45;
    /**
     * A {@code java.util.Locale}: varint 0 and its BCP 47 language tag, or varint 1 and its
     * language, country and variant as given to {@code new Locale(String, String, String)} (an
     * ill-formed locale, or a legacy one such as {@code no_NO_NY}, that no tag gives back as
     * it was). Format 4, as are the tags after it.
     */
    static final int LOCALE = 46;
    /** A {@code java.util.Currency}: string ISO 4217 code. */
    static final int CURRENCY = 47;
    /** A {@code java.net.URI}: string, as {@code toString()} gives it. */
    static final int URI = 48;
    /** A {@code java.net.URL}: string, as {@code toExternalForm()} gives it. */
    static final int URL = 49;
    /** A {@code java.nio.file.Path} of the default file system: string, as {@code toString()} gives it. */
    static final int PATH = 50;
    /** A {@code java.io.File}: string, its {@code getPath()}. */
    static final int FILE = 51;
    /** A {@code java.util.regex.Pattern}: string pattern, varint flags. */
    static final int PATTERN = 52;
    /** A {@code java.nio.charset.Charset}: string canonical name. */
    static final int CHARSET = 53;
    /**
     * A {@code Class}: varint array dimensions, string name of the element class (a primitive
     * type's keyword, {@code int} or {@code void}, or a class's binary name). Format 6.
     */
    static final int CLASS = 54;
    /**
     * An object stored by its serialization replacement ({@link ClassInfo#writeReplace}): varint
     * descriptor id of the replacement's class (an object descriptor), then its fields as an
     * object's record has them. Read back through the replacement's {@code readResolve}.
     * Format 10 wrote such objects inline so, in each record referring to them; format 11 gives
     * them records of their own ({@link ClassDescriptor.Kind#REPLACED_OBJECT}) and reads this
     * tag only in records an earlier version wrote.
     */
    static final int REPLACED = 55;
    /**
     * A container written as a value, with no id (a field of a serialization replacement that
     * the store did not hold): varint descriptor id, then its body. Read back as a new
     * container each time. Format 10.
     */
    static final int VALUE_CONTAINER = 56;
    /**
     * An empty {@code OptionalInt}, {@code OptionalLong} and {@code OptionalDouble}. Format 11
     * and older wrote them as {@link #OPTIONAL_EMPTY}, which reads back as {@code Optional.empty()}
     * (still read so). Format 12.
     */
    static final int OPTIONAL_INT_EMPTY = 57;
    static final int OPTIONAL_LONG_EMPTY = 58;
    static final int OPTIONAL_DOUBLE_EMPTY = 59;

    private Tag() {
    }
}
