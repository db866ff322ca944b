package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.kernel.ClassDescriptor.Kind;
import io.perpetua.runtime.InheritedViews;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordWriter;

import java.io.File;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.file.FileSystems;
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
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Currency;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;
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
 * Encodes records: the fields of rewritten objects (as their {@link RecordWriter}), the bodies
 * of containers, and inline values. Every reference it meets is handed to the {@link Reach}
 * it was made with, which decides ids and makes newly reached objects persistent. Not
 * thread-safe: one encoder serves one commit.
 */
final class RecordEncoder implements RecordWriter {

    /** What the encoder asks about each reference it meets. */
    interface Reach {
        /** What {@link #object} returns for a {@link Constants constant}, which is stored by reference. */
        long CONSTANT = -1;

        /**
         * @return the id of a rewritten object, making it persistent if it is not yet; or
         *         {@link #CONSTANT}
         */
        long object(Persistent object, PathNode parent, String field, int index);

        /**
         * @param direct true when the container is the value of a field of the object being
         *               written (then it may be embedded in that object's record)
         * @return the id of a container, making it persistent if it is not yet, shifted left by
         *         one, with the low bit set if the container is to be embedded here
         */
        long container(Object container, Kind kind, PathNode parent, String field, int index, boolean direct);

        /**
         * Called with the bytes (descriptor id and body) of a container just embedded; null for
         * an array.
         */
        default void embedded(Object container, byte[] bytes) {
        }

        /** @return true if the container is one of the store's already (it has an id) */
        boolean isPersistentContainer(Object container);

        /** @return what a {@link Kind#WRAPPER} wraps (the kernel remembers it: see {@link Containers#wrapped}) */
        default Object wrapped(Object wrapper) {
            return Containers.wrapped(wrapper);
        }
    }

    private static final int MAX_VALUE_DEPTH = 512;

    /**
     * Classes whose instances are stored inline, by value (besides enums and records). In a
     * class of its own, loaded on the first {@link #isValue}: the set loads some twenty
     * {@code java.time} classes, which a program that stores none need not load.
     */
    private static final class ValueClasses {
        static final java.util.Set<Class<?>> ALL = java.util.Set.of(String.class, Integer.class,
                Long.class, Boolean.class, Double.class, Float.class, Byte.class, Short.class, Character.class,
                BigInteger.class, BigDecimal.class, UUID.class, Optional.class, OptionalInt.class, OptionalLong.class,
                OptionalDouble.class, LocalDate.class, LocalTime.class, LocalDateTime.class, Instant.class,
                Duration.class, Period.class, ZoneOffset.class, OffsetDateTime.class, ZonedDateTime.class,
                OffsetTime.class, Year.class, YearMonth.class, MonthDay.class, java.math.MathContext.class,
                Locale.class, Currency.class, URI.class, URL.class, File.class, Pattern.class, Class.class);
        /** The classes of the comparators stored by name, each the class of that one object. */
        static final java.util.Set<Class<?>> COMPARATORS = java.util.Set.of(Comparator.naturalOrder().getClass(),
                Collections.reverseOrder().getClass(), String.CASE_INSENSITIVE_ORDER.getClass());

        private ValueClasses() {
        }
    }

    /** @return true if {@code v} is stored inline, by value, rather than with an identity of its own */
    static boolean isValue(Object v) {
        return isValueClass(v.getClass());
    }

    /** @return true if objects of class {@code c} are stored inline, by value */
    static boolean isValueClass(Class<?> c) {
        return ValueClasses.ALL.contains(c) || Enum.class.isAssignableFrom(c) || c.isRecord()
                || ZoneId.class.isAssignableFrom(c) || Path.class.isAssignableFrom(c) || Charset.class.isAssignableFrom(c)
                || ValueClasses.COMPARATORS.contains(c);
    }

    private final ClassRegistry classes;
    private final Reach reach;
    private final ByteOut out = new ByteOut(512);
    private PathNode path;
    private ClassInfo info;
    /** The fields of the object being encoded that are not decoded yet, or null. */
    private LazyFields lazy;
    private int field;
    /** The reference-field ordinal of the next {@link #writeObject}. */
    private int refField;
    private int depth;
    /** Set by {@link #writeObject} for the one value it writes: a field of a rewritten object. */
    private boolean directField;
    /** The object whose record {@link #object} writes, whose transient fields may hold views of it; else null. */
    private Persistent holder;
    /** Set by {@link #replacedObject} for the one value it writes: a field of a serialization replacement. */
    private boolean replacementField;
    /** Whether the value being written is reached through a transient field (of a class that serializes itself). */
    private boolean inTransientField;
    /**
     * The id of the home whose record is being written, or 0: references to it and to its
     * satellites are written {@link Tag#LOCAL}.
     */
    private long home;

    RecordEncoder(ClassRegistry classes, Reach reach) {
        this.classes = classes;
        this.reach = reach;
    }

    /**
     * @param lazy the object's fields not decoded yet, whose stored values are copied as they
     *             are, or null
     * @param id the object's id, which says what record holds it (a satellite's is its home's)
     * @return the record of a rewritten object: descriptor id, then its fields
     */
    byte[] object(Persistent object, ClassInfo info, PathNode path, LazyFields lazy, long id) {
        out.reset();
        this.home = Satellites.home(id);
        this.path = path;
        this.info = info;
        this.lazy = lazy;
        this.holder = object;
        this.field = 0;
        this.refField = 0;
        if (info.renameClash != null) {
            throw new NotPersistableException(info.type.getName(), path.render(), info.renameClash);
        }
        out.writeVarInt(info.descriptor.id);
        try {
            object.$perpetua$write(this);
        } finally {
            this.lazy = null;
            this.holder = null;
        }
        if (field != info.descriptor.fields.size()) {
            throw new IllegalStateException("class " + info.type.getName() + " wrote " + field + " fields; its layout has "
                    + info.descriptor.fields.size());
        }
        return out.toByteArray();
    }

