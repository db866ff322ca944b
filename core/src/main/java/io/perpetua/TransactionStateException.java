package io.perpetua;

/**
 * An operation needs a transaction and none is active, or {@code beginTransaction} (or
 * {@code collectGarbage}) was called while one already is. Nothing was changed.
 */
public class TransactionStateException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;

    /** @param message what the caller did and what it needs, never null */
    public TransactionStateException(String message) {
        super(message);
    }
}
