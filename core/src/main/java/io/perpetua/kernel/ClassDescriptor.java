package io.perpetua.kernel;

import java.util.ArrayList;
import java.util.List;

/**
 * The stored description of one class (or one kind of JDK container), written once per store
 * and referred to by its id from every record of that class. For a rewritten class it lists
 * the persistent fields in layout order; a class whose layout changes gets a new descriptor,
 * and records written under the old one are read through it.
 *
 * <p>Format: {@code varint version(1), byte kind, string className, varint n, n * (string owner,
 * string name, byte typeCode)}. Immutable.
 */
final class ClassDescriptor {
    /** What a descriptor describes; the codes are stored and must never change. */
    enum Kind {
        /** A class rewritten by the agent: fields. */
        OBJECT(1),
        /** An array; the class name is the array class's name. */
        ARRAY(2),
        /** A mutable JDK collection of a known class. */
        COLLECTION(3),
        /** A mutable JDK map of a known class. */
        MAP(4),
        /** An enum class, for enum values stored inline. */
        ENUM(5),
        /** A record class: its components are the fields. */
        RECORD(6),
        ENUM_SET(7),
        ENUM_MAP(8),
        /**
         * {@code List.of}, {@code List.copyOf}, {@code Stream.toList}, and the {@code Collections}
         * class's empty, singleton and {@code nCopies} lists: the elements. Read back as the class
         * the descriptor names when it is one of {@code Collections}' own (whichever format wrote
         * it; until record format 12 they came back as {@code List.of}'s kinds, which throw on a
         * query for null), otherwise as {@code List.of}'s kind.
         */
        IMMUTABLE_LIST(9),
        /** As {@link #IMMUTABLE_LIST}, for sets: {@code Collections.emptyNavigableSet()} since record format 12. */
        IMMUTABLE_SET(10),
        /** As {@link #IMMUTABLE_LIST}, for maps (entries): {@code Collections.emptyNavigableMap()} since record format 12. */
        IMMUTABLE_MAP(11),
        /**
         * {@code Collections.unmodifiable*} views as format 4 and older stored them: a copy of
         * what they show. Read as ever (such a view is read back around a copy, which nothing
         * else holds, so it is never written again); new views are {@link #WRAPPER}s.
         */
        UNMODIFIABLE_LIST(12),
        UNMODIFIABLE_SET(13),
        UNMODIFIABLE_MAP(14),
        UNMODIFIABLE_COLLECTION(15),
        UNMODIFIABLE_SORTED_SET(16),
        UNMODIFIABLE_SORTED_MAP(17),
        /** {@code Arrays.asList}: a fixed-size list. */
        FIXED_SIZE_LIST(18),
        /** A value with no identity (a string, a box, a record...) bound to a name by itself. */
        VALUE(19),
        /**
         * A mutable JDK holder of one value with no references in it ({@code Date},
         * {@code StringBuilder}, {@code StringBuffer}, {@code AtomicInteger}, {@code AtomicLong},
         * {@code AtomicBoolean}, {@code BitSet}; since record format 7 also a plain {@code Object},
         * {@code ReentrantLock} and {@code ReentrantReadWriteLock}, whose value is their identity
         * and fairness): varint length, then the value as the class's own layout (see
         * {@code RecordEncoder#holder}). Record format 4.
         */
        HOLDER(20),
        /**
         * {@code AtomicReference}: a holder whose one value may be a reference, so it is made
         * empty and then filled, like a collection, and the collector reads the value. Record
         * format 5.
         */
        ATOMIC_REFERENCE(21),
        /**
         * {@code Map.entry} and {@code AbstractMap.SimpleImmutableEntry}: key, then value, built
         * with both. Record format 5.
         */
        IMMUTABLE_ENTRY(22),
        /**
         * {@code AbstractMap.SimpleEntry}: key, then value. Made with its key and then given its
         * value, which {@code setValue} changes in place. Record format 5.
         */
        ENTRY(23),
        /**
         * {@code Collections.synchronized*} and {@code Collections.unmodifiable*} (which format 4
         * stored as copies, the {@code UNMODIFIABLE_*} kinds, still read): varint 0, then a
         * reference to the collection or map it wraps (a container of its own, shared with
         * whatever else holds it, tracked or compared as itself), read back as the same wrapper
         * around it; or, when what it wraps is not something Perpetua stores (a map's key set),
         * varint 1 and a copy of what it shows (the comparator first if sorted; elements, or
         * entries for a map), read back as the same wrapper around a new ArrayList,
         * LinkedHashSet, TreeSet, LinkedHashMap or TreeMap. Record format 5.
         */
        WRAPPER(24),
        /**
         * A JDK class stored by its own Java serialization ({@link JdkSerialized}): varint
         * length, then the serialization stream. Compared at every commit while resident.
         * Record format 8.
         */
        SERIALIZED(25),
        /**
         * {@code ConcurrentHashMap.newKeySet()} and {@code keySet(mappedValue)}: a reference to
         * the map it is a view of (a container of its own, shared with whatever else holds it),
         * then the value it maps added keys to. Never changes itself: its map is compared.
         * Record format 9.
         */
        KEY_SET_VIEW(26),
        /**
         * The record of an object of a rewritten class stored by its serialization replacement
         * ({@link ClassInfo#writeReplace}); the class name is the object's class, and there are
         * no fields: the record goes on with the replacement's object descriptor id and fields
         * ({@code RecordEncoder#replacedObject}). References to the object name its
         * {@link #OBJECT} descriptor. Record format 11.
         */
        REPLACED_OBJECT(27);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new ByteIn.MalformedRecord("unknown class descriptor kind " + code);
        }