    /**
     * @param owner the id of the record that holds the container's bytes: the object's whose
     *              record embeds it, or the container's own (which no reference in it names as
     *              local), or 0 for none
     * @return the record of a container (descriptor id, then its body), or its bytes as its
     *         owner's record embeds them
     */
    byte[] container(Object c, Kind kind, PathNode path, long owner) {
        out.reset();
        this.home = Satellites.home(owner);
        this.path = path;
        this.info = null;
        containerInto(c, kind);
        return out.toByteArray();
    }

    /** {@link #containerInto(Object, Kind)}, for a container reached by {@code field} or {@code index}. */
    private void containerInto(Object c, Kind kind, String field, int index) {
        PathNode saved = path;
        path = path.child(field, index);
        try {
            containerInto(c, kind);
        } finally {
            path = saved;
        }
    }

    /** Writes a container's descriptor id and body at the current position. */
    private void containerInto(Object c, Kind kind) {
        ClassDescriptor d = kind == Kind.VALUE
                ? classes.descriptor(Kind.VALUE, "value", java.util.List.of())
                : classes.descriptor(kind, Containers.storedClass(c));
        out.writeVarInt(d.id);
        switch (kind) {
            case ARRAY -> {
                readable(c.getClass()); // its descriptor names its element class
                array(c);
            }
            case COLLECTION -> {
                if (Containers.sorted(Containers.storedClass(c))) {
                    value(Containers.comparator(c), "comparator", 0);
                }
                if (Containers.bounded(Containers.storedClass(c))) {
                    out.writeVarInt(Containers.capacity((Collection<?>) c));
                }
                elements((Collection<?>) c);
            }
            case MAP -> {
                if (Containers.sorted(Containers.storedClass(c))) {
                    value(Containers.comparator(c), "comparator", 0);
                }
                if (c instanceof Properties p) {
                    checkNoDefaults(p);
                }
                entries((Map<?, ?>) c);
            }
            case ENUM_SET -> {
                EnumSet<?> set = (EnumSet<?>) c;
                readable(Containers.enumSetElementType(set));
                out.writeString(Containers.enumSetElementType(set).getName());
                out.writeVarInt(set.size());
                for (Enum<?> e : set) {
                    checkEnumName(e);
                    out.writeString(e.name());
                }
            }
            case ENUM_MAP -> {
                EnumMap<?, ?> map = (EnumMap<?, ?>) c;
                readable(Containers.enumMapKeyType(map));
                out.writeString(Containers.enumMapKeyType(map).getName());
                out.writeVarInt(map.size());
                int i = 0;
                for (Map.Entry<? extends Enum<?>, ?> e : map.entrySet()) {
                    checkEnumName(e.getKey());
                    out.writeString(e.getKey().name());
                    value(e.getValue(), null, i++);
                }
            }
            case IMMUTABLE_LIST, IMMUTABLE_SET, UNMODIFIABLE_LIST, UNMODIFIABLE_SET, UNMODIFIABLE_COLLECTION,
                    FIXED_SIZE_LIST -> elements((Collection<?>) c);
            case UNMODIFIABLE_SORTED_SET -> {
                value(Containers.comparator(c), "comparator", 0);
                elements((Collection<?>) c);
            }
            case IMMUTABLE_MAP, UNMODIFIABLE_MAP -> entries((Map<?, ?>) c);
            case UNMODIFIABLE_SORTED_MAP -> {
                value(Containers.comparator(c), "comparator", 0);
                entries((Map<?, ?>) c);
            }
            case VALUE -> value(c, null, 0);
            case HOLDER -> holder(c);
            case KEY_SET_VIEW -> {
                ConcurrentHashMap.KeySetView<?, ?> view = (ConcurrentHashMap.KeySetView<?, ?>) c;
                value(view.getMap(), "getMap()", 0); // a record of its own: nothing is embedded in a container's body
                value(view.getMappedValue(), "getMappedValue()", 0);
            }
            case SERIALIZED -> {
                byte[] stream = JdkSerialized.write(c, path.render(), classes);
                out.writeVarInt(stream.length);
                out.writeBytes(stream);
            }
            case ATOMIC_REFERENCE -> value(((AtomicReference<?>) c).get(), "get()", 0);
            case WRAPPER -> wrapper(c);
            case IMMUTABLE_ENTRY, ENTRY -> {
                Map.Entry<?, ?> e = (Map.Entry<?, ?>) c;
                value(e.getKey(), "getKey()", 0);
                value(e.getValue(), "getValue()", 0);
            }
            default -> throw new IllegalStateException("not a container kind: " + kind);
        }
    }

    /**
     * A holder's value, behind its length: a reader that does not decode it (the collector)
     * steps over it. Each class has its own layout; {@code RecordDecoder#holder} reads them.
     */
    private void holder(Object h) {
        int start = out.length();
        if (h.getClass() == Date.class) {
            out.writeSignedVarLong(((Date) h).getTime());
        } else if (h instanceof Date d) { // Containers gives no other Date subclass this kind
            SqlTimes.write(d, out);
        } else if (h instanceof StringBuilder || h instanceof StringBuffer) {
            out.writeString(h.toString());
        } else if (h instanceof AtomicInteger a) {
            out.writeSignedVarInt(a.get());
        } else if (h instanceof AtomicLong a) {
            out.writeSignedVarLong(a.get());
        } else if (h instanceof AtomicBoolean a) {
            out.writeByte(a.get() ? 1 : 0);
        } else if (h instanceof BitSet b) {
            long[] words = b.toLongArray();
            out.writeVarInt(words.length);
            for (long w : words) {
                out.writeFixedLong(w);
            }
        } else if (h instanceof ReentrantLock l) {
            out.writeByte(l.isFair() ? 1 : 0); // held or not, it comes back unlocked, as Java serialization brings it
        } else if (h instanceof ReentrantReadWriteLock l) {
            out.writeByte(l.isFair() ? 1 : 0);
        } else if (h instanceof java.security.SecureRandom r) {
            // its algorithm only: its state, stored, would make every reader of the store draw the same numbers
            out.writeString(r.getAlgorithm());
        } else if (h.getClass() != Object.class) { // a plain Object (a lock, a marker) has only its identity
            throw new IllegalStateException("not a holder: " + h.getClass().getName()); // Containers lists no other
        }
        out.insertVarInt(start, out.length() - start);
    }

