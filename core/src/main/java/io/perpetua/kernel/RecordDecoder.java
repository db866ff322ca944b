package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.PersistentStoreException;
import io.perpetua.kernel.ClassDescriptor.Kind;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.RecordReader;

import java.io.File;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Currency;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;

/**
 * Decodes what {@link RecordEncoder} wrote. As a {@link RecordReader} it serves the fields of
 * one rewritten object straight from the record when the stored layout is the class's current
 * one; {@link #evolved} adapts a record written under an older layout. References to other
 * objects are resolved through the {@link Resolve} it was made with. Not thread-safe: the
 * kernel uses it under its lock.
 */
final class RecordDecoder implements RecordReader {

    /** How the decoder turns references into objects. */
    interface Resolve {
        /** @return the object of an id: resident, or a new hollow shell of the described class */
        Object object(ClassDescriptor descriptor, long id);

        /** @return the container of an id, read and filled now */
        Object container(long id);

        /**
         * @return the container embedded at the decoder's position (its descriptor id and body
         *         follow): the resident one if the id is resident (the bytes are then read and
         *         dropped), else a new one decoded from them
         */
        Object embedded(long id, RecordDecoder decoder);

        /**
         * Adds what a hashed or sorted collection or map read from the store holds, once all of
         * it is decoded: adding runs the elements' hashCode, equals or compareTo, which may read
         * objects, so the decoder's position must not depend on it.
         *
         * @param contents a collection's elements, or a map's keys and values, alternating
         */
        void fill(Object container, Object[] contents);

        /**
         * Fills every container {@link #container} returned empty ({@link #shell}), before code
         * runs that may read what they hold: a record's constructor, a set or map hashing or
         * sorting what it is made with. Cheap when there is none.
         */
        default void settle() {
        }
    }

    private final ClassRegistry classes;
    private final Resolve resolve;
    private final StringCache strings;
    private ByteIn in;
    /** The store and the object whose record this is, to name it in errors. */
    private String location;
    /** Steps over the stored values of fields a class dropped since ({@link #evolved}); made at the first. */
    private ReferenceScanner dropped;
    private long objectId;
    /** While a fill may leave array fields lazy: the class's {@link ClassInfo#lazyMarkers}, else null. */
    private Object[] lazyMarkers;
    /** Where each lazy field's value starts, by reference-field ordinal; null until one is left lazy. */
    private int[] lazyAt;
    /** Reference fields read through {@link #readObject} since the last {@link #reset} or {@link #leaveArraysLazy}. */
    private int refOrdinal;

    /** @param strings the kernel's shared short strings, or null to decode every string anew */
    RecordDecoder(ClassRegistry classes, Resolve resolve, StringCache strings) {
        this.classes = classes;
        this.resolve = resolve;
        this.strings = strings;
    }

    /** Points the decoder at a record body, of object {@code objectId} in the store at {@code location}. */
    RecordDecoder reset(ByteIn in, String location, long objectId) {
        this.in = in;
        this.location = location;
        this.objectId = objectId;
        this.refOrdinal = 0;
        return this;
    }

    /** @return how many reference fields {@link #readObject} has served since the last {@link #reset} */
    int referencesRead() {
        return refOrdinal;
    }

    ByteIn in() {
        return in;
    }

    /**
     * Lets the fields read next (one object's, through {@link #readObject}) be left lazy: an
     * array field with a marker whose value is an embedded container with its length, or a
     * container with a record of its own, is stepped over and read as its marker.
     */
    void leaveArraysLazy(Object[] markers) {
        lazyMarkers = markers;
        lazyAt = null;
        refOrdinal = 0;
    }

    /** @return where the fields left lazy start (see {@link LazyFields#at}), or null if none was; ends {@link #leaveArraysLazy} */
    int[] lazyFields() {
        int[] at = lazyAt;
        lazyMarkers = null;
        lazyAt = null;
        return at;
    }

    // ---- RecordReader ----

    @Override
    public boolean readBoolean() {
        return in.readByte() != 0;
    }

    @Override
    public byte readByte() {
        return (byte) in.readByte();
    }

    @Override
    public char readChar() {
        return (char) in.readVarInt();
    }

    @Override
    public short readShort() {
        return (short) in.readSignedVarInt();
    }

    @Override
    public int readInt() {
        return in.readSignedVarInt();
    }

    @Override
    public long readLong() {
        return in.readSignedVarLong();
    }

    @Override
    public float readFloat() {
        return Float.intBitsToFloat(in.readFixedInt());
    }

    @Override
    public double readDouble() {
        return Double.longBitsToDouble(in.readFixedLong());
    }

    @Override
    public Object readObject() {
        Object[] markers = lazyMarkers;
        int k = refOrdinal++;
        if (markers != null) {
            int start = in.position();
            if (k < markers.length && markers[k] != null && stepOverContainer(in)) {
                if (lazyAt == null) {
                    lazyAt = new int[markers.length];
                }
                lazyAt[k] = start; // never 0: the record starts with its descriptor id
                return markers[k];
            }
        }
        Object v = value();
        // The codec stores v in a field that other threads read without the lock (the agent's
        // value-first read): what v is made of (a shell's state, a container's elements) is
        // written before it can be seen there.
        VarHandle.releaseFence();
        return v;
    }

