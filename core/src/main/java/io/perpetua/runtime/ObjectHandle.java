package io.perpetua.runtime;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * The kernel's record of one persistent object: its id and the store it belongs to. An object
 * holds its handle strongly; the kernel's object table holds the object only weakly through
 * the handle, so that a clean object the program no longer uses can be collected.
 */
public abstract class ObjectHandle extends WeakReference<Object> {
    private final long id;

    /**
     * @param referent the persistent object
     * @param id its store-unique id, positive
     * @param queue where the handle is enqueued once the object is collected
     */
    protected ObjectHandle(Object referent, long id, ReferenceQueue<Object> queue) {
        super(referent, queue);
        this.id = id;
    }

    /** @return the object's store-unique id */
    public final long id() {
        return id;
    }

    /**
     * Fills a hollow object; does nothing if another thread filled it first.
     *
     * @param object this handle's object
     */
    protected abstract void load(Persistent object);

    /**
     * Makes the object resident (if hollow) and marks it dirty.
     *
     * @param object this handle's object
     */
    protected abstract void beforeWrite(Persistent object);

    /**
     * Decodes the array field whose lazy marker is {@code marker} into the object; does nothing
     * if that field was decoded already (by another thread, say).
     *
     * @param object this handle's object
     * @param marker the lazy marker the field's getter found
     */
    protected abstract void materialize(Persistent object, Object marker);

    /**
     * Fills the object if it is hollow, and decodes every array field a fill left undecoded
     * (holding its lazy marker), so that code reading its fields by reflection sees what it
     * holds. This default only fills it; the kernel overrides it.
     *
     * @param object this handle's object
     */
    protected void materializeAll(Persistent object) {
        if (object.$perpetua$state() == ObjectState.HOLLOW) {
            load(object);
        }
    }

    /**
     * Makes a copy of this handle's object transient: {@code Object.clone()} copied the
     * object's state and this handle into it, so the copy would pass for the original. Whatever
     * the copy still lacks is taken from the original first (all its fields if it was copied
     * hollow, else those of its array fields not decoded yet), so that it shows what the
     * original does; then its handle is cleared and its state set to
     * {@link ObjectState#TRANSIENT}. This default does only the last step; the kernel overrides
     * it.
     *
     * @param copy an object holding this handle that is not its object
     */
    protected void detachCopy(Persistent copy) {
        copy.$perpetua$handle(null);
        copy.$perpetua$state(ObjectState.TRANSIENT);
    }

    /**
     * Tells whether the store is writing the object's fields from its record right now, in the
     * calling thread: code the JDK part of the object calls back meanwhile (a
     * {@code LinkedHashMap}'s {@code removeEldestEntry}, as the stored entries are put) sees it
     * incomplete. This default says false; the kernel overrides it. Takes no lock.
     *
     * @param object this handle's object
     * @return true while the calling thread fills it
     */
    protected boolean filling(Persistent object) {
        return false;
    }
}
