package io.perpetua.runtime;

/**
 * Implemented by every class the agent rewrites (see the package documentation for exactly
 * what a rewritten class carries). Application code never calls these methods; their names
 * contain {@code $} so that they cannot clash with the application's own.
 */
public interface Persistent {

    /** @return the object's state, one of {@link ObjectState}'s constants */
    byte $perpetua$state();

    /**
     * Sets the object's state; called by the kernel only.
     *
     * @param state one of {@link ObjectState}'s constants
     */
    void $perpetua$state(byte state);

    /** @return the kernel's handle for this object, or null while it is transient */
    ObjectHandle $perpetua$handle();

    /**
     * Sets the kernel's handle; called by the kernel only.
     *
     * @param handle the handle, or null when the object becomes transient again
     */
    void $perpetua$handle(ObjectHandle handle);

    /**
     * Writes the object's persistent fields, super-class fields first, each class's fields in
     * name order. Does no residency check: the kernel calls it on resident objects only.
     *
     * @param out receives the fields, not null
     */
    void $perpetua$write(RecordWriter out);

    /**
     * Reads the persistent fields in the order {@link #$perpetua$write} wrote them.
     *
     * @param in supplies the fields, not null
     */
    void $perpetua$read(RecordReader in);
}
