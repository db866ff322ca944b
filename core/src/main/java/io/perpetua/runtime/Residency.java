package io.perpetua.runtime;

/**
 * The slow paths of the residency checks that rewritten classes inline. Stateless.
 */
public final class Residency {
    private Residency() {
    }

    /**
     * Called when a field of a {@link ObjectState#HOLLOW hollow} object is about to be read:
     * fills the object from its store. Thread-safe: when two threads fault the same object in
     * at once, it is filled once and both see it filled.
     *
     * @param object a persistent-capable object, not null
     * @throws io.perpetua.PersistentStoreException if the store cannot supply it (for example,
     *         it was closed)
     */
    public static void load(Persistent object) {
        if (object.$perpetua$state() == ObjectState.HOLLOW) {
            object.$perpetua$handle().load(object);
        }
    }

    /**
     * Called when a field of an object in a negative state (hollow or clean) is about to be
     * written: fills it if hollow and marks it dirty, so that the next commit writes it.
     *
     * @param object a persistent-capable object, not null
     */
    public static void beforeWrite(Persistent object) {
        if (object.$perpetua$state() < 0) {
            object.$perpetua$handle().beforeWrite(object);
        }
    }

    /**
     * Called when a transient field of an object in a negative state (hollow or clean) is about
     * to be written (a primitive one; a reference one's setter calls the method below, but
     * classes an earlier agent rewrote call this one for each): fills it if hollow, and marks it
     * dirty if its class stores transient fields
     * ({@link PersistentClasses#storesTransientFields}); otherwise the write changes nothing
     * that is stored.
     *
     * @param object a persistent-capable object, not null
     */
    public static void beforeTransientWrite(Persistent object) {
        byte state = object.$perpetua$state();
        if (state < 0) {
            if (PersistentClasses.storesTransientFields(object.getClass())) {
                object.$perpetua$handle().beforeWrite(object);
            } else if (state == ObjectState.HOLLOW) {
                object.$perpetua$handle().load(object);
            }
        }
    }

    /**
     * Called when a transient reference field of an object in a negative state (hollow or clean)
     * is about to be written: as {@link #beforeTransientWrite(Persistent)}, but a clean object is
     * not marked dirty when the field is stored as null both before and after the write
     * ({@link PersistentClasses#storedAsNullInTransientField}): a multimap that makes its
     * {@code asMap()} view when a program reads it back is not written again for that.
     *
     * @param object a persistent-capable object, not null
     * @param before what the field holds now (read before the object is filled, if hollow)
     * @param after what is about to be written into it
     */
    public static void beforeTransientWrite(Persistent object, Object before, Object after) {
        byte state = object.$perpetua$state();
        if (state < 0) {
            if (!PersistentClasses.storesTransientFields(object.getClass())) {
                if (state == ObjectState.HOLLOW) {
                    object.$perpetua$handle().load(object);
                }
            } else if (state == ObjectState.HOLLOW || !PersistentClasses.storedAsNullInTransientField(object, before)
                    || !PersistentClasses.storedAsNullInTransientField(object, after)) {
                object.$perpetua$handle().beforeWrite(object); // a hollow one's field is not known before its fill
            }
        }
    }

    /**
     * Called when the getter of a persistent array field finds the field's lazy marker (the
     * zero-length array in the class's {@code $perpetua$lazy$<field>}): the fill stepped over
     * the field's stored value, and it is decoded now, into the field. Thread-safe, like
     * {@link #load}.
     *
     * @param object a resident persistent object, not null
     * @param marker the marker the getter found
     * @throws io.perpetua.PersistentStoreException if the store cannot supply the value (for
     *         example, it was closed)
     */
    public static void materialize(Persistent object, Object marker) {
        ObjectHandle h = object.$perpetua$handle();
        if (h != null) {
            h.materialize(object, marker);
        }
    }

    /**
     * Called first in the {@code writeObject} of a rewritten {@code Serializable} class (the
     * agent adds one to each that has none): Java serialization reads fields by reflection, past
     * the getters, so the object is filled if hollow and its array fields not decoded yet are
     * decoded, and the stream gets what the object holds. Thread-safe, like {@link #load}.
     *
     * @param object a persistent-capable object, not null
     * @throws io.perpetua.PersistentStoreException if the store cannot supply it (for example,
     *         it was closed)
     */
    public static void beforeSerialization(Persistent object) {
        ObjectHandle h = object.$perpetua$handle();
        if (h != null) {
            h.materializeAll(object);
        }
    }

    /**
     * Called first in the {@code removeEldestEntry(Map.Entry)} of a rewritten class extending a
     * {@code LinkedHashMap}: while the store fills the object, its entries are put back one by
     * one through the JDK's {@code put}, which asks the method whether to evict; it must answer
     * false without running the program's code (which would evict stored entries), as if it
     * were not asked: {@code HashMap.readObject} puts without evicting. Thread-safe, takes no lock.
     *
     * @param object a persistent-capable object, not null
     * @return true while the calling thread's store fills {@code object}
     */
    public static boolean filling(Persistent object) {
        ObjectHandle h = object.$perpetua$handle();
        return h != null && h.filling(object);
    }

    /**
     * Called with the result of every {@code clone()} call in rewritten classes: a copy that
     * {@code Object.clone()} made of a persistent object holds the original's state and handle,
     * and would be taken for the original (its changes written over the original's record). Such
     * a copy is made transient, a new object, as a copy made by a constructor is; it becomes
     * persistent by reachability. Thread-safe; anything else is returned unchanged.
     *
     * @param copy what {@code clone()} returned, may be null
     * @param original the object {@code clone()} was called on
     * @return {@code copy}
     * @throws io.perpetua.PersistentStoreException if the copy lacks a part of the original that
     *         the store cannot supply (for example, it was closed)
     */
    public static Object afterClone(Object copy, Object original) {
        if (copy != original && copy instanceof Persistent p) {
            ObjectHandle h = p.$perpetua$handle();
            if (h != null && !h.refersTo(p)) {
                h.detachCopy(p);
            }
        }
        return copy;
    }
}
