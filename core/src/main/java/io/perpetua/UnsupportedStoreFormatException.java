package io.perpetua;

/**
 * The store was written by a newer version of Perpetua, in a format this version cannot read:
 * the kernel's record format, or a backend's own format on disk. The store was not opened, and
 * nothing it holds was changed (a storage engine may still have run its own recovery, as
 * RocksDB does at every open): open it with a version of Perpetua that reads its format.
 */
public class UnsupportedStoreFormatException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final String format;
    private final int storeVersion;
    private final int supportedVersion;

    /**
     * @param location the store (or the file of it) that holds the newer format, never null
     * @param format which format, for example {@code "record format"}, never null
     * @param storeVersion the version of that format the store was written in
     * @param supportedVersion the newest version of it this version of Perpetua reads
     */
    public UnsupportedStoreFormatException(String location, String format, int storeVersion, int supportedVersion) {
        super("the store at " + location + " was written in " + format + " " + storeVersion
                + " by a newer version of Perpetua; this version reads " + format + " up to " + supportedVersion
                + ". The store was not opened and is unchanged", null);
        this.location = location;
        this.format = format;
        this.storeVersion = storeVersion;
        this.supportedVersion = supportedVersion;
    }

    /** @return the store (or the file of it) that holds the newer format, never null */
    public String location() {
        return location;
    }

    /** @return which format, for example {@code "record format"}, never null */
    public String format() {
        return format;
    }

    /** @return the version of the format the store was written in */
    public int storeVersion() {
        return storeVersion;
    }

    /** @return the newest version of the format this version of Perpetua reads */
    public int supportedVersion() {
        return supportedVersion;
    }
}
