package io.perpetua;

/**
 * A store that had to be new and empty (the target of {@link PersistentStore#copyTo}) already
 * holds data; nothing was written to it.
 */
public class StoreNotEmptyException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final long records;
    private final int names;

    /**
     * @param location the store's location, never null
     * @param records how many records it holds
     * @param names how many names are bound in it
     */
    public StoreNotEmptyException(String location, long records, int names) {
        super("the store at " + location + " is not empty (" + records + " records, " + names
                + " names); copy into a new store, or delete this one first");
        this.location = location;
        this.records = records;
        this.names = names;
    }

    /** @return the store's location, never null */
    public String location() {
        return location;
    }

    /** @return how many records the store holds */
    public long records() {
        return records;
    }

    /** @return how many names are bound in the store */
    public int names() {
        return names;
    }
}
