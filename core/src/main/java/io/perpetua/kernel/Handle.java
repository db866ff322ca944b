package io.perpetua.kernel;

import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.Persistent;

import java.lang.ref.ReferenceQueue;

/**
 * The kernel's handle on one persistent object: a weak reference to it, with its id. A
 * rewritten object holds its handle in {@code $perpetua$handle}; a container (an array or a JDK
 * collection), which cannot hold anything extra, has a {@link ContainerHandle}, found by
 * identity in the {@link ObjectTable}. Kept small: every resident object has one.
 */
class Handle extends ObjectHandle {
    final Kernel kernel;
    /**
     * For a rewritten object: how many {@link Satellites satellites} its record holds (they are
     * numbered 1 to this), known once it was filled or written. It fits in the padding of the
     * object, so it costs no memory.
     */
    int satellites;
    /** The array fields not decoded yet, or null: see {@link LazyFields}. Guarded by the kernel's lock. */
    LazyFields lazy;

    Handle(Kernel kernel, Object referent, long id, ReferenceQueue<Object> queue) {
        super(referent, id, queue);
        this.kernel = kernel;
    }

    @Override
    protected void load(Persistent object) {
        kernel.load(this, object);
    }

    @Override
    protected void beforeWrite(Persistent object) {
        kernel.beforeWrite(this, object);
    }

    @Override
    protected void materialize(Persistent object, Object marker) {
        kernel.materialize(this, object, marker);
    }
}