    /**
     * A wrapper's body ({@link Kind#WRAPPER}): a reference to what it wraps, or, if that is not
     * something Perpetua stores, a copy of what it shows, read under a synchronized wrapper's
     * lock, as its Javadoc asks of whoever iterates over it.
     */
    private void wrapper(Object w) {
        Object wrapped = reach.wrapped(w);
        if (wrapped instanceof Persistent || Containers.kindOf(wrapped) != null) {
            out.writeVarInt(0);
            // a record of its own, not embedded in the wrapper's: nothing is embedded while a
            // container's body is encoded (a wrapper found changed is encoded on its own)
            value(wrapped, "(wrapped)", 0);
            return;
        }
        out.writeVarInt(1);
        if (Containers.synchronizedWrapper(w)) {
            synchronized (w) {
                wrapperCopy(w);
            }
        } else {
            wrapperCopy(w);
        }
    }

    private void wrapperCopy(Object w) {
        if (Containers.wrapsSorted(w.getClass().getName())) {
            value(Containers.comparator(w), "comparator", 0);
        }
        if (w instanceof Map<?, ?> m) {
            entries(m);
        } else {
            elements((Collection<?>) w);
        }
    }

    /**
     * A {@code Properties} is stored as the map it is; the defaults it was made with are another
     * {@code Properties} in a protected field that no method returns, so one that has any is
     * refused rather than stored without them.
     */
    private void checkNoDefaults(Properties p) {
        for (String name : p.stringPropertyNames()) {
            if (!p.containsKey(name)) {
                throw new NotPersistableException(Properties.class.getName(), path.render(),
                        "it has defaults (property \"" + name + "\"), which Perpetua cannot read to store;"
                                + " copy them into it with putAll, or store the defaults as a Properties of their own");
            }
        }
    }

    /**
     * Writes a collection's count, then its elements. One another thread changes meanwhile must
     * not give a record whose count is not what follows (until session 41: a record no read
     * could take, and the commit that wrote it said nothing): a concurrent collection, whose
     * iterator goes on through changes, is read into an array first; any other is counted as it
     * is read, and a difference fails the commit, which writes nothing.
     */
    private void elements(Collection<?> c) {
        if (weaklyConsistent(c)) {
            Object[] a = c.toArray();
            out.writeVarInt(a.length);
            for (int i = 0; i < a.length; i++) {
                value(a[i], null, i);
            }
            return;
        }
        int size = c.size();
        out.writeVarInt(size);
        int i = 0;
        // a tracked one is read without noting a change: the commit forgot its note before reading it
        for (Iterator<?> it = c instanceof Tracked t ? t.$perpetua$contents() : c.iterator(); it.hasNext(); ) {
            if (i == size) {
                throw changedWhileRead(c);
            }
            value(it.next(), null, i++);
        }
        if (i != size) {
            throw changedWhileRead(c);
        }
    }

    /** @return true for a collection or map of {@code java.util.concurrent}, whose iterators go on through changes */
    private static boolean weaklyConsistent(Object container) {
        return container.getClass().getName().startsWith("java.util.concurrent.");
    }

    private static java.util.ConcurrentModificationException changedWhileRead(Object container) {
        return new java.util.ConcurrentModificationException("a " + container.getClass().getName()
                + " changed while the commit read it (another thread changed it without synchronizing with the commit)");
    }

