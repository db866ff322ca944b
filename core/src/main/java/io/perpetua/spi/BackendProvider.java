package io.perpetua.spi;

import java.net.URI;
import java.util.Map;

/**
 * Creates backends for one URI scheme. Providers are found with {@link java.util.ServiceLoader}
 * (a {@code META-INF/services/io.perpetua.spi.BackendProvider} entry in the backend's jar).
 * Implementations must be stateless and thread-safe, with a public no-argument constructor.
 */
public interface BackendProvider {

    /** @return the URI scheme this provider serves, e.g. {@code rocksdb}, in lower case */
    String scheme();

    /**
     * Opens (creating if needed) the store at a location.
     *
     * @param uri the whole URI, with this provider's scheme, for messages
     * @param location the scheme-specific part without the query, e.g. a directory path; not null
     * @param options the URI's query parameters (e.g. {@code sync=false}), not null; unknown
     *                keys must be rejected with {@link IllegalArgumentException}
     * @return an open backend that the caller owns and must close
     * @throws io.perpetua.StoreLockedException if another process has the store open
     * @throws io.perpetua.CorruptStoreException if the location holds something that is not a
     *         readable store
     */
    Backend open(URI uri, String location, Map<String, String> options);
}
