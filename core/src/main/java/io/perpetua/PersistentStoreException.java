package io.perpetua;

/**
 * The root of Perpetua's unchecked exception hierarchy. Every failure Perpetua reports is an
 * instance of this class or, more usefully, of one of its specific subtypes, which carry the
 * data a caller needs (the name, the object id, the class, the path from a root).
 *
 * <p>Instances are immutable and safe to share between threads.
 */
public class PersistentStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, never null */
    public PersistentStoreException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, never null
     * @param cause the underlying failure, may be null
     */
    public PersistentStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
