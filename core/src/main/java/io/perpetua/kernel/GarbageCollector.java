package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.kernel.ClassDescriptor.Kind;
import io.perpetua.spi.Backend;
import io.perpetua.spi.WriteSet;

import java.util.Arrays;

/**
 * The collection of {@link Kernel#collectGarbage}: marks every record reachable from the
 * roots it is given by reading the stored records, then deletes the others in one write set.
 *
 * <p>It reads references straight from the record bytes, by the stored class descriptors, and
 * builds no object: what is marked is what the store holds, not what the program has changed
 * since, and a class that can no longer be loaded does not stop it. The unit is the record: a
 * satellite keeps its home's whole record, and a container embedded in a record is looked into
 * as part of it. One collection per instance, under the kernel's lock.
 */
final class GarbageCollector {
    /** Records read per {@link Backend#readMany} call. */
    private static final int BATCH = 1024;

    private final Backend backend;
    private final ClassRegistry classes;
    private final String location;
    private final RecordDecoder values;
    private final LongSet marked = new LongSet();
    private long[] queue = new long[BATCH];
    private int queued;
    /** The record being scanned, for messages. */
    private long scanning;
    private ByteIn in;
    private long recordsRead;

    GarbageCollector(Backend backend, ClassRegistry classes, String location) {
        this.backend = backend;
        this.classes = classes;
        this.location = location;
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
     * Marks what {@code roots} reach and deletes every other record.
     *
     * @param roots ids of objects or containers that must stay (bound to names, or resident);
     *              one without a record (not written yet) is ignored
     * @return how many records were deleted
     * @throws CorruptStoreException if a stored reference leads to a missing or malformed
     *         record; nothing is deleted then
     */
    long collect(long[] roots) {
        // The roots first: a resident object without a record (not committed yet) is no error.
        long[] rootRecords = new long[roots.length];
        int n = 0;
        for (long id : roots) {
            long record = recordOf(id);
            if (record > 0 && marked.add(record)) {
                rootRecords[n++] = record;
            }
        }
        for (int from = 0; from < n; from += BATCH) {
            long[] batch = Arrays.copyOfRange(rootRecords, from, Math.min(n, from + BATCH));
            scanAll(batch, backend.readMany(batch), false);
        }
        // Then what stored records refer to, which must be there.
        while (queued > 0) {
            long[] batch = Arrays.copyOfRange(queue, queued - Math.min(queued, BATCH), queued);
            queued -= batch.length;
            scanAll(batch, backend.readMany(batch), true);
        }
        WriteSet deletes = new WriteSet();
        long deleted = 0;
        for (long id : backend.recordIds()) {
            if (!marked.contains(id)) {
                deletes.delete(id);
                deleted++;
            }
        }
        if (deleted > 0) {
            backend.commit(deletes);
        }
        return deleted;
    }

    /** @return how many records the marking read */
    long recordsRead() {
        return recordsRead;
    }

    private void scanAll(long[] ids, byte[][] records, boolean mustExist) {
        recordsRead += ids.length;
        for (int i = 0; i < ids.length; i++) {
            if (records[i] != null) {
                scan(ids[i], records[i]);
            } else if (mustExist) {
                throw new CorruptStoreException(location + ", object #" + ids[i],
                        "a stored object refers to it and its record is missing; nothing was collected", null);
            }
        }
    }

    /** @return the id of the record that holds an object or container: a satellite's is its home's */
    private static long recordOf(long id) {
        return Satellites.isSatellite(id) ? Satellites.home(id) : id;
    }

    /** Queues the record that holds an object or container that a stored record refers to, once. */
    private void reach(long id) {
        long record = recordOf(id);
        if (record > 0 && marked.add(record)) {
            if (queued == queue.length) {
                queue = Arrays.copyOf(queue, queued * 2);
            }
            queue[queued++] = record;
        }
    }

    private void scan(long id, byte[] record) {
        scanning = id;
        try {
            in = new ByteIn(record);
            values.reset(in, location, id);
            ClassDescriptor d = descriptor();
            if (d.kind == Kind.OBJECT) {
                fields(d);
                if (!in.atEnd()) {
                    for (Satellites.Entry e : Satellites.entries(record, in.position())) {
                        in = new ByteIn(record, e.from(), e.to());
                        values.reset(in, location, id);
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
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(location + ", object #" + id, m.getMessage() + "; nothing was collected", null);
        }
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
                reach(in.readVarLong());
            }
            case Tag.SATELLITE -> {
                in.readByte();
                in.readVarInt();
                reach(Satellites.readReference(in));
            }
            case Tag.LOCAL -> { // an object of the record being scanned, reached already
                in.readByte();
                in.readVarInt();
                Satellites.readLocalReference(in, Satellites.home(scanning));
            }
            case Tag.CONTAINER -> {
                in.readByte();
                reach(in.readVarLong());
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
