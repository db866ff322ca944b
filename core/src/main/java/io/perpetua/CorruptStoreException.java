package io.perpetua;

/**
 * The stored data is damaged or is not a Perpetua store: a checksum does not match, a record
 * cannot be decoded, a referenced object is missing. Nothing was changed by the failing call.
 */
public class CorruptStoreException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String location;

    /**
     * @param location where the damage is (a file and offset, an object id), never null
     * @param detail what is wrong, never null
     * @param cause the underlying failure, may be null
     */
    public CorruptStoreException(String location, String detail, Throwable cause) {
        super("corrupt store at " + location + ": " + detail, cause);
        this.location = location;
    }

    /** @return where the damage is (a file and offset, an object id), never null */
    public String location() {
        return location;
    }
}