    /**
     * Moves past a container reference or an embedded container with its length, if one is next.
     *
     * @return false, having moved nothing, if the next value is neither
     */
    static boolean stepOverContainer(ByteIn in) {
        int tag = in.peekByte();
        if (tag == Tag.INLINE_CONTAINER_SIZED) {
            in.readByte();
            in.readVarLong();
            in.skip(in.readCount());
        } else if (tag == Tag.CONTAINER) {
            in.readByte();
            in.readVarLong();
        } else {
            return false; // null, or an older record's embedding without a length
        }
        return true;
    }

    /** Reads one field of a stored type code, boxed. */
    Object field(char type) {
        return switch (type) {
            case 'Z' -> readBoolean();
            case 'B' -> readByte();
            case 'C' -> readChar();
            case 'S' -> readShort();
            case 'I' -> readInt();
            case 'J' -> readLong();
            case 'F' -> readFloat();
            case 'D' -> readDouble();
            default -> value();
        };
    }

    // ---- schema evolution ----

    /**
     * @return a reader that serves the fields of {@code current} from a record written under
     *         {@code stored}, matched and converted by the rules of {@link LayoutEvolution}
     * @throws IncompatibleClassChangeException if a stored value may not fit its field's new kind
     */
    FieldValues evolved(ClassDescriptor stored, ClassDescriptor current) {
        int[] source = classes.match(stored, current);
        boolean[] kept = new boolean[stored.fields.size()];
        for (int j : source) {
            if (j >= 0) {
                kept[j] = true;
            }
        }
        Object[] values = new Object[kept.length];
        for (int j = 0; j < values.length; j++) {
            char type = stored.fields.get(j).type();
            if (kept[j]) {
                values[j] = field(type);
            } else { // stepped over, not read: its class may be gone with the field
                if (dropped == null) {
                    dropped = new ReferenceScanner(classes, location, id -> { });
                }
                dropped.field(in, objectId, type);
            }
        }
        return new FieldValues(LayoutEvolution.served(values, source, stored, current));
    }

    static Object defaultValue(char type) {
        return switch (type) {
            case 'Z' -> false;
            case 'B' -> (byte) 0;
            case 'C' -> (char) 0;
            case 'S' -> (short) 0;
            case 'I' -> 0;
            case 'J' -> 0L;
            case 'F' -> 0f;
            case 'D' -> 0d;
            default -> null;
        };
    }

    // ---- values ----

