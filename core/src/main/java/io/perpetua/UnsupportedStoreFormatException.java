package io.perpetua;

/**
 * The store was written by a newer version of Perpetua, in a record format this version cannot
 * read. The store was not opened, and nothing in it was changed: open it with a version of
 * Perpetua that reads its format.
 */
public class UnsupportedStoreFormatException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final int storeFormat;
    private final int supportedFormat;

    /**
     * @param location the store's location, never null
     * @param storeFormat the record format the store was written in
     * @param supportedFormat the newest record format this version of Perpetua reads
     */
    public UnsupportedStoreFormatException(String location, int storeFormat, int supportedFormat) {
        super("the store at " + location + " was written in record format " + storeFormat
                + " by a newer version of Perpetua; this version reads formats up to " + supportedFormat
                + ". The store was not opened and is unchanged", null);
        this.location = location;
        this.storeFormat = storeFormat;
        this.supportedFormat = supportedFormat;
    }

    /** @return the store's location, never null */
    public String location() {
        return location;
    }

    /** @return the record format the store was written in */
    public int storeFormat() {
        return storeFormat;
    }

    /** @return the newest record format this version of Perpetua reads */
    public int supportedFormat() {
        return supportedFormat;
    }
}
