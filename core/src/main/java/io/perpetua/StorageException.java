package io.perpetua;

/**
 * The backend failed to read or write (an I/O error, a full disk, a native error). When the
 * failure happens during a commit, the commit did not happen. A backend that cannot go on
 * after the failure (it could not undo a partial write) closes itself, and says so:
 * {@link #storeClosed()}; the store is then closed too, and must be opened again.
 */
public class StorageException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;

    private final boolean storeClosed;

    /**
     * A failure the backend recovered from: the store stays open.
     *
     * @param message what the backend was doing, never null
     * @param cause the underlying failure, may be null
     */
    public StorageException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /**
     * @param message what the backend was doing, never null
     * @param cause the underlying failure, may be null
     * @param storeClosed whether the backend closed itself because of it
     */
    public StorageException(String message, Throwable cause, boolean storeClosed) {
        super(message, cause);
        this.storeClosed = storeClosed;
    }

    /**
     * The exception of a backend that closes itself after a failure it cannot undo.
     *
     * @param message what the backend was doing, never null
     * @param cause the underlying failure, may be null
     * @return an exception whose {@link #storeClosed()} is true, whose message says to reopen
     */
    public static StorageException closedAfter(String message, Throwable cause) {
        return new StorageException(message + "; the store closed itself, reopen it to recover", cause, true);
    }

    /**
     * @return true if the backend closed itself after this failure: the store is closed, and
     *         holds what its last successful commit wrote, or, if the message says so, the
     *         failed commit too (it was written, and what failed came after); false if it stays
     *         open (a failed commit may then be retried)
     */
    public boolean storeClosed() {
        return storeClosed;
    }
}