    Object value() {
        int tag = in.readByte() & 0xFF;
        switch (tag) {
            case Tag.NULL:
                return null;
            case Tag.OBJECT:
            case Tag.SATELLITE:
            case Tag.LOCAL: {
                ClassDescriptor d = classes.byId(in.readVarInt(), location, objectId);
                if (d.kind != Kind.OBJECT) {
                    throw new ByteIn.MalformedRecord("an object reference names " + d + ", which is not a class");
                }
                long id = switch (tag) {
                    case Tag.OBJECT -> in.readVarLong();
                    case Tag.SATELLITE -> Satellites.readReference(in);
                    default -> Satellites.readLocalReference(in, Satellites.home(objectId));
                };
                return resolve.object(d, id);
            }
            case Tag.CONTAINER:
                return resolve.container(in.readVarLong());
            case Tag.INLINE_CONTAINER:
                return resolve.embedded(in.readVarLong(), this);
            case Tag.INLINE_CONTAINER_SIZED: {
                long id = in.readVarLong();
                int length = in.readCount();
                int end = in.position() + length;
                Object c = resolve.embedded(id, this);
                if (in.position() != end) {
                    throw new ByteIn.MalformedRecord("an embedded container said it takes " + length + " bytes and took "
                            + (in.position() - end + length));
                }
                return c;
            }
            case Tag.STRING:
                return in.readString(strings);
            case Tag.TRUE:
                return Boolean.TRUE;
            case Tag.FALSE:
                return Boolean.FALSE;
            case Tag.BYTE:
                return (byte) in.readByte();
            case Tag.CHAR:
                return (char) in.readVarInt();
            case Tag.SHORT:
                return (short) in.readSignedVarInt();
            case Tag.INT:
                return in.readSignedVarInt();
            case Tag.LONG:
                return in.readSignedVarLong();
            case Tag.FLOAT:
                return Float.intBitsToFloat(in.readFixedInt());
            case Tag.DOUBLE:
                return Double.longBitsToDouble(in.readFixedLong());
            case Tag.ENUM:
                return enumConstant(classes.byId(in.readVarInt(), location, objectId), in.readString());
            case Tag.CONSTANT:
                return classes.constant(in.readString(), in.readString());
            case Tag.MATH_CONTEXT: {
                int precision = in.readVarInt();
                int mode = in.readVarInt();
                if (mode >= java.math.RoundingMode.values().length) {
                    throw new ByteIn.MalformedRecord("a MathContext names rounding mode " + mode);
                }
                return new java.math.MathContext(precision, java.math.RoundingMode.values()[mode]);
            }
            case Tag.RECORD:
                return record(classes.byId(in.readVarInt(), location, objectId));
            case Tag.REPLACED:
                return replaced(classes.byId(in.readVarInt(), location, objectId));
            case Tag.VALUE_CONTAINER: {
                ClassDescriptor d = classes.byId(in.readVarInt(), location, objectId);
                if (!d.kind.isContainer()) {
                    throw new ByteIn.MalformedRecord("a container value is of " + d + ", not a container");
                }
                return container(d, c -> { }); // no id: nothing to register it under
            }
            case Tag.BIG_INTEGER:
                return new BigInteger(nonEmpty(in.readBytes(in.readCount())));
            case Tag.BIG_DECIMAL: {
                int scale = in.readSignedVarInt();
                return new BigDecimal(new BigInteger(nonEmpty(in.readBytes(in.readCount()))), scale);
            }
            case Tag.UUID:
                return new UUID(in.readFixedLong(), in.readFixedLong());
            case Tag.CLASS:
                return classValue();
            case Tag.LOCALE:
            case Tag.CURRENCY:
            case Tag.URI:
            case Tag.URL:
            case Tag.PATH:
            case Tag.FILE:
            case Tag.PATTERN:
            case Tag.CHARSET:
                return platform(tag);
            case Tag.OPTIONAL_EMPTY:
                return Optional.empty();
            case Tag.OPTIONAL: {
                Object v = value();
                if (v == null) {
                    throw new ByteIn.MalformedRecord("an Optional holds null");
                }
                return Optional.of(v);
            }
            case Tag.OPTIONAL_INT:
                return OptionalInt.of(in.readSignedVarInt());
            case Tag.OPTIONAL_LONG:
                return OptionalLong.of(in.readSignedVarLong());
            case Tag.OPTIONAL_DOUBLE:
                return OptionalDouble.of(Double.longBitsToDouble(in.readFixedLong()));
            case Tag.OPTIONAL_INT_EMPTY:
                return OptionalInt.empty();
            case Tag.OPTIONAL_LONG_EMPTY:
                return OptionalLong.empty();
            case Tag.OPTIONAL_DOUBLE_EMPTY:
                return OptionalDouble.empty();
            case Tag.NATURAL_ORDER:
                return Comparator.naturalOrder();
            case Tag.REVERSE_ORDER:
                return Collections.reverseOrder();
            case Tag.CASE_INSENSITIVE_ORDER:
                return String.CASE_INSENSITIVE_ORDER;
            default:
                return time(tag);
        }
    }

    /** Reads a {@link Tag#CLASS} value after its tag. */
    private Class<?> classValue() {
        int dimensions = in.readVarInt();
        Class<?> c = classes.classValue(in.readString());
        if (dimensions > 255 || c == void.class && dimensions > 0) {
            throw new ByteIn.MalformedRecord("a stored Class value names " + dimensions + " array dimensions of " + c);
        }
        for (int i = 0; i < dimensions; i++) {
            c = c.arrayType();
        }
        return c;
    }

    /** Reads the JDK's value classes of tags {@link Tag#LOCALE} to {@link Tag#CHARSET}. */
    private Object platform(int tag) {
        try {
            return switch (tag) {
                case Tag.LOCALE -> in.readVarInt() == 0 ? Locale.forLanguageTag(in.readString())
                        : legacyLocale(in.readString(), in.readString(), in.readString());
                case Tag.CURRENCY -> Currency.getInstance(in.readString());
                case Tag.URI -> new URI(in.readString());
                case Tag.URL -> new URL(in.readString());
                case Tag.PATH -> Path.of(in.readString());
                case Tag.FILE -> new File(in.readString());
                case Tag.PATTERN -> Pattern.compile(in.readString(), in.readVarInt());
                default -> Charset.forName(in.readString());
            };
        } catch (URISyntaxException | MalformedURLException | IllegalArgumentException e) {
            // a bad pattern, path, charset, currency code or URI is an IllegalArgumentException
            throw new ByteIn.MalformedRecord("a stored value of tag " + tag + " is not valid in this JVM: " + e);
        }
    }

    /** {@code new Locale(language, country, variant)}: the one constructor that keeps any three strings as given. */
    @SuppressWarnings("deprecation") // Locale.of (JDK 19) is the same call; this module compiles for 17
    static Locale legacyLocale(String language, String country, String variant) {
        return new Locale(language, country, variant);
    }

    private static byte[] nonEmpty(byte[] b) {
        if (b.length == 0) {
            throw new ByteIn.MalformedRecord("an empty big number");
        }
        return b;
    }

