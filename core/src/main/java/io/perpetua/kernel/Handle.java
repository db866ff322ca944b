package io.perpetua.kernel;

import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.Persistent;

import java.lang.ref.ReferenceQueue;

/**
 * The kernel's handle on one persistent object. For a rewritten object the object holds it in
 * {@code $perpetua$handle}; for a container (an array or a JDK collection), which cannot hold
 * anything extra, the kernel finds it by identity in the {@link ObjectTable}.
 */
final class Handle extends ObjectHandle {
    final Kernel kernel;
    /** True for arrays and JDK collections: found by identity, compared with a snapshot at commit. */
    final boolean container;
    /**
     * For containers: the referent's identity hash, their key in the table. 0 for rewritten
     * objects, which are found by id: asking for an identity hash makes the JVM install one
     * in the object's header, a call into the runtime for every hollow shell made.
     */
    final int identityHash;
    /** The {@link #snapshot} of a committed array, whose committed state is its {@link #shallowCopy}. */
    static final byte[] ARRAY_SNAPSHOT = new byte[0];

    /**
     * For containers: the body as last read or committed, to find changes made in place;
     * null while the container is new (never committed). For arrays, {@link #ARRAY_SNAPSHOT}:
     * their shallow copy already tells a change and restores the committed contents, and a
     * byte copy of each array besides cost a third of the memory of a resident OO1 part.
     */
    byte[] snapshot;
    /** For containers: the descriptor the container was read or last written with. */
    ClassDescriptor descriptor;
    /**
     * For arrays: a shallow copy of the contents as last read or committed. Arrays cannot note
     * their own changes, so a commit compares each resident array with this copy (a tight loop,
     * no encoding) and encodes only those that differ. The copy references only what the array
     * itself references, so it keeps nothing alive.
     */
    Object shallowCopy;
    /**
     * For containers: true while the container is embedded in the record of the one object
     * that refers to it ({@link #ownerId}) rather than stored as a record of its own. A second
     * referrer promotes it to a record of its own.
     */
    boolean embedded;
    /** For embedded containers: the id of the object whose record holds it. */
    long ownerId;
    /** For containers: the index in the object table's dense list of containers, -1 when not in the table. */
    int slot = -1;

    Handle(Kernel kernel, Object referent, long id, boolean container, ReferenceQueue<Object> queue) {
        super(referent, id, queue);
        this.kernel = kernel;
        this.container = container;
        this.identityHash = container ? System.identityHashCode(referent) : 0;
    }

    @Override
    protected void load(Persistent object) {
        kernel.load(this, object);
    }

    @Override
    protected void beforeWrite(Persistent object) {
        kernel.beforeWrite(this, object);
    }
}
