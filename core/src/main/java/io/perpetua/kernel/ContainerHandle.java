package io.perpetua.kernel;

import java.lang.ref.ReferenceQueue;

/**
 * The handle of a persistent container (an array or a JDK collection): found by identity, and
 * compared at commit with what was last read or committed, since a container cannot note its
 * own changes (tracked collections can, and say so). These fields are kept out of
 * {@link Handle}, which every resident rewritten object has, to keep that one small.
 */
final class ContainerHandle extends Handle {
    /** The {@link #snapshot} of a committed array, whose committed state is its {@link #shallowCopy}. */
    static final byte[] ARRAY_SNAPSHOT = new byte[0];

    /** The container's identity hash: its key in the table. */
    final int identityHash;
    /**
     * The body as last read or committed, to find changes made in place; null while the
     * container is new (never committed). For arrays, {@link #ARRAY_SNAPSHOT}: their shallow
     * copy already tells a change and restores the committed contents, and a byte copy of each
     * array besides cost a third of the memory of a resident OO1 part.
     */
    byte[] snapshot;
    /** The descriptor the container was read or last written with. */
    ClassDescriptor descriptor;
    /**
     * For arrays: a shallow copy of the contents as last read or committed. Arrays cannot note
     * their own changes, so a commit compares each resident array with this copy (a tight loop,
     * no encoding) and encodes only those that differ. The copy references only what the array
     * itself references, so it keeps nothing alive.
     */
    Object shallowCopy;
    /**
     * True while the container is embedded in the record of the one object that refers to it
     * ({@link #ownerId}) rather than stored as a record of its own. A second referrer promotes
     * it to a record of its own.
     */
    boolean embedded;
    /** For an embedded container: the id of the object whose record holds it. */
    long ownerId;
    /** The index in the object table's dense list of containers, -1 when not in the table. */
    int slot = -1;

    ContainerHandle(Kernel kernel, Object container, long id, ReferenceQueue<Object> queue) {
        super(kernel, container, id, queue);
        this.identityHash = System.identityHashCode(container);
    }
}