    private Object time(int tag) {
        try {
            switch (tag) {
                case Tag.LOCAL_DATE:
                    return LocalDate.ofEpochDay(in.readSignedVarLong());
                case Tag.LOCAL_TIME:
                    return LocalTime.ofNanoOfDay(in.readVarLong());
                case Tag.LOCAL_DATE_TIME:
                    return localDateTime();
                case Tag.INSTANT:
                    return Instant.ofEpochSecond(in.readSignedVarLong(), in.readVarInt());
                case Tag.DURATION:
                    return Duration.ofSeconds(in.readSignedVarLong(), in.readVarInt());
                case Tag.PERIOD:
                    return Period.of(in.readSignedVarInt(), in.readSignedVarInt(), in.readSignedVarInt());
                case Tag.ZONE_OFFSET:
                    return ZoneOffset.ofTotalSeconds(in.readSignedVarInt());
                case Tag.ZONE_ID:
                    return ZoneId.of(in.readString());
                case Tag.OFFSET_DATE_TIME:
                    return OffsetDateTime.of(localDateTime(), ZoneOffset.ofTotalSeconds(in.readSignedVarInt()));
                case Tag.ZONED_DATE_TIME: {
                    LocalDateTime t = localDateTime();
                    ZoneOffset offset = ZoneOffset.ofTotalSeconds(in.readSignedVarInt());
                    return ZonedDateTime.ofLocal(t, ZoneId.of(in.readString()), offset);
                }
                case Tag.OFFSET_TIME:
                    return OffsetTime.of(LocalTime.ofNanoOfDay(in.readVarLong()), ZoneOffset.ofTotalSeconds(in.readSignedVarInt()));
                case Tag.YEAR:
                    return Year.of(in.readSignedVarInt());
                case Tag.YEAR_MONTH:
                    return YearMonth.of(in.readSignedVarInt(), in.readVarInt());
                case Tag.MONTH_DAY:
                    return MonthDay.of(in.readVarInt(), in.readVarInt());
                default:
                    throw new ByteIn.MalformedRecord("unknown value tag " + tag);
            }
        } catch (java.time.DateTimeException e) {
            throw new ByteIn.MalformedRecord("a date or time out of range: " + e.getMessage());
        }
    }

    private LocalDateTime localDateTime() {
        LocalDate d = LocalDate.ofEpochDay(in.readSignedVarLong());
        return LocalDateTime.of(d, LocalTime.ofNanoOfDay(in.readVarLong()));
    }

    private Object enumConstant(ClassDescriptor d, String name) {
        if (d.kind != Kind.ENUM) {
            throw new ByteIn.MalformedRecord("an enum value names " + d + ", which is not an enum");
        }
        return constant(enumClass(d.className), name);
    }

    private Object record(ClassDescriptor stored) {
        if (stored.kind != Kind.RECORD) {
            throw new ByteIn.MalformedRecord("a record value names " + stored + ", which is not a record");
        }
        Class<?> type = classes.resolve(stored.className);
        if (!type.isRecord()) {
            throw new IncompatibleClassChangeException(stored.className, null, "it was stored as a record and is no longer one");
        }
        ClassInfo ri = classes.info(type);
        Object[] args = fields(stored, ri);
        resolve.settle(); // the constructor may read what the components hold
        try {
            return ri.recordConstructor.invoke(args);
        } catch (RuntimeException | Error e) {
            throw new PersistentStoreException("the canonical constructor of record " + type.getName()
                    + " rejected its stored components: " + e, e);
        } catch (Throwable t) {
            throw new PersistentStoreException("the canonical constructor of record " + type.getName() + " failed: " + t, t);
        }
    }

    /**
     * @return the fields of a record value or a replacement stored under layout {@code stored},
     *         boxed, in the order of the class's current layout
     */
    private Object[] fields(ClassDescriptor stored, ClassInfo current) {
        FieldValues evolved = stored == current.descriptor ? null : evolved(stored, current.descriptor);
        Object[] values = new Object[current.descriptor.fields.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = evolved == null ? field(current.descriptor.fields.get(i).type()) : evolved.next();
        }
        return values;
    }

    /**
     * Reads an object stored by its serialization replacement (see {@link ClassInfo#writeReplace}):
     * makes the replacement, fills it from the fields that follow, and returns what its
     * {@code readResolve} makes of it, as Java serialization would. The replacement is no object
     * of the store: it has no id and is dropped once resolved.
     */
    Object replaced(ClassDescriptor stored) {
        if (stored.kind != Kind.OBJECT) {
            throw new ByteIn.MalformedRecord("a replaced object names " + stored + ", which is not an object's class");
        }
        Class<?> type = classes.resolve(stored.className);
        ClassInfo ri = classes.info(type);
        if (ri.factory == null) {
            throw new IncompatibleClassChangeException(stored.className, null,
                    "it was stored as the serialization replacement of an object and has no creation proxy now (abstract?)");
        }
        Object[] values = fields(stored, ri);
        Persistent replacement = ri.factory.newInstance(); // transient: its reads never fault
        replacement.$perpetua$read(new FieldValues(values));
        if (ri.readResolve == null) {
            return replacement;
        }
        resolve.settle(); // readResolve may hash or sort what the fields hold
        try {
            return ri.readResolve.invoke(replacement);
        } catch (RuntimeException | Error e) {
            throw new PersistentStoreException("the readResolve of " + type.getName()
                    + " rejected its stored fields: " + e, e);
        } catch (Throwable t) {
            throw new PersistentStoreException("the readResolve of " + type.getName() + " failed: " + t, t);
        }
    }

