package io.perpetua.spi;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Everything one commit writes: record puts and deletes, name binds and unbinds, and new class
 * descriptors. A backend applies it as one atomic unit.
 *
 * <p>Not thread-safe: the kernel builds it on one thread and hands it to
 * {@link Backend#commit(WriteSet)}, which only reads it. The byte arrays put into it must not be
 * changed afterwards.
 */
public final class WriteSet {
    private final Map<Long, byte[]> puts = new LinkedHashMap<>();
    /** The puts the caller said overwrite an existing record ({@link #replace}). */
    private final Set<Long> replacements = new HashSet<>();
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
        checkId(id);
        deletes.remove(id);
        replacements.remove(id);
        puts.put(id, record);
        return this;
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
        put(id, record);
        replacements.add(id);
        return this;
    }

    /**
     * @param id an object id
     * @return true if the current put of {@code id} was made with {@link #replace}
     */
    public boolean replaces(long id) {
        return replacements.contains(id);
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
        puts.remove(id);
        replacements.remove(id);
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

    /** @return the record puts, in the order they were added; read-only */
    public Map<Long, byte[]> puts() {
        return Collections.unmodifiableMap(puts);
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
        return puts.isEmpty() && deletes.isEmpty() && binds.isEmpty() && unbinds.isEmpty()
                && classDescriptors.isEmpty();
    }

    /** @return how many operations this write set holds, of every kind */
    public int size() {
        return puts.size() + deletes.size() + binds.size() + unbinds.size() + classDescriptors.size();
    }

    private static void checkId(long id) {
        if (id <= 0) {
            throw new IllegalArgumentException("object ids are positive: " + id);
        }
    }
}
