package io.perpetua;

/**
 * The backend failed to read or write (an I/O error, a full disk, a native error). When the
 * failure happens during a commit, the commit did not happen.
 */
public class StorageException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what the backend was doing, never null
     * @param cause the underlying failure, may be null
     */
    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