    // ---- containers ----

    /**
     * Decodes a container body. For kinds made empty and then filled, {@code register} is
     * called with the new container before its elements are read, so cycles resolve to it.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    Object container(ClassDescriptor d, java.util.function.Consumer<Object> register) {
        switch (d.kind) {
            case ARRAY: {
                Object a = newArray(d);
                register.accept(a);
                fillArray(a, Array.getLength(a));
                return a;
            }
            case COLLECTION, MAP, ATOMIC_REFERENCE, ENTRY: {
                Object c = shell(d);
                register.accept(c);
                fillShell(c, d);
                return c;
            }
            case ENUM_SET: {
                Class type = enumClass(in.readString());
                EnumSet set = EnumSet.noneOf(type);
                register.accept(set);
                int n = in.readCount();
                for (int i = 0; i < n; i++) {
                    set.add(constant(type, in.readString()));
                }
                return set;
            }
            case ENUM_MAP: {
                Class type = enumClass(in.readString());
                EnumMap map = new EnumMap(type);
                register.accept(map);
                int n = in.readCount();
                for (int i = 0; i < n; i++) {
                    Enum<?> k = constant(type, in.readString());
                    map.put(k, value());
                }
                return map;
            }
            case IMMUTABLE_LIST, IMMUTABLE_SET, IMMUTABLE_MAP, UNMODIFIABLE_LIST, UNMODIFIABLE_SET,
                    UNMODIFIABLE_COLLECTION, UNMODIFIABLE_SORTED_SET, UNMODIFIABLE_MAP, UNMODIFIABLE_SORTED_MAP,
                    FIXED_SIZE_LIST, IMMUTABLE_ENTRY, WRAPPER, KEY_SET_VIEW:
                return builtFromElements(d);
            case VALUE:
                return value();
            case HOLDER: {
                Object h = holder(d);
                register.accept(h);
                return h;
            }
            case SERIALIZED: {
                Object o = JdkSerialized.read(in.readBytes(in.readCount()), d.className, classes);
                register.accept(o);
                return o;
            }
            default:
                throw new ByteIn.MalformedRecord(d + " does not describe a container");
        }
    }

    /** Reads what {@code RecordEncoder#holder} wrote. */
    private Object holder(ClassDescriptor d) {
        Class<?> type = classes.resolve(d.className);
        int end = in.readCount() + in.position();
        Object h;
        if (type == Date.class) {
            h = new Date(in.readSignedVarLong());
        } else if (type == StringBuilder.class) {
            h = new StringBuilder(in.readString());
        } else if (type == StringBuffer.class) {
            h = new StringBuffer(in.readString());
        } else if (type == AtomicInteger.class) {
            h = new AtomicInteger(in.readSignedVarInt());
        } else if (type == AtomicLong.class) {
            h = new AtomicLong(in.readSignedVarLong());
        } else if (type == AtomicBoolean.class) {
            h = new AtomicBoolean(in.readByte() != 0);
        } else if (Containers.SQL_TIMES.contains(d.className)) {
            h = SqlTimes.read(type, in);
        } else if (type == BitSet.class) {
            long[] words = new long[in.readCount()];
            for (int i = 0; i < words.length; i++) {
                words[i] = in.readFixedLong();
            }
            h = BitSet.valueOf(words);
        } else if (type == Object.class) {
            h = new Object();
        } else if (type == ReentrantLock.class) {
            h = new ReentrantLock(in.readByte() != 0);
        } else if (type == ReentrantReadWriteLock.class) {
            h = new ReentrantReadWriteLock(in.readByte() != 0);
        } else if (type == java.security.SecureRandom.class) {
            h = secureRandom(in.readString());
        } else {
            throw new IncompatibleClassChangeException(d.className, null, "not a holder Perpetua stores");
        }
        if (in.position() != end) {
            throw new ByteIn.MalformedRecord("a stored " + d.className + " does not end where its length says");
        }
        return h;
    }

    /** @return a new SecureRandom, seeded anew, of a stored algorithm if this JVM has it, else the default one */
    private static java.security.SecureRandom secureRandom(String algorithm) {
        try {
            return java.security.SecureRandom.getInstance(algorithm);
        } catch (java.security.NoSuchAlgorithmException e) {
            return new java.security.SecureRandom();
        }
    }