    /** Writes a map's count, then its keys and values in turn; see {@link #elements}. */
    private void entries(Map<?, ?> m) {
        Iterator<?> it;
        int size;
        if (weaklyConsistent(m)) {
            Object[] a = m.entrySet().toArray();
            it = Arrays.asList(a).iterator();
            size = a.length;
        } else {
            it = m instanceof Tracked t ? t.$perpetua$contents() : m.entrySet().iterator();
            size = m.size();
        }
        out.writeVarInt(size);
        int i = 0;
        while (it.hasNext()) {
            if (i == size) {
                throw changedWhileRead(m);
            }
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) it.next();
            value(e.getKey(), null, i);
            if (e.getKey() instanceof String key) {
                value(e.getValue(), key, PathNode.KEYED); // a path through it reads ["key"]
            } else {
                value(e.getValue(), null, i);
            }
            i++;
        }
        if (i != size) {
            throw changedWhileRead(m);
        }
    }

    private void array(Object a) {
        int n = Array.getLength(a);
        out.writeVarInt(n);
        Class<?> ct = a.getClass().getComponentType();
        if (!ct.isPrimitive()) {
            Object[] objects = (Object[]) a;
            for (int i = 0; i < n; i++) {
                value(objects[i], null, i);
            }
        } else if (ct == int.class) {
            for (int v : (int[]) a) {
                out.writeSignedVarInt(v);
            }
        } else if (ct == long.class) {
            for (long v : (long[]) a) {
                out.writeSignedVarLong(v);
            }
        } else if (ct == byte.class) {
            out.writeBytes((byte[]) a);
        } else if (ct == boolean.class) {
            for (boolean v : (boolean[]) a) {
                out.writeByte(v ? 1 : 0);
            }
        } else if (ct == char.class) {
            for (char v : (char[]) a) {
                out.writeVarInt(v);
            }
        } else if (ct == short.class) {
            for (short v : (short[]) a) {
                out.writeSignedVarInt(v);
            }
        } else if (ct == float.class) {
            for (float v : (float[]) a) {
                out.writeFixedInt(Float.floatToRawIntBits(v));
            }
        } else {
            for (double v : (double[]) a) {
                out.writeFixedLong(Double.doubleToRawLongBits(v));
            }
        }
    }

    // ---- RecordWriter: the fields of a rewritten object, in layout order ----

    @Override
    public void writeBoolean(boolean v) {
        expect('Z');
        out.writeByte(v ? 1 : 0);
    }

    @Override
    public void writeByte(byte v) {
        expect('B');
        out.writeByte(v);
    }

    @Override
    public void writeChar(char v) {
        expect('C');
        out.writeVarInt(v);
    }

    @Override
    public void writeShort(short v) {
        expect('S');
        out.writeSignedVarInt(v);
    }

    @Override
    public void writeInt(int v) {
        expect('I');
        out.writeSignedVarInt(v);
    }

    @Override
    public void writeLong(long v) {
        expect('J');
        out.writeSignedVarLong(v);
    }

    @Override
    public void writeFloat(float v) {
        expect('F');
        out.writeFixedInt(Float.floatToRawIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        expect('D');
        out.writeFixedLong(Double.doubleToRawLongBits(v));
    }

    @Override
    public void writeObject(Object v) {
        String name = info == null ? "?" : info.fieldName(field);
        if (info != null && info.lazyMarkers != null) {
            int k = refField++;
            if (k < info.lazyMarkers.length && v != null && v == info.lazyMarkers[k]) {
                if (lazy == null || k >= lazy.at.length || lazy.at[k] == 0) {
                    // a marker with no stored value behind it: encoding it would store an empty array
                    throw new IllegalStateException("field " + name + " of " + info.type.getName()
                            + " holds its lazy marker but has no stored value");
                }
                expect('L');
                out.writeBytes(lazy.record, lazy.at[k], lazy.valueEnd(k)); // never decoded: unchanged
                return;
            }
        }
        boolean transientField = info != null && info.transientFields != null && info.transientFields.get(field);
        if (transientField && PersistentClasses.storedAsNullInTransientField(holder, v)) {
            v = null; // a view cached in a transient field: made again when next asked for, as after deserialization
        }
        if (transientField && v instanceof Object[] table && HashedSets.isOne(info.type)) {
            HashedSets.check(info.type, table, where(name, 0));
        }
        expect('L');
        directField = true;
        inTransientField = transientField;
        try {
            value(v, name, 0);
        } finally {
            inTransientField = false;
        }
    }

    /**
     * Checks that a rewritten class writes its fields in layout order: a mismatch would
     * otherwise corrupt the record silently. One comparison per field, at commit only.
     */
    private void expect(char type) {
        if (info != null) {
            char[] types = info.fieldTypes;
            if (field >= types.length || types[field] != type) {
                java.util.List<ClassDescriptor.Field> fields = info.descriptor.fields;
                throw new IllegalStateException("class " + info.type.getName() + " writes its fields out of layout order"
                        + " (field " + field + " written as '" + type + "', layout "
                        + (field < fields.size() ? fields.get(field) : "has no more fields") + ")");
            }
        }
        field++;
    }

    // ---- values ----

    /** Writes one reference value, reached from the current path by {@code field} or {@code index}. */
    private void value(Object v, String field, int index) {
        boolean direct = directField;
        directField = false;
        boolean ofReplacement = replacementField;
        replacementField = false;
        if (v == null) {
            out.writeByte(Tag.NULL);
            return;
        }
        if (v instanceof Persistent p) {
            reference(p, field, index);
            return;
        }
        Class<?> c = v.getClass();
        if (c.isArray()) { // the most common container first: no value class's test for it
            container(v, Kind.ARRAY, field, index, direct, ofReplacement);
        } else {
            valueOrContainer(v, c, field, index, direct, ofReplacement);
        }
    }

    /**
     * Writes a reference to a rewritten object. Kept apart from the other kinds of value, as is
     * {@link #valueOrContainer}, so that {@link #value} holds only the common paths (a
     * reference, null, an array) and the long chain of value classes stays out of them.
     */
    private void reference(Persistent p, String field, int index) {
        ClassInfo known = classes.infoIfKnown(p.getClass());
        long id = reach.object(p, path, field, index);
        if (id == Reach.CONSTANT) { // asked only of an object new to the store: a constant never is
            Constants.Ref constant = Constants.of(p);
            readable(constant.owner(), field, index);
            out.writeByte(Tag.CONSTANT);
            out.writeString(constant.className());
            out.writeString(constant.field());
            return;
        }
        int descriptor = (known != null ? known : classes.info(p.getClass())).descriptor.id;
        if (home != 0 && Satellites.home(id) == home) {
            out.writeByte(Tag.LOCAL);
            out.writeVarInt(descriptor);
            out.writeVarInt(Satellites.index(id));
        } else if (Satellites.isSatellite(id)) {
            out.writeByte(Tag.SATELLITE);
            out.writeVarInt(descriptor);
            out.writeVarLong(Satellites.home(id));
            out.writeVarInt(Satellites.index(id));
        } else {
            out.writeByte(Tag.OBJECT);
            out.writeVarInt(descriptor);
            out.writeVarLong(id);
        }
    }

    /**
     * The record of an object of a class stored by its serialization replacement (see
     * {@link ClassInfo#writeReplace}): its {@link Kind#REPLACED_OBJECT} descriptor id, then the
     * record its replacement would have, descriptor id and fields. The containers the
     * replacement holds that the store does not are written as values
     * ({@link Tag#VALUE_CONTAINER}): {@code writeReplace} makes them anew each time (Guava's
     * arrays of keys and values), and with ids each rewrite would leave records behind. The
     * object keeps its own id; {@link Kernel} fills it from this record through the
     * replacement's {@code readResolve}.
     *
     * @return the record, to be stored under the object's id
     */
    byte[] replacedObject(Persistent object, ClassInfo info, PathNode path, long id) {
        out.reset();
        this.home = Satellites.home(id);
        this.path = path;
        this.info = null;
        Object r;
        try {
            r = info.writeReplace.invoke(object);
        } catch (Throwable t) {
            throw new NotPersistableException(object.getClass().getName(), path.render(),
                    "it is stored by its serialization replacement, and its writeReplace failed: " + t);
        }
        if (!(r instanceof Persistent replacement) || r == object || ClassRegistry.storedByReplacement(r.getClass())) {
            throw new NotPersistableException(object.getClass().getName(), path.render(), "a field holds objects of a"
                    + " class extending a JDK class with state, which Perpetua cannot store, and its writeReplace returns "
                    + (r == null ? "null" : r == object ? "the object itself" : "an object of " + r.getClass().getName())
                    + ", not an object of another rewritten class that Perpetua could store in its place");
        }
        ClassInfo ri;
        try {
            ri = classes.info(r.getClass());
        } catch (NotPersistableException e) {
            throw new NotPersistableException(e.className(), path.render(), "the serialization replacement of "
                    + object.getClass().getName() + " cannot be stored: " + e.reason());
        }
        out.writeVarInt(classes.descriptor(Kind.REPLACED_OBJECT, object.getClass()).id);
        out.writeVarInt(ri.descriptor.id);
        FieldValues fields = new FieldValues(ri.descriptor.fields.size());
        replacement.$perpetua$write(fields);
        fields.replay();
        for (ClassDescriptor.Field f : ri.descriptor.fields) {
            replacementField = f.type() == 'L';
            boxed(f, fields.next());
        }
        return out.toByteArray();
    }

    /** Writes any value but null, a rewritten object and an array (see {@link #reference}). */
    private void valueOrContainer(Object v, Class<?> c, String field, int index, boolean direct, boolean ofReplacement) {
        if (c == String.class) {
            out.writeByte(Tag.STRING);
            out.writeString((String) v);
        } else if (c == Integer.class) {
            out.writeByte(Tag.INT);
            out.writeSignedVarInt((Integer) v);
        } else if (c == Long.class) {
            out.writeByte(Tag.LONG);
            out.writeSignedVarLong((Long) v);
        } else if (c == Boolean.class) {
            out.writeByte((Boolean) v ? Tag.TRUE : Tag.FALSE);
        } else if (c == Double.class) {
            out.writeByte(Tag.DOUBLE);
            out.writeFixedLong(Double.doubleToRawLongBits((Double) v));
        } else if (c == Float.class) {
            out.writeByte(Tag.FLOAT);
            out.writeFixedInt(Float.floatToRawIntBits((Float) v));
        } else if (c == Byte.class) {
            out.writeByte(Tag.BYTE);
            out.writeByte((Byte) v);
        } else if (c == Short.class) {
            out.writeByte(Tag.SHORT);
            out.writeSignedVarInt((Short) v);
        } else if (c == Character.class) {
            out.writeByte(Tag.CHAR);
            out.writeVarInt((Character) v);
        } else if (v instanceof Enum<?> e) {
            readable(e.getDeclaringClass(), field, index);
            checkEnumName(e);
            out.writeByte(Tag.ENUM);
            out.writeVarInt(classes.descriptor(Kind.ENUM, e.getDeclaringClass()).id);
            out.writeString(e.name());
        } else if (c.isRecord()) {
            record(v, field, index);
        } else if (!inlineValue(v, c, field, index)) {
            if (c == Object.class && plainObjectAsConstant(v, field, index, direct)) {
                return;
            }
            Kind kind = Containers.kindOf(v);
            if (kind == null) {
                throw notPersistable(v, field, index);
            }
            container(v, kind, field, index, direct, ofReplacement);
        }
    }

    /**
     * A plain {@code new Object()} is a marker constant of the classes of the object that refers
     * to it (written as that constant), or, in a field, that object's own lock or marker
     * (stored as a holder, with its identity). Anywhere else it is refused: in a collection it
     * may be the marker of a class Perpetua cannot find (a set's {@code PRESENT} value), which
     * would come back as another object, and code that compares it by identity would break.
     *
     * @return true if it was written as a constant; false if it is to be stored as a holder
     */
    private boolean plainObjectAsConstant(Object v, String field, int index, boolean direct) {
        Constants.Ref marker = info != null ? Constants.marker(info.type, v) : null;
        if (marker != null) {
            readable(marker.owner(), field, index);
            out.writeByte(Tag.CONSTANT);
            out.writeString(marker.className());
            out.writeString(marker.field());
            return true;
        }
        if (!direct) {
            throw new NotPersistableException(Object.class.getName(), where(field, index), "a plain Object is stored"
                    + " only in a field of an object (its lock, say): here it may be the marker constant of a class"
                    + " that Perpetua does not know, which would come back as another object; hold it in a field, or"
                    + " store a value of your own class");
        }
        return false;
    }

    /**
     * Writes a reference to a container, or the container itself if it is embedded here.
     *
     * @param ofReplacement true if the container is the value of a field of a serialization
     *                      replacement (see {@link #replacedObject}): one the store does not hold yet
     *                      is written as a value, with no id, read back as a copy
     */
    private void container(Object v, Kind kind, String field, int index, boolean direct, boolean ofReplacement) {
        if (ofReplacement && !reach.isPersistentContainer(v)) {
            // made by writeReplace (Guava's arrays of keys and values), anew at each commit that
            // writes the replaced object: with an id, each would leave a record behind
            out.writeByte(Tag.VALUE_CONTAINER);
            containerInto(v, kind, field, index);
            return;
        }
        long ref = reach.container(v, kind, path, field, index, direct);
        if ((ref & 1) == 0) {
            out.writeByte(Tag.CONTAINER);
            out.writeVarLong(ref >>> 1);
        } else {
            out.writeByte(Tag.INLINE_CONTAINER_SIZED);
            out.writeVarLong(ref >>> 1);
            int start = out.length();
            containerInto(v, kind, field, index);
            // an array's bytes are not kept: the kernel remembers an array by its elements
            byte[] bytes = kind == Kind.ARRAY ? null : out.copyRange(start);
            out.insertVarInt(start, out.length() - start);
            reach.embedded(v, bytes);
        }
    }

    /**
     * Refuses a value whose record names a class that the store's class loader does not find
     * by that name (see {@link ClassRegistry#unreadable}): stored, it could never be read back,
     * or would be read back as an object of another class of that name.
     *
     * @param type the class named: an enum's, an array's, a constant's
     * @param field the field the value is in, or null for element {@code index}
     * @param index see {@code field}
     */
    private void readable(Class<?> type, String field, int index) {
        String why = classes.unreadable(type);
        if (why != null) { // the path is rendered only here: this is asked of every enum constant written
            throw new NotPersistableException(type.getTypeName(), where(field, index),
                    ClassRegistry.unreadableReason(type, why));
        }
    }

    /** {@link #readable(Class, String, int)} for the container being written, at {@link #path}. */
    private void readable(Class<?> type) {
        String why = classes.unreadable(type);
        if (why != null) {
            throw new NotPersistableException(type.getTypeName(), path.render(), ClassRegistry.unreadableReason(type, why));
        }
    }

    /** Refuses a constant whose name would be read back as another's (see {@link ClassRegistry#enumClash}). */
    private void checkEnumName(Enum<?> e) {
        String clash = classes.hasRenames() ? classes.enumClash(e) : null;
        if (clash != null) {
            throw new NotPersistableException(e.getDeclaringClass().getName(), path.render(), clash);
        }
    }

    /**
     * Counts a value stored inline that holds the next (a record, an {@code Optional}), which
     * the commit writes and the read reads by recursion: past {@link #MAX_VALUE_DEPTH} such
     * values, each holding the next, it refuses them, before the stack overflows. The caller
     * counts the level off when done.
     */
    private void nested(Object v, String field, int index) {
        if (++depth > MAX_VALUE_DEPTH) {
            depth = 0;
            throw new NotPersistableException(v.getClass().getName(), where(field, index),
                    "records or Optionals nest deeper than " + MAX_VALUE_DEPTH + " levels, each holding the next"
                    + " (a cycle through records?); hold the levels in objects of your classes or in mutable collections");
        }
    }

    private void record(Object v, String field, int index) {
        nested(v, field, index);
        ClassInfo ri;
        try {
            ri = classes.info(v.getClass());
        } catch (NotPersistableException e) { // thrown with an empty path
            depth--;
            throw new NotPersistableException(e.className(), where(field, index), e.reason());
        }
        if (ri.renameClash != null) {
            depth--;
            throw new NotPersistableException(v.getClass().getName(), where(field, index), ri.renameClash);
        }
        out.writeByte(Tag.RECORD);
        out.writeVarInt(ri.descriptor.id);
        PathNode saved = path;
        path = path.child(field, index);
        try {
            for (int i = 0; i < ri.recordAccessors.length; i++) {
                Object component = ri.component(v, i);
                boxed(ri.descriptor.fields.get(i), component);
            }
        } finally {
            path = saved;
            depth--;
        }
    }

    /** Writes one field of a record value or of a replacement, given boxed if primitive. */
    private void boxed(ClassDescriptor.Field f, Object v) {
        switch (f.type()) {
            case 'Z' -> out.writeByte((Boolean) v ? 1 : 0);
            case 'B' -> out.writeByte((Byte) v);
            case 'C' -> out.writeVarInt((Character) v);
            case 'S' -> out.writeSignedVarInt((Short) v);
            case 'I' -> out.writeSignedVarInt((Integer) v);
            case 'J' -> out.writeSignedVarLong((Long) v);
            case 'F' -> out.writeFixedInt(Float.floatToRawIntBits((Float) v));
            case 'D' -> out.writeFixedLong(Double.doubleToRawLongBits((Double) v));
            default -> value(v, f.name(), 0);
        }
    }

    /** Writes the values stored inline that are neither boxes nor enums; false if {@code v} is none. */
    private boolean inlineValue(Object v, Class<?> c, String field, int index) {
        if (c == BigInteger.class) {
            out.writeByte(Tag.BIG_INTEGER);
            bytes(((BigInteger) v).toByteArray());
        } else if (c == BigDecimal.class) {
            BigDecimal d = (BigDecimal) v;
            out.writeByte(Tag.BIG_DECIMAL);
            out.writeSignedVarInt(d.scale());
            bytes(d.unscaledValue().toByteArray());
        } else if (c == UUID.class) {
            UUID u = (UUID) v;
            out.writeByte(Tag.UUID);
            out.writeFixedLong(u.getMostSignificantBits());
            out.writeFixedLong(u.getLeastSignificantBits());
        } else if (c == Optional.class) {
            Optional<?> o = (Optional<?>) v;
            if (o.isEmpty()) {
                out.writeByte(Tag.OPTIONAL_EMPTY);
            } else {
                out.writeByte(Tag.OPTIONAL);
                nested(v, field, index);
                PathNode saved = path;
                path = path.child(field, index); // the field that holds the Optional, as a record's
                try {
                    value(o.get(), "value", 0);
                } finally {
                    path = saved;
                    depth--;
                }
            }
        } else if (c == OptionalInt.class) {
            OptionalInt o = (OptionalInt) v;
            out.writeByte(o.isPresent() ? Tag.OPTIONAL_INT : Tag.OPTIONAL_INT_EMPTY);
            if (o.isPresent()) {
                out.writeSignedVarInt(o.getAsInt());
            }
        } else if (c == OptionalLong.class) {
            OptionalLong o = (OptionalLong) v;
            out.writeByte(o.isPresent() ? Tag.OPTIONAL_LONG : Tag.OPTIONAL_LONG_EMPTY);
            if (o.isPresent()) {
                out.writeSignedVarLong(o.getAsLong());
            }
        } else if (c == OptionalDouble.class) {
            OptionalDouble o = (OptionalDouble) v;
            out.writeByte(o.isPresent() ? Tag.OPTIONAL_DOUBLE : Tag.OPTIONAL_DOUBLE_EMPTY);
            if (o.isPresent()) {
                out.writeFixedLong(Double.doubleToRawLongBits(o.getAsDouble()));
            }
        } else if (v instanceof Comparator<?> cmp && wellKnownComparator(cmp)) {
            return true;
        } else {
            return time(v, c) || platform(v, c, field, index);
        }
        return true;
    }

    private boolean wellKnownComparator(Comparator<?> cmp) {
        if (cmp == Comparator.naturalOrder()) {
            out.writeByte(Tag.NATURAL_ORDER);
        } else if (cmp == Collections.reverseOrder()) {
            out.writeByte(Tag.REVERSE_ORDER);
        } else if (cmp == String.CASE_INSENSITIVE_ORDER) {
            out.writeByte(Tag.CASE_INSENSITIVE_ORDER);
        } else {
            return false;
        }
        return true;
    }

    private boolean time(Object v, Class<?> c) {
        if (c == LocalDate.class) {
            out.writeByte(Tag.LOCAL_DATE);
            localDate((LocalDate) v);
        } else if (c == LocalTime.class) {
            out.writeByte(Tag.LOCAL_TIME);
            out.writeVarLong(((LocalTime) v).toNanoOfDay());
        } else if (c == LocalDateTime.class) {
            out.writeByte(Tag.LOCAL_DATE_TIME);
            localDateTime((LocalDateTime) v);
        } else if (c == Instant.class) {
            Instant i = (Instant) v;
            out.writeByte(Tag.INSTANT);
            out.writeSignedVarLong(i.getEpochSecond());
            out.writeVarInt(i.getNano());
        } else if (c == Duration.class) {
            Duration d = (Duration) v;
            out.writeByte(Tag.DURATION);
            out.writeSignedVarLong(d.getSeconds());
            out.writeVarInt(d.getNano());
        } else if (c == Period.class) {
            Period p = (Period) v;
            out.writeByte(Tag.PERIOD);
            out.writeSignedVarInt(p.getYears());
            out.writeSignedVarInt(p.getMonths());
            out.writeSignedVarInt(p.getDays());
        } else if (c == ZoneOffset.class) {
            out.writeByte(Tag.ZONE_OFFSET);
            out.writeSignedVarInt(((ZoneOffset) v).getTotalSeconds());
        } else if (v instanceof ZoneId z) {
            out.writeByte(Tag.ZONE_ID);
            out.writeString(z.getId());
        } else if (c == OffsetDateTime.class) {
            OffsetDateTime o = (OffsetDateTime) v;
            out.writeByte(Tag.OFFSET_DATE_TIME);
            localDateTime(o.toLocalDateTime());
            out.writeSignedVarInt(o.getOffset().getTotalSeconds());
        } else if (c == ZonedDateTime.class) {
            ZonedDateTime z = (ZonedDateTime) v;
            out.writeByte(Tag.ZONED_DATE_TIME);
            localDateTime(z.toLocalDateTime());
            out.writeSignedVarInt(z.getOffset().getTotalSeconds());
            out.writeString(z.getZone().getId());
        } else if (c == OffsetTime.class) {
            OffsetTime o = (OffsetTime) v;
            out.writeByte(Tag.OFFSET_TIME);
            out.writeVarLong(o.toLocalTime().toNanoOfDay());
            out.writeSignedVarInt(o.getOffset().getTotalSeconds());
        } else if (c == Year.class) {
            out.writeByte(Tag.YEAR);
            out.writeSignedVarInt(((Year) v).getValue());
        } else if (c == YearMonth.class) {
            YearMonth y = (YearMonth) v;
            out.writeByte(Tag.YEAR_MONTH);
            out.writeSignedVarInt(y.getYear());
            out.writeVarInt(y.getMonthValue());
        } else if (c == MonthDay.class) {
            MonthDay m = (MonthDay) v;
            out.writeByte(Tag.MONTH_DAY);
            out.writeVarInt(m.getMonthValue());
            out.writeVarInt(m.getDayOfMonth());
        } else if (c == java.math.MathContext.class) {
            java.math.MathContext m = (java.math.MathContext) v;
            out.writeByte(Tag.MATH_CONTEXT);
            out.writeVarInt(m.getPrecision());
            out.writeVarInt(m.getRoundingMode().ordinal());
        } else {
            return false;
        }
        return true;
    }

    /** Writes the JDK's value classes of tags {@link Tag#LOCALE} to {@link Tag#CHARSET}; false if {@code v} is none. */
    private boolean platform(Object v, Class<?> c, String field, int index) {
        if (c == Locale.class) {
            locale((Locale) v, field, index);
        } else if (c == Currency.class) {
            out.writeByte(Tag.CURRENCY);
            out.writeString(((Currency) v).getCurrencyCode());
        } else if (c == URI.class) {
            out.writeByte(Tag.URI);
            out.writeString(v.toString());
        } else if (c == URL.class) {
            out.writeByte(Tag.URL);
            out.writeString(((URL) v).toExternalForm());
        } else if (v instanceof Path p) {
            if (p.getFileSystem() != FileSystems.getDefault()) {
                throw new NotPersistableException(c.getName(), where(field, index), "a path of a file system other"
                        + " than the default one (" + p.getFileSystem().provider().getScheme() + ": " + p.toUri()
                        + ") has no meaning outside the JVM that opened it; store a URI or a string instead");
            }
            out.writeByte(Tag.PATH);
            out.writeString(p.toString());
        } else if (c == File.class) {
            out.writeByte(Tag.FILE);
            out.writeString(((File) v).getPath());
        } else if (c == Pattern.class) {
            Pattern p = (Pattern) v;
            out.writeByte(Tag.PATTERN);
            out.writeString(p.pattern());
            out.writeVarInt(p.flags());
        } else if (v instanceof Charset cs) {
            out.writeByte(Tag.CHARSET);
            out.writeString(cs.name());
        } else if (c == Class.class) {
            classValue((Class<?>) v, field, index);
        } else {
            return false;
        }
        return true;
    }

    /**
     * A locale by its language tag when the tag gives it back as it is, else by the three
     * strings of its legacy constructor: an ill-formed locale ({@code new Locale("en", "US",
     * "a b")}) or a legacy one ({@code no_NO_NY}) has a tag that names another locale.
     */
    private void locale(Locale l, String field, int index) {
        String tag = l.toLanguageTag();
        boolean byTag = Locale.forLanguageTag(tag).equals(l);
        if (!byTag && !RecordDecoder.legacyLocale(l.getLanguage(), l.getCountry(), l.getVariant()).equals(l)) {
            throw new NotPersistableException(Locale.class.getName(), where(field, index), "the locale " + l
                    + " comes back as it is from neither its language tag (" + tag + ") nor its language, country"
                    + " and variant");
        }
        out.writeByte(Tag.LOCALE);
        out.writeVarInt(byTag ? 0 : 1);
        if (byTag) {
            out.writeString(tag);
        } else {
            out.writeString(l.getLanguage());
            out.writeString(l.getCountry());
            out.writeString(l.getVariant());
        }
    }

    /**
     * A class by its element's name and its array dimensions ({@link Tag#CLASS}): the name of a
     * class of the application goes through the renamed classes when read, as a stored object's
     * does, which the JVM's name of an array class ({@code [Lcom.example.Part;}) would not.
     */
    private void classValue(Class<?> type, String field, int index) {
        Class<?> element = type;
        int dimensions = 0;
        while (element.isArray()) {
            element = element.getComponentType();
            dimensions++;
        }
        String refused = classes.unloadableByName(element);
        if (refused != null) {
            throw new NotPersistableException(Class.class.getName(), where(field, index),
                    "the class " + type.getName() + " " + refused);
        }
        out.writeByte(Tag.CLASS);
        out.writeVarInt(dimensions);
        out.writeString(element.getName());
    }

    private void localDate(LocalDate d) {
        out.writeSignedVarLong(d.toEpochDay());
    }

    private void localDateTime(LocalDateTime t) {
        localDate(t.toLocalDate());
        out.writeVarLong(t.toLocalTime().toNanoOfDay());
    }

    private void bytes(byte[] b) {
        out.writeVarInt(b.length);
        out.writeBytes(b);
    }

    private String where(String field, int index) {
        return (path == null ? "" : path.render()) + PathNode.step(field, index);
    }

    private NotPersistableException notPersistable(Object v, String field, int index) {
        Class<?> c = v.getClass();
        String reason;
        Field state;
        if (c.isSynthetic() && c.getName().contains("$$Lambda")) {
            reason = "a lambda or method reference cannot be stored; use an instance of a named class";
        } else if (c.isHidden()) {
            reason = "instances of hidden classes cannot be stored";
        } else if (Containers.sortedSetView(v)) {
            reason = "it is a view of another sorted set (its headSet, tailSet, subSet or descendingSet), which a"
                    + " stored copy would no longer be: store that set, and take the view from it where it is needed";
        } else if (c.getClassLoader() == null || c.getName().startsWith("java.") || c.getName().startsWith("jdk.")
                || c.getName().startsWith("sun.") || c.getName().startsWith("javax.")) {
            reason = "Perpetua does not store this JDK class (" + storableInstead(c) + ")" + (inTransientField
                    ? "; the field is transient, but " + info.type.getName() + " serializes itself ("
                            + PersistentClasses.serializationMethod(info.type) + "), so its transient fields are stored too"
                    : field != null && index != PathNode.KEYED ? "; mark the field transient"
                    : "; keep it out of what is stored");
        } else if (c.getName().startsWith(InheritedViews.class.getName() + "$")) {
            // the wrapper a collection read from a store, or a class extending one, hands out
            reason = "it is a view or iterator of a collection or map (its keySet, values, entrySet, iterator, subList,"
                    + " or a range or descending view), which"
                    + " belongs to the object that made it, and which a stored copy would no longer follow: store that"
                    + " object, and take this from it where it is needed"
                    + (field != null && index != PathNode.KEYED ? "; or mark the field transient" : "");
        } else if (perpetuaOwn(c)) {
            reason = "it is part of Perpetua (a store, or what serves one), which cannot be stored"
                    + (field != null && field.startsWith("this$") ? "; the field " + field + " is the hidden reference of an"
                            + " inner or anonymous class to its outer object: declare the class static nested or top-level"
                            : "; mark the field transient");
        } else if (JdkSerialized.isApplicationException(c)) { // stored by its serialization, but not this one
            reason = "an exception class of the application is stored by its Java serialization, but this one is an"
                    + " inner or anonymous class, which holds the object it was made in: declare it static nested or"
                    + " top-level";
        } else if ((state = statefulJdkSuperclass(c)) != null) {
            reason = "it extends " + state.getDeclaringClass().getName() + ", a JDK class whose state (field "
                    + state.getName() + ") Perpetua cannot store, so the agent left the class as it was";
        } else {
            reason = Kernel.NOT_REWRITTEN;
        }
        return new NotPersistableException(c.getName(), where(field, index), reason);
    }

    /**
     * @return what to store instead of an instance of a JDK class Perpetua does not store (the
     *         holders it stores are exact classes: a {@code CharBuffer} is not a {@code String}
     *         to it), or why there is nothing to store
     */
    private static String storableInstead(Class<?> c) {
        if (CharSequence.class.isAssignableFrom(c)) {
            return "a mutable string: store a String";
        } else if (JdkSerialized.isUiComponent(c)) {
            return "a user interface component has no meaning outside the JVM that shows it";
        } else if (JdkSerialized.belongsToAnother(c)) {
            return "it belongs to the object that made it (a map's key set, a lock's condition, a read-write lock's"
                    + " read or write lock), which a stored copy would no longer work with: store that object, and take"
                    + " this from it where it is needed";
        } else if (java.util.Collection.class.isAssignableFrom(c) || java.util.Map.class.isAssignableFrom(c)) {
            return "it is not among the collections and maps the README lists under \"What is stored\"; if it is a"
                    + " view of another one (a sub-map, a reversed or descending view, a checked wrapper), store that"
                    + " one and take the view from it where it is needed, otherwise copy it into a stored kind";
        }
        return "it is not among the JDK classes the README lists under \"What is stored\"; threads, streams,"
                + " sockets, class loaders and other runtime objects have no meaning outside the JVM that made them";
    }

    /** @return true for a store or a backend: Perpetua's own, which a program may hold by mistake */
    private static boolean perpetuaOwn(Class<?> c) {
        return io.perpetua.PersistentStore.class.isAssignableFrom(c) || io.perpetua.spi.Backend.class.isAssignableFrom(c)
                || io.perpetua.spi.BackendProvider.class.isAssignableFrom(c);
    }

    /** @return an instance field of the first JDK super-class of {@code c} that has one, or null */
    static Field statefulJdkSuperclass(Class<?> c) {
        for (Class<?> s = c.getSuperclass(); s != null && s != Object.class; s = s.getSuperclass()) {
            if (s.getClassLoader() == null || s.getName().startsWith("java.")) {
                for (Field f : s.getDeclaredFields()) {
                    if (!java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                        return f;
                    }
                }
            }
        }
        return null;
    }
}
