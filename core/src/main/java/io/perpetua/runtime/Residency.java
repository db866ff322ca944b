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
}