    /** Reads what {@code RecordEncoder#wrapper} wrote: wraps what it refers to, or a copy of what it showed. */
    @SuppressWarnings("unchecked")
    private Object wrapper(ClassDescriptor d) {
        Object wrapped;
        if (in.readCount() == 0) {
            wrapped = value();
        } else {
            Comparator<Object> comparator = Containers.wrapsSorted(d.className) ? (Comparator<Object>) value() : null;
            wrapped = Containers.copyFor(d.className, comparator);
            if (wrapped instanceof Map<?, ?> m) {
                entries((Map<Object, Object>) m);
            } else if (wrapped != null) {
                ((Collection<Object>) wrapped).addAll(settledElements());
            }
        }
        Object w = wrapped == null ? null : Containers.wrap(d.className, wrapped);
        if (w == null) {
            throw new ByteIn.MalformedRecord("a stored " + d.className + " wraps "
                    + (wrapped == null ? "nothing" : "a " + wrapped.getClass().getName()));
        }
        return w;
    }

    /**
     * Decodes a container that is made with its elements, not filled after it is made. Making
     * it runs the elements' own code (a sorted one's comparator or {@code compareTo}, a set's
     * {@code hashCode} and {@code equals}): what that throws on elements no such container
     * could have held (a damaged record's null in a sorted set, say) is reported as the store's
     * own exception, as {@link Kernel}'s fill of a hashed or sorted container reports it.
     */
    private Object builtFromElements(ClassDescriptor d) {
        try {
            return madeWithElements(d);
        } catch (PersistentStoreException | ByteIn.MalformedRecord | ClassCastException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new PersistentStoreException(location + ", object #" + objectId + ": a " + d.className
                    + " read from the store could not be made: adding an element runs the element's own code"
                    + " (hashCode, equals or compareTo), which threw " + e, e);
        }
    }

    @SuppressWarnings("unchecked")
    private Object madeWithElements(ClassDescriptor d) {
        switch (d.kind) {
            case IMMUTABLE_LIST: {
                List<Object> l = elements();
                List<Object> own = Containers.collectionsList(d.className, l);
                return own != null ? own : l.contains(null) ? l.stream().toList() : List.copyOf(l);
            }
            case IMMUTABLE_SET: {
                List<Object> l = settledElements();
                Set<Object> own = Containers.collectionsSet(d.className, l);
                return own != null ? own
                        : l.contains(null) ? Collections.unmodifiableSet(new LinkedHashSet<>(l)) : Set_copyOf(l);
            }
            case IMMUTABLE_MAP: {
                Map<Object, Object> m = entries(new LinkedHashMap<>());
                Map<Object, Object> own = Containers.collectionsMap(d.className, m);
                return own != null ? own
                        : m.containsKey(null) || m.containsValue(null) ? Collections.unmodifiableMap(m) : Map.copyOf(m);
            }
            case UNMODIFIABLE_LIST:
                return Collections.unmodifiableList(elements());
            case UNMODIFIABLE_SET:
                return Collections.unmodifiableSet(new LinkedHashSet<>(settledElements()));
            case UNMODIFIABLE_COLLECTION:
                return Collections.unmodifiableCollection(elements());
            case UNMODIFIABLE_SORTED_SET: {
                TreeSet<Object> s = new TreeSet<>((Comparator<Object>) value());
                s.addAll(settledElements());
                return Collections.unmodifiableNavigableSet(s);
            }
            case UNMODIFIABLE_MAP:
                return Collections.unmodifiableMap(entries(new LinkedHashMap<>()));
            case UNMODIFIABLE_SORTED_MAP:
                return Collections.unmodifiableNavigableMap(entries(new TreeMap<>((Comparator<Object>) value())));
            case FIXED_SIZE_LIST:
                return Arrays.asList(elements().toArray());
            case WRAPPER:
                return wrapper(d);
            case KEY_SET_VIEW: {
                Object map = value();
                Object mapped = value();
                if (!(map instanceof ConcurrentHashMap)) {
                    throw new ByteIn.MalformedRecord("a stored key set view is of "
                            + (map == null ? "null" : "a " + map.getClass().getName()));
                }
                ConcurrentHashMap<Object, Object> m = (ConcurrentHashMap<Object, Object>) map;
                return mapped == null ? m.keySet() : m.keySet(mapped);
            }
            case IMMUTABLE_ENTRY: {
                Object k = value();
                Object v = value();
                if (!d.className.equals(AbstractMap.SimpleImmutableEntry.class.getName())) { // Map.entry's class
                    if (k == null || v == null) {
                        throw new ByteIn.MalformedRecord("a stored Map.entry holds a null");
                    }
                    return Map.entry(k, v);
                }
                return new AbstractMap.SimpleImmutableEntry<>(k, v);
            }
            default:
                throw new ByteIn.MalformedRecord(d + " does not describe a container");
        }
    }

