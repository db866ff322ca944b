package io.perpetua.memory;

import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendProvider;
import io.perpetua.spi.Backends;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * Serves the {@code memory:} scheme: {@code memory:} opens a fresh anonymous store,
 * {@code memory:NAME} the named store {@code NAME} of this JVM (see {@link MemoryBackend}).
 * The scheme takes no options. Stateless and thread-safe; found through
 * {@link java.util.ServiceLoader}.
 */
public final class MemoryBackendProvider implements BackendProvider {

    /** The scheme this provider serves. */
    public static final String SCHEME = "memory";

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public MemoryBackendProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if any option is given
     * @throws io.perpetua.StoreLockedException if the named store is already open
     */
    @Override
    public Backend open(URI uri, String location, Map<String, String> options) {
        Backends.rejectUnknownOptions(SCHEME, new HashMap<>(options));
        return MemoryBackend.open(location);
    }
}
