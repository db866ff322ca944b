package io.perpetua;

/** The store (or backend) was used after it was closed, or after a fatal error closed it. */
public class StoreClosedException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;

    /** @param what the store that is closed, for the message, never null */
    public StoreClosedException(String what) {
        super(what + " is closed");
    }

    /**
     * @param what the store that is closed, never null
     * @param cause the fatal error that closed it, may be null
     */
    public StoreClosedException(String what, Throwable cause) {
        super(what + " is closed" + (cause == null ? "" : " after a fatal error: " + cause.getMessage()), cause);
    }
}