    /**
     * Makes, empty, the container of a record positioned at its body, if it is one made empty
     * and then filled: an array (of its stored length), a mutable collection or map (with its
     * comparator, if sorted). {@link #fillShell} then fills it from where this stopped.
     *
     * @return the empty container, or null for any other kind (then nothing was read)
     */
    Object shell(ClassDescriptor d) {
        switch (d.kind) {
            case ARRAY:
                return newArray(d);
            case COLLECTION: {
                Class<?> type = classes.resolve(d.className);
                Comparator<Object> comparator = comparator(type);
                int capacity = Containers.bounded(type) ? in.readVarInt() : 0;
                if (Containers.bounded(type) && capacity < 1) {
                    throw new ByteIn.MalformedRecord("a stored " + d.className + " has capacity " + capacity);
                }
                Collection<Object> c = Containers.newCollection(type, comparator, capacity);
                if (c == null) {
                    throw new IncompatibleClassChangeException(d.className, null, "not a collection Perpetua stores");
                }
                return c;
            }
            case MAP: {
                Class<?> type = classes.resolve(d.className);
                Map<Object, Object> m = Containers.newMap(type, comparator(type));
                if (m == null) {
                    throw new IncompatibleClassChangeException(d.className, null, "not a map Perpetua stores");
                }
                return m;
            }
            case ATOMIC_REFERENCE:
                return new AtomicReference<>();
            case ENTRY:
                return new AbstractMap.SimpleEntry<>(value(), null); // the key: fixed when it is made
            default:
                return null;
        }
    }

    /** @return the comparator a sorted collection or map of {@code type} is stored with, read next; null if unsorted */
    @SuppressWarnings("unchecked")
    private Comparator<Object> comparator(Class<?> type) {
        return Containers.sorted(type) ? (Comparator<Object>) value() : null;
    }

