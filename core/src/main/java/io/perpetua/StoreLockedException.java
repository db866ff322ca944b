package io.perpetua;

/** The store is open in another process (or elsewhere in this one); it was not opened again. */
public class StoreLockedException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String location;

    /**
     * @param location the store's location, never null
     * @param cause the backend's own report, may be null
     */
    public StoreLockedException(String location, Throwable cause) {
        super("the store at " + location + " is locked by another process (or is already open in this one)", cause);
        this.location = location;
    }

    /** @return the store's location, never null */
    public String location() {
        return location;
    }
}