        /** @return true for the kinds whose instances have a record of their own */
        boolean hasRecords() {
            return this != ENUM && this != RECORD;
        }

        /** @return true for the kinds of containers: those with records that are not objects of rewritten classes */
        boolean isContainer() {
            return hasRecords() && this != OBJECT && this != REPLACED_OBJECT;
        }
    }

    /**
     * One persistent field (or record component).
     *
     * @param owner the declaring class's name
     * @param name the field's name
     * @param type the JVM descriptor char of a primitive type, or {@code 'L'} for a reference
     */
    record Field(String owner, String name, char type) {
        String qualifiedName() {
            return owner + "." + name;
        }
    }

    final int id;
    final Kind kind;
    final String className;
    final List<Field> fields;

    ClassDescriptor(int id, Kind kind, String className, List<Field> fields) {
        this.id = id;
        this.kind = kind;
        this.className = className;
        this.fields = List.copyOf(fields);
    }

    /** @return a key that is equal for descriptors that describe the same layout */
    static String key(Kind kind, String className, List<Field> fields) {
        StringBuilder sb = new StringBuilder().append(kind.code).append(':').append(className);
        for (Field f : fields) {
            sb.append('|').append(f.owner).append('.').append(f.name).append(':').append(f.type);
        }
        return sb.toString();
    }

    String key() {
        return key(kind, className, fields);
    }

    byte[] encode() {
        ByteOut out = new ByteOut(32 + fields.size() * 24);
        out.writeVarInt(1);
        out.writeByte(kind.code);
        out.writeString(className);
        out.writeVarInt(fields.size());
        for (Field f : fields) {
            out.writeString(f.owner);
            out.writeString(f.name);
            out.writeByte(f.type);
        }
        return out.toByteArray();
    }

    static ClassDescriptor decode(int id, byte[] bytes) {
        ByteIn in = new ByteIn(bytes);
        int version = in.readVarInt();
        if (version != 1) {
            throw new ByteIn.MalformedRecord("class descriptor format " + version + " is not known to this version of Perpetua");
        }
        Kind kind = Kind.of(in.readByte() & 0xFF);
        String className = in.readString();
        int n = in.readCount();
        List<Field> fields = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String owner = in.readString();
            String name = in.readString();
            char type = (char) (in.readByte() & 0xFF);
            if ("ZBCSIJFDL".indexOf(type) < 0) {
                throw new ByteIn.MalformedRecord("unknown field type code '" + type + "' for " + name);
            }
            fields.add(new Field(owner, name, type));
        }
        return new ClassDescriptor(id, kind, className, fields);
    }

    @Override
    public String toString() {
        return "descriptor #" + id + " " + kind + " " + className;
    }
}