    /**
     * Fills a container {@link #shell} made, reading on from where it stopped. A collection or
     * map that hashes or sorts gets its contents through {@link Resolve#fill}, once all of them
     * are read.
     */
    @SuppressWarnings("unchecked")
    void fillShell(Object shell, ClassDescriptor d) {
        if (d.kind == Kind.ARRAY) {
            fillArray(shell, Array.getLength(shell));
            return;
        }
        if (d.kind == Kind.ATOMIC_REFERENCE) {
            ((AtomicReference<Object>) shell).set(value());
            return;
        }
        if (d.kind == Kind.ENTRY) {
            ((AbstractMap.SimpleEntry<Object, Object>) shell).setValue(value());
            return;
        }
        // the class shell() made it of: no second lookup of the stored name
        boolean positional = !Containers.addingRunsElementCode(Containers.storedClass(shell));
        int n = in.readCount();
        if (d.kind == Kind.COLLECTION) {
            Collection<Object> c = (Collection<Object>) shell;
            if (positional) {
                for (int i = 0; i < n; i++) {
                    c.add(value());
                }
                return;
            }
            Object[] elements = new Object[n];
            for (int i = 0; i < n; i++) {
                elements[i] = value();
            }
            resolve.fill(c, elements); // adding runs the elements' code: after all of them are read
            return;
        }
        Map<Object, Object> m = (Map<Object, Object>) shell;
        if (positional) {
            for (int i = 0; i < n; i++) {
                Object k = value();
                m.put(k, value());
            }
            return;
        }
        Object[] entries = new Object[2 * n];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = value();
        }
        resolve.fill(m, entries);
    }

    /** @return a new array of the described class, of the length the record gives next */
    private Object newArray(ClassDescriptor d) {
        Class<?> type = classes.resolve(d.className);
        if (!type.isArray()) {
            throw new ByteIn.MalformedRecord(d.className + " is not an array class");
        }
        return Array.newInstance(type.getComponentType(), in.readCount());
    }

    private static Object Set_copyOf(List<Object> l) {
        return java.util.Set.copyOf(l);
    }

    private List<Object> elements() {
        int n = in.readCount();
        List<Object> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(value());
        }
        return l;
    }

    /** @return the elements the record gives next, each filled: a set hashes or sorts them as it is made */
    private List<Object> settledElements() {
        List<Object> l = elements();
        resolve.settle();
        return l;
    }

    /** Puts the entries the record gives next into {@code m}, which hashes or sorts each key as it gets it. */
    private <M extends Map<Object, Object>> M entries(M m) {
        int n = in.readCount();
        for (int i = 0; i < n; i++) {
            Object k = value();
            Object v = value();
            resolve.settle();
            m.put(k, v);
        }
        return m;
    }

    private Class<?> enumClass(String name) {
        Class<?> type = classes.resolve(name);
        if (!type.isEnum()) {
            throw new IncompatibleClassChangeException(name, null, "it was stored as an enum and is no longer one");
        }
        return type;
    }

    /** @return the constant stored as {@code name}, or as the name the application declares it renamed to */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private Enum<?> constant(Class type, String name) {
        String current = classes.currentMember(type, name);
        try {
            return Enum.valueOf(type, current);
        } catch (IllegalArgumentException e) {
            throw new IncompatibleClassChangeException(type.getName(), name, "the enum constant " + name
                    + (current.equals(name) ? "" : ", renamed " + current + ",") + " no longer exists (declare a renamed"
                    + " constant in " + ClassRenames.RESOURCE + ": " + type.getName() + "#" + name + " = its new name)");
        }
    }

    private void fillArray(Object a, int n) {
        Class<?> ct = a.getClass().getComponentType();
        if (!ct.isPrimitive()) {
            Object[] objects = (Object[]) a;
            for (int i = 0; i < n; i++) {
                Object v = value();
                if (v != null && !ct.isInstance(v)) {
                    throw new IncompatibleClassChangeException(a.getClass().getTypeName(), "[" + i + "]",
                            "an element of class " + v.getClass().getName() + " no longer fits the array");
                }
                objects[i] = v;
            }
        } else if (ct == int.class) {
            int[] v = (int[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = in.readSignedVarInt();
            }
        } else if (ct == long.class) {
            long[] v = (long[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = in.readSignedVarLong();
            }
        } else if (ct == byte.class) {
            System.arraycopy(in.readBytes(n), 0, a, 0, n);
        } else if (ct == boolean.class) {
            boolean[] v = (boolean[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = in.readByte() != 0;
            }
        } else if (ct == char.class) {
            char[] v = (char[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = (char) in.readVarInt();
            }
        } else if (ct == short.class) {
            short[] v = (short[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = (short) in.readSignedVarInt();
            }
        } else if (ct == float.class) {
            float[] v = (float[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = Float.intBitsToFloat(in.readFixedInt());
            }
        } else {
            double[] v = (double[]) a;
            for (int i = 0; i < n; i++) {
                v[i] = Double.longBitsToDouble(in.readFixedLong());
            }
        }
    }

    /**
     * Sets a holder (of a class {@link #holder} reads, an {@code AtomicReference} or a
     * {@code SimpleEntry}) to what its decoded copy holds.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void restoreHolder(Object target, Object copy) {
        if (target instanceof Date d) {
            d.setTime(((Date) copy).getTime());
            if (target.getClass() != Date.class) {
                SqlTimes.copyNanos((Date) copy, d);
            }
        } else if (target instanceof StringBuilder b) {
            b.setLength(0);
            b.append((StringBuilder) copy);
        } else if (target instanceof StringBuffer b) {
            b.setLength(0);
            b.append((StringBuffer) copy);
        } else if (target instanceof AtomicInteger a) {
            a.set(((AtomicInteger) copy).get());
        } else if (target instanceof AtomicLong a) {
            a.set(((AtomicLong) copy).get());
        } else if (target instanceof AtomicBoolean a) {
            a.set(((AtomicBoolean) copy).get());
        } else if (target instanceof BitSet b) {
            b.clear();
            b.or((BitSet) copy);
        } else if (target instanceof AtomicReference r) {
            r.set(((AtomicReference) copy).get());
        } else if (target instanceof AbstractMap.SimpleEntry e) {
            e.setValue(((AbstractMap.SimpleEntry) copy).getValue()); // its key never changes
        } else if (target.getClass() != Object.class && !(target instanceof ReentrantLock)
                && !(target instanceof ReentrantReadWriteLock) && !(target instanceof java.security.SecureRandom)) {
            // what these store (fairness, an algorithm) never changes
            throw new IllegalStateException("not a holder: " + target.getClass().getName()); // Containers lists no other
        }
    }

    /**
     * Puts the contents of a decoded copy back into the original container, for abort.
     * @return false if the container cannot be restored in place (an immutable view)
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static boolean restoreInto(Object target, Object copy) {
        if (target.getClass().isArray()) {
            System.arraycopy(copy, 0, target, 0, Array.getLength(target));
            return true;
        }
        Kind kind = Containers.kindOf(target);
        if (kind == Kind.WRAPPER) {
            // what it wraps is a container of its own, put back as itself; a copy's source (a
            // map's key set) is put back with its map. Cleared through the wrapper, a wrapped
            // container would be emptied, since the decoded copy wraps that same container.
            return false;
        }
        if (kind == Kind.SERIALIZED) {
            return JdkSerialized.restore(target, copy);
        }
        if (kind == Kind.HOLDER || kind == Kind.ATOMIC_REFERENCE || kind == Kind.ENTRY) {
            restoreHolder(target, copy);
            return true;
        }
        try {
            if (target instanceof Map m) {
                m.clear();
                m.putAll((Map) copy);
                return true;
            }
            if (target instanceof List l && copy instanceof List c && l.size() == c.size()
                    && Containers.kindOf(target) == Kind.FIXED_SIZE_LIST) {
                for (int i = 0; i < c.size(); i++) {
                    l.set(i, c.get(i));
                }
                return true;
            }
            if (target instanceof Collection c) {
                c.clear();
                c.addAll((Collection) copy);
                return true;
            }
        } catch (UnsupportedOperationException e) {
            return false;
        }
        return false;
    }
}
