package io.perpetua.kernel;

import io.perpetua.kernel.ClassDescriptor.Kind;

import java.util.function.LongConsumer;

/**
 * Reads stored values without building them: moves past each one and reports the id of every
 * object or container it refers to. By the stored class descriptors only, so a class that can
 * no longer be loaded does not stop it. For the collection of the store's garbage, which marks
 * what records reach, and for a record whose class dropped a field since, whose stored value is
 * stepped over (its class may be gone with it). One instance per use; not thread-safe.
 */
final class ReferenceScanner {
    private final ClassRegistry classes;
    private final String location;
    private final LongConsumer reached;
    private final RecordDecoder values;
    private ByteIn in;
    /** The record being read, for messages and for references to its own satellites. */
    private long scanning;

    /** @param reached told each id a scanned value refers to (a satellite's own, not its home's) */
    ReferenceScanner(ClassRegistry classes, String location, LongConsumer reached) {
        this.classes = classes;
        this.location = location;
        this.reached = reached;
        // Reads the values that cannot hold a reference (strings, numbers, java.time...): every
        // tag that can is handled here first, so this resolver is never asked.
        this.values = new RecordDecoder(classes, new RecordDecoder.Resolve() {
            @Override
            public Object object(ClassDescriptor descriptor, long id) {
                throw new IllegalStateException("a reference reached the value decoder");
            }

            @Override
            public Object container(long id) {
                throw new IllegalStateException("a reference reached the value decoder");
            }

            @Override
            public Object embedded(long id, RecordDecoder decoder) {
                throw new IllegalStateException("a reference reached the value decoder");
            }

            @Override
            public void fill(Object container, Object[] contents) {
                throw new IllegalStateException("a container reached the value decoder");
            }
        }, null);
    }

    /**
     * Reads a whole record: an object's fields and its satellites', a replaced object's
     * replacement, or a container.
     *
     * @throws ByteIn.MalformedRecord if it is not well formed
     */
    void record(long id, byte[] record) {
        at(new ByteIn(record), id);
        ClassDescriptor d = descriptor();
        if (d.kind == Kind.OBJECT) {
            fields(d);
            if (!in.atEnd()) {
                for (Satellites.Entry e : Satellites.entries(record, in.position())) {
                    at(new ByteIn(record, e.from(), e.to()), id);
                    fields(objectDescriptor());
                    atEnd();
                }
            }
        } else if (d.kind == Kind.REPLACED_OBJECT) {
            fields(objectDescriptor()); // the replacement's
            atEnd();
        } else if (d.kind.isContainer()) {
            container(d);
            atEnd();
        } else {
            throw new ByteIn.MalformedRecord("the record is of " + d + ", which has no records");
        }
    }

    /**
     * Moves {@code in} past one stored field of the type code {@code type}.
     *
     * @param recordId the record {@code in} reads, whose own satellites a value may refer to
     * @throws ByteIn.MalformedRecord if it is not well formed
     */
    void field(ByteIn in, long recordId, char type) {
        at(in, recordId);
        switch (type) {
            case 'Z', 'B', 'C', 'S', 'I', 'J', 'F', 'D' -> values.field(type);
            default -> value();
        }
    }

    private void at(ByteIn in, long recordId) {
        this.in = in;
        this.scanning = recordId;
        values.reset(in, location, recordId);
    }

    private ClassDescriptor descriptor() {
        return classes.byId(in.readVarInt(), location, scanning);
    }

    private ClassDescriptor objectDescriptor() {
        ClassDescriptor d = descriptor();
        if (d.kind != Kind.OBJECT) {
            throw new ByteIn.MalformedRecord("a satellite is of " + d + ", not of an object");
        }
        return d;
    }

    private void atEnd() {
        if (!in.atEnd()) {
            throw new ByteIn.MalformedRecord((in.end() - in.position()) + " bytes left over");
        }
    }

    /** The fields of an object or the components of a record value, in the stored layout's order. */
    private void fields(ClassDescriptor d) {
        for (ClassDescriptor.Field f : d.fields) {
            switch (f.type()) {
                case 'Z', 'B', 'C', 'S', 'I', 'J', 'F', 'D' -> values.field(f.type());
                default -> value();
            }
        }
    }

