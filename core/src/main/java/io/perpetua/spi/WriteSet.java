package io.perpetua.spi;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything one commit writes: record puts and deletes, name binds and unbinds, and new class
 * descriptors. A backend applies it as one atomic unit.
 *
 * <p>Not thread-safe: the kernel builds it on one thread and hands it to
 * {@link Backend#commit(WriteSet)}, which only reads it. The byte arrays put into it must not be
 * changed afterwards.
 *
 * <p>The record puts, a few hundred per commit, are kept in arrays in the order they were first
 * added ({@link #putCount}, {@link #putId}, {@link #putRecord}, {@link #putReplaces}), indexed by
 * an open-addressing table of ids: a {@code LinkedHashMap<Long, byte[]>} and a set of boxed ids
 * for the replaces were about 6% of the Java samples of an OO1 commit.
 */
public final class WriteSet {
    private long[] putIds = new long[16];
    private byte[][] putRecords = new byte[16][];
    private boolean[] putReplaces = new boolean[16];
    private int putCount;
    /** Slot {@code i} holds a put's index plus one, or 0 if empty; linear probing on the id. Power-of-two size, at most half full. */
    private int[] putSlots = new int[32];
    private final Set<Long> deletes = new LinkedHashSet<>();
    private final Map<String, Long> binds = new LinkedHashMap<>();
    private final Set<String> unbinds = new LinkedHashSet<>();
    private final Map<Integer, byte[]> classDescriptors = new LinkedHashMap<>();

    /**
     * Writes (or overwrites) the record of {@code id}. A later delete of the same id wins.
     *
     * @param id an object id, positive
     * @param record the record's bytes, not null (checked by the backend's commit)
     * @return this write set
     * @throws IllegalArgumentException if {@code id} is not positive
     */
    public WriteSet put(long id, byte[] record) {
        add(id, record, false);
        return this;
    }

    private void add(long id, byte[] record, boolean replaces) {
        checkId(id);
        if (!deletes.isEmpty()) {
            deletes.remove(id);
        }
        int mask = putSlots.length - 1;
        int slot = slot(id, mask);
        for (; putSlots[slot] != 0; slot = (slot + 1) & mask) {
            int at = putSlots[slot] - 1;
            if (putIds[at] == id) {
                putRecords[at] = record; // the first put's place in the order stays
                putReplaces[at] = replaces;
                return;
            }
        }
        if (putCount == putIds.length) {
            putIds = Arrays.copyOf(putIds, putCount * 2);
            putRecords = Arrays.copyOf(putRecords, putCount * 2);
            putReplaces = Arrays.copyOf(putReplaces, putCount * 2);
        }
        putIds[putCount] = id;
        putRecords[putCount] = record;
        putReplaces[putCount] = replaces;
        putSlots[slot] = ++putCount;
        if (putCount * 2 > putSlots.length) {
            reindex(putSlots.length * 2);
        }
    }

    private static int slot(long id, int mask) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 32) & mask;
    }

    /** Rebuilds the id table with {@code size} slots from the put arrays. */
    private void reindex(int size) {
        putSlots = new int[size];
        int mask = size - 1;
        for (int i = 0; i < putCount; i++) {
            int slot = slot(putIds[i], mask);
            while (putSlots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            putSlots[slot] = i + 1;
        }
    }

    /** @return the index of the put of {@code id}, or -1 */
    private int indexOf(long id) {
        int mask = putSlots.length - 1;
        for (int slot = slot(id, mask); putSlots[slot] != 0; slot = (slot + 1) & mask) {
            if (putIds[putSlots[slot] - 1] == id) {
                return putSlots[slot] - 1;
            }
        }
        return -1;
    }

    /**
     * Overwrites the record of {@code id}, which the caller knows exists (it read or committed
     * it): the same as {@link #put}, except that a backend keeping exact counts may take the
     * caller's word instead of checking. A later put or delete of the same id drops the promise.
     *
     * @param id the id of an object that has a record, positive
     * @param record the record's new bytes, not null
     * @return this write set
     * @throws IllegalArgumentException if {@code id} is not positive
     */
    public WriteSet replace(long id, byte[] record) {
        add(id, record, true);
        return this;
    }

    /**
     * @param id an object id
     * @return true if the current put of {@code id} was made with {@link #replace}
     */
    public boolean replaces(long id) {
        int at = indexOf(id);
        return at >= 0 && putReplaces[at];
    }

    /** @return how many records this write set puts */
    public int putCount() {
        return putCount;
    }

    /**
     * @param index a put's index, 0 to {@link #putCount()} - 1, in the order the ids were first put
     * @return the id of that put
     * @throws IndexOutOfBoundsException if there is no such put
     */
    public long putId(int index) {
        return putIds[Objects.checkIndex(index, putCount)];
    }

    /**
     * @param index as {@link #putId}
     * @return the record of that put, as given (not copied)
     * @throws IndexOutOfBoundsException if there is no such put
     */
    public byte[] putRecord(int index) {
        return putRecords[Objects.checkIndex(index, putCount)];
    }

    /**
     * @param index as {@link #putId}
     * @return true if that put was made with {@link #replace}
     * @throws IndexOutOfBoundsException if there is no such put
     */
    public boolean putReplaces(int index) {
        return putReplaces[Objects.checkIndex(index, putCount)];
    }

    /**
     * Deletes the record of {@code id}, if any.
     *
     * @param id an object id, positive
     * @return this write set
     * @throws IllegalArgumentException if {@code id} is not positive
     */
    public WriteSet delete(long id) {
        checkId(id);
        int at = indexOf(id);
        if (at >= 0) { // rare (a put then a delete of one id in one commit): close the gap, rebuild the index
            int rest = putCount - at - 1;
            System.arraycopy(putIds, at + 1, putIds, at, rest);
            System.arraycopy(putRecords, at + 1, putRecords, at, rest);
            System.arraycopy(putReplaces, at + 1, putReplaces, at, rest);
            putRecords[--putCount] = null;
            reindex(putSlots.length);
        }
        deletes.add(id);
        return this;
    }

    /**
     * Binds {@code name} to {@code id}, replacing any earlier binding of that name.
     *
     * @param name the name, not null (a backend may refuse one that is not valid Unicode)
     * @param id an object id, positive
     * @return this write set
     * @throws IllegalArgumentException if {@code id} is not positive
     */
    public WriteSet bind(String name, long id) {
        checkId(id);
        unbinds.remove(name);
        binds.put(name, id);
        return this;
    }

    /**
     * Removes the binding of {@code name}, if any.
     *
     * @param name the name, not null
     * @return this write set
     */
    public WriteSet unbind(String name) {
        binds.remove(name);
        unbinds.add(name);
        return this;
    }

    /**
     * Adds a new class descriptor; descriptors are never replaced once committed.
     *
     * @param descriptorId the descriptor's id, positive
     * @param descriptor its bytes, not null (checked by the backend's commit)
     * @return this write set
     * @throws IllegalArgumentException if {@code descriptorId} is not positive
     */
    public WriteSet classDescriptor(int descriptorId, byte[] descriptor) {
        if (descriptorId <= 0) {
            throw new IllegalArgumentException("descriptor ids are positive: " + descriptorId);
        }
        classDescriptors.put(descriptorId, descriptor);
        return this;
    }

    /**
     * @return the record puts, in the order they were first added; a read-only copy, made on
     *         each call (backends read {@link #putCount} and the indexed accessors instead)
     */
    public Map<Long, byte[]> puts() {
        Map<Long, byte[]> copy = new LinkedHashMap<>();
        for (int i = 0; i < putCount; i++) {
            copy.put(putIds[i], putRecords[i]);
        }
        return Collections.unmodifiableMap(copy);
    }

    /** @return the record deletes; read-only */
    public Set<Long> deletes() {
        return Collections.unmodifiableSet(deletes);
    }

    /** @return the name binds; read-only */
    public Map<String, Long> binds() {
        return Collections.unmodifiableMap(binds);
    }

    /** @return the name unbinds; read-only */
    public Set<String> unbinds() {
        return Collections.unmodifiableSet(unbinds);
    }

    /** @return the new class descriptors; read-only */
    public Map<Integer, byte[]> classDescriptors() {
        return Collections.unmodifiableMap(classDescriptors);
    }

    /** @return true if committing this would change nothing */
    public boolean isEmpty() {
        return putCount == 0 && deletes.isEmpty() && binds.isEmpty() && unbinds.isEmpty()
                && classDescriptors.isEmpty();
    }

    /** @return how many operations this write set holds, of every kind */
    public int size() {
        return putCount + deletes.size() + binds.size() + unbinds.size() + classDescriptors.size();
    }

    private static void checkId(long id) {
        if (id <= 0) {
            throw new IllegalArgumentException("object ids are positive: " + id);
        }
    }
}
