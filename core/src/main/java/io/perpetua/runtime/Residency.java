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
     * to be written: fills it if hollow, and marks it dirty if its class stores transient fields
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
}