    private void value() {
        switch (in.peekByte()) {
            case Tag.OBJECT -> {
                in.readByte();
                in.readVarInt(); // the class: the record says it again
                reached.accept(in.readVarLong());
            }
            case Tag.SATELLITE -> {
                in.readByte();
                in.readVarInt();
                reached.accept(Satellites.readReference(in));
            }
            case Tag.LOCAL -> { // an object of the record being scanned, reached already
                in.readByte();
                in.readVarInt();
                Satellites.readLocalReference(in, Satellites.home(scanning));
            }
            case Tag.CONTAINER -> {
                in.readByte();
                reached.accept(in.readVarLong());
            }
            case Tag.INLINE_CONTAINER -> {
                in.readByte();
                in.readVarLong(); // an embedded container's id has no record of its own
                container(containerDescriptor());
            }
            case Tag.INLINE_CONTAINER_SIZED -> {
                in.readByte();
                in.readVarLong();
                int end = in.readCount() + in.position();
                container(containerDescriptor());
                if (in.position() != end) {
                    throw new ByteIn.MalformedRecord("an embedded container does not end where its length says");
                }
            }
            case Tag.RECORD, Tag.REPLACED -> { // a record value, or a replacement's fields
                boolean record = in.readByte() == Tag.RECORD;
                ClassDescriptor d = descriptor();
                if (d.kind != (record ? Kind.RECORD : Kind.OBJECT)) {
                    throw new ByteIn.MalformedRecord((record ? "a record value" : "a replaced object") + " names " + d
                            + ", which is not " + (record ? "a record" : "an object's class"));
                }
                fields(d);
            }
            case Tag.VALUE_CONTAINER -> {
                in.readByte();
                container(containerDescriptor());
            }
            case Tag.OPTIONAL -> {
                in.readByte();
                value();
            }
            case Tag.ENUM -> { // not decoded: its class may be gone
                in.readByte();
                in.readVarInt();
                in.readString();
            }
            case Tag.CLASS -> { // nor this: its class may be gone too
                in.readByte();
                in.readVarInt();
                in.readString();
            }
            case Tag.CONSTANT -> { // nor this: and a constant is no object of the store
                in.readByte();
                in.readString();
                in.readString();
            }
            default -> values.value(); // no reference inside
        }
    }

    private ClassDescriptor containerDescriptor() {
        ClassDescriptor d = descriptor();
        if (!d.kind.isContainer()) {
            throw new ByteIn.MalformedRecord("an embedded container is of " + d + ", not a container");
        }
        return d;
    }

    /** A container's body, as {@link RecordDecoder#container} reads it. */
    private void container(ClassDescriptor d) {
        switch (d.kind) {
            case ARRAY -> array(d.className);
            case COLLECTION -> {
                headerOf(d);
                values(in.readCount());
            }
            case MAP -> {
                headerOf(d);
                values(2 * in.readCount());
            }
            case ENUM_SET -> {
                in.readString();
                for (int i = in.readCount(); i > 0; i--) {
                    in.readString();
                }
            }
            case ENUM_MAP -> {
                in.readString();
                for (int i = in.readCount(); i > 0; i--) {
                    in.readString();
                    value();
                }
            }
            case IMMUTABLE_LIST, IMMUTABLE_SET, UNMODIFIABLE_LIST, UNMODIFIABLE_SET, UNMODIFIABLE_COLLECTION,
                    FIXED_SIZE_LIST -> values(in.readCount());
            case IMMUTABLE_MAP, UNMODIFIABLE_MAP -> values(2 * in.readCount());
            case UNMODIFIABLE_SORTED_SET -> {
                value(); // the comparator
                values(in.readCount());
            }
            case UNMODIFIABLE_SORTED_MAP -> {
                value();
                values(2 * in.readCount());
            }
            case HOLDER, SERIALIZED -> in.skip(in.readCount()); // a value: no reference in it
            case ATOMIC_REFERENCE -> value();
            case KEY_SET_VIEW -> {
                value(); // its map
                value(); // the value it maps added keys to
            }
            case WRAPPER -> {
                if (in.readCount() == 0) {
                    value(); // what it wraps
                } else {
                    if (Containers.wrapsSorted(d.className)) {
                        value();
                    }
                    int n = in.readCount();
                    values(Containers.wrapsMap(d.className) ? 2 * n : n);
                }
            }
            case IMMUTABLE_ENTRY, ENTRY -> values(2);
            case VALUE -> value();
            default -> throw new ByteIn.MalformedRecord(d + " does not describe a container");
        }
    }

    /** Reads past what a mutable collection or map stores before its contents: a comparator if sorted, a capacity if bounded. */
    private void headerOf(ClassDescriptor d) {
        Class<?> type = classes.resolve(d.className);
        if (Containers.sorted(type)) {
            value();
        }
        if (Containers.bounded(type)) {
            in.readVarInt(); // the capacity
        }
    }

    private void values(int n) {
        for (int i = 0; i < n; i++) {
            value();
        }
    }

    /** An array's body: its length, then its elements; the class name says whether they are primitives. */
    private void array(String className) {
        if (className.length() < 2 || className.charAt(0) != '[') {
            throw new ByteIn.MalformedRecord(className + " is not an array class");
        }
        int n = in.readCount();
        char component = className.charAt(1);
        if (className.length() > 2 || component == 'L' || component == '[') {
            values(n);
            return;
        }
        switch (component) {
            case 'B', 'Z' -> skip(n);
            case 'F' -> skip(4L * n);
            case 'D' -> skip(8L * n);
            case 'I', 'S' -> repeat(n, in::readSignedVarInt);
            case 'J' -> repeat(n, in::readSignedVarLong);
            case 'C' -> repeat(n, in::readVarInt);
            default -> throw new ByteIn.MalformedRecord(className + " is not an array class");
        }
    }

    private void skip(long bytes) {
        if (bytes > in.end() - in.position()) {
            throw new ByteIn.MalformedRecord("an array of " + bytes + " bytes does not fit the record");
        }
        in.skip((int) bytes);
    }

    private static void repeat(int n, Runnable read) {
        for (int i = 0; i < n; i++) {
            read.run();
        }
    }
}
