package io.perpetua.runtime;

/**
 * The states of a persistent-capable object, as stored in its {@code $perpetua$state} field.
 * The values are chosen so that the two checks on the hot path are one comparison each: a read
 * needs the slow path only for {@link #HOLLOW}, a write for any negative state.
 */
public final class ObjectState {
    /** Not persistent: made by a constructor and not yet reached from a root. The JVM default. */
    public static final byte TRANSIENT = 0;
    /** Persistent with an id, not yet written: it will be written by the next commit. */
    public static final byte NEW = 1;
    /** Resident and changed since the last commit: it will be written by the next commit. */
    public static final byte DIRTY = 2;
    /** Resident and unchanged since it was read or last committed. */
    public static final byte CLEAN = -1;
    /** An empty shell: its id and class are known, its fields are not loaded yet. */
    public static final byte HOLLOW = -2;
    /**
     * New, and being written by the commit in progress: clean once it succeeds, new again if it
     * fails. Negative, so that a write from another thread takes the slow path, which waits for
     * the commit and then marks the object dirty: the write is saved by the next commit, not
     * lost under the clean mark of the commit that read the field before it.
     */
    public static final byte WRITING_NEW = -3;
    /** Dirty, and being written by the commit in progress: as {@link #WRITING_NEW}, dirty again if it fails. */
    public static final byte WRITING_DIRTY = -4;

    private ObjectState() {
    }

    /**
     * @param state one of this class's constants
     * @return the state's name, for messages
     */
    public static String name(byte state) {
        return switch (state) {
            case TRANSIENT -> "transient";
            case NEW -> "new";
            case DIRTY -> "dirty";
            case CLEAN -> "clean";
            case HOLLOW -> "hollow";
            case WRITING_NEW, WRITING_DIRTY -> "being written";
            default -> "invalid(" + state + ")";
        };
    }
}
