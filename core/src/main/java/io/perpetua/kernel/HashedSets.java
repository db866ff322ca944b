package io.perpetua.kernel;

import io.perpetua.NotPersistableException;

import java.util.Set;
import java.util.SortedSet;

/**
 * Sets that serialize themselves and keep a hash table of their own, in a transient array
 * (Guava's {@code ImmutableSet}, fastutil's and Eclipse Collections' hash sets). Their transient
 * fields are stored as they are ({@link io.perpetua.runtime.PersistentClasses#storesTransientFields}),
 * so the table keeps the slots its elements' hash codes gave them. An element whose hash code is
 * its identity hash (an enum constant, an object whose class does not override
 * {@code hashCode}) hashes differently in the next JVM, where the set would no longer find it.
 * Java serialization does not meet this (such a set re-inserts its elements when read), and the
 * JDK's own sets are rebuilt by the kernel; these are refused at commit instead, loudly. Maps
 * are not checked: their tables hold entries, or keys and values side by side, which cannot be
 * told apart here. Stateless and thread-safe.
 */
final class HashedSets {

    /** By class: whether its hash code is its identity hash, which differs from JVM to JVM. */
    private static final ClassValue<Boolean> IDENTITY_HASHED = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            if (Enum.class.isAssignableFrom(type)) {
                return true;
            }
            try {
                return type.getMethod("hashCode").getDeclaringClass() == Object.class;
            } catch (NoSuchMethodException | RuntimeException e) {
                return false;
            }
        }
    };

    private HashedSets() {
    }

    /** @return whether objects of {@code type} are sets that may hash (not sorted ones) */
    static boolean isOne(Class<?> type) {
        return Set.class.isAssignableFrom(type) && !SortedSet.class.isAssignableFrom(type);
    }

    /**
     * @param type the class of the set being written
     * @param table the array in one of its transient fields
     * @param path where the array is
     * @throws NotPersistableException if an element of the array hashes by identity
     */
    static void check(Class<?> type, Object[] table, String path) {
        for (Object e : table) {
            if (e != null && IDENTITY_HASHED.get(e.getClass())) {
                throw new NotPersistableException(type.getName(), path, "it is a set that keeps a hash table of its"
                        + " own, stored as it is, and its element " + e.getClass().getName()
                        + (e instanceof Enum<?> ? " (an enum constant)" : " (its class does not override hashCode)")
                        + " hashes by identity, differently in each JVM: the next JVM would not find it in the set."
                        + " Store a java.util set (Perpetua rebuilds those), an EnumSet, or elements with a hashCode"
                        + " of their own");
            }
        }
    }
}
