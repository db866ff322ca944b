package io.perpetua.store.rocksdb;

import io.perpetua.PersistentStoreException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendProvider;
import io.perpetua.spi.Backends;

import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Opens RocksDB stores: the {@code rocksdb:} scheme, and the embedded default that
 * {@link io.perpetua.PersistentStore#open(Path)} uses for a bare path.
 *
 * <h2>Location</h2>
 * A directory, e.g. {@code rocksdb:/data/shop} (relative paths are resolved against the working
 * directory). A missing directory is created, with its parents, and a new empty store made in
 * it; an empty directory gets a new store too. A directory that holds anything else than a
 * Perpetua RocksDB store (other files, another RocksDB database, a store whose CURRENT or
 * MANIFEST file is damaged or missing) is refused with {@link io.perpetua.CorruptStoreException}:
 * a store is never created over foreign files, and a damaged store never opens as an empty one.
 * A store in a newer format of this backend is refused, unchanged, with
 * {@link io.perpetua.UnsupportedStoreFormatException}.
 * A store open in another process, or already open in this one, is refused with
 * {@link io.perpetua.StoreLockedException} (RocksDB's {@code LOCK} file).
 *
 * <h2>Options (URI query)</h2>
 * <dl>
 * <dt>{@code sync} ({@code true} or {@code false}, default {@code true})</dt>
 * <dd>Whether a commit is synced to disk ({@code fsync} of RocksDB's write-ahead log) before it
 * returns. With {@code true}, a commit that returned survives a crash of the process, of the
 * operating system and a power cut. With {@code false}, commits are much faster; a commit that
 * returned still survives a crash of the process (the log is in the operating system's hands),
 * but the last commits may be lost if the machine itself stops; they are lost whole, never in
 * part, and never out of order. Closing the store syncs it. An id reservation survives the
 * death of the process at once, and a crash of the machine with the first commit that uses its
 * ids, in both modes.</dd>
 * </dl>
 * Unknown options are rejected with {@link IllegalArgumentException}, e.g.
 * {@code rocksdb:/data/shop?sync=false}.
 *
 * <h2>Thread-safety</h2>
 * Stateless and thread-safe. The backends it opens are thread-safe (see {@link Backend}); the
 * caller owns each and must close it.
 */
public final class RocksDbBackendProvider implements BackendProvider {
    /** The URI scheme, {@code rocksdb}. */
    public static final String SCHEME = "rocksdb";

    /** Called by {@link java.util.ServiceLoader}. */
    public RocksDbBackendProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public Backend open(URI uri, String location, Map<String, String> options) {
        Map<String, String> remaining = new LinkedHashMap<>(options);
        boolean sync = Backends.booleanOption(remaining, "sync", true);
        Backends.rejectUnknownOptions(SCHEME, remaining, "sync");
        if (location.isBlank()) {
            throw new IllegalArgumentException("a rocksdb store needs a directory, e.g. rocksdb:/data/shop, not " + uri);
        }
        requireRocksDbJni();
        return RocksDbBackend.open(Path.of(location), sync, RocksDbTuning.DEFAULT);
    }

    /**
     * Refuses to go on without rocksdbjni, which a class path written by hand can leave out:
     * the first use of one of its classes would throw a {@code NoClassDefFoundError}, an error
     * no {@code catch (PersistentStoreException)} sees, naming no artifact.
     */
    private static void requireRocksDbJni() {
        try {
            Class.forName("org.rocksdb.RocksDB", false, RocksDbBackendProvider.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new PersistentStoreException("the rocksdb store needs RocksDB's Java library, which is not on the"
                    + " class path: add org.rocksdb:rocksdbjni (a dependency of io.perpetua:perpetua-store-rocksdb,"
                    + " which Maven and Gradle add by themselves) beside perpetua-store-rocksdb", e);
        }
    }
}
