package io.perpetua.spi;

import io.perpetua.PersistentStoreException;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Finds the {@link BackendProvider} for a URI scheme and opens a backend with it.
 * Stateless and thread-safe.
 */
public final class Backends {
    /** The scheme a bare path means: the embedded default backend. */
    public static final String DEFAULT_SCHEME = "rocksdb";

    private Backends() {
    }

    /**
     * Opens the backend a URI names. The URI's scheme picks the provider; its scheme-specific
     * part (without the query) is the location; its query, {@code key=value} pairs joined by
     * {@code &}, gives the options.
     *
     * @param uri for example {@code rocksdb:/data/shop}, {@code file:/data/shop?sync=false},
     *            {@code memory:}, not null
     * @return an open backend the caller owns
     * @throws PersistentStoreException if no provider serves the scheme
     * @throws IllegalArgumentException if the URI has a fragment ({@code #...}): it would be
     *         dropped and another directory opened; a {@code #} in a directory name is written
     *         {@code %23}
     */
    public static Backend open(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null) {
            throw new PersistentStoreException("a store URI needs a scheme (rocksdb:, file:, memory:): " + uri);
        }
        if (uri.getRawFragment() != null) {
            // file:/data/shop#1 would open /data/shop: another store than the one meant
            throw new IllegalArgumentException("a store URI has no fragment (#" + uri.getRawFragment() + "): a '#' in"
                    + " a directory name is written %23 (" + uri.toString().replace("#", "%23") + "), or open the"
                    + " store by its Path: " + uri);
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        String ssp = uri.getRawSchemeSpecificPart();
        String query = null;
        int q = ssp.indexOf('?');
        if (q >= 0) {
            query = ssp.substring(q + 1);
            ssp = ssp.substring(0, q);
        }
        String location = percentDecode(ssp);
        if (location.startsWith("//")) {
            // rocksdb:///data/x is the same as rocksdb:/data/x; rocksdb://host/x names a host,
            // which a store on this machine's disk cannot honour (it was opened as ./host/x)
            location = location.substring(2);
            if (!location.startsWith("/") && !scheme.equals("memory")) {
                throw new IllegalArgumentException("a store URI names a directory of this machine: " + scheme + ":/path or "
                        + scheme + ":///path, not a host (" + location.split("/", 2)[0] + "): " + uri);
            }
        }
        BackendProvider provider = provider(scheme);
        Map<String, String> options = parseOptions(query);
        // An interrupted thread (a cancelled task) still opens a store: the backends' files
        // would close on the interrupt. It is set again after.
        boolean interrupted = Thread.interrupted();
        try {
            return provider.open(uri, location, options);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Opens the backend a store URI names, or, for a string with no scheme, the embedded default
     * backend in that directory; see {@link io.perpetua.PersistentStore#open(String)}.
     *
     * @param uriOrPath a store URI or a directory path, not null
     * @return an open backend the caller owns
     */
    public static Backend open(String uriOrPath) {
        int colon = uriOrPath.indexOf(':');
        // "C:\x" on Windows and plain paths have no scheme of two or more letters
        if (colon < 2 || !uriOrPath.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            return open(Path.of(uriOrPath));
        }
        // "memory:" alone is not a valid java.net.URI; "memory:?" (no location, no options) is
        return open(URI.create(colon == uriOrPath.length() - 1 ? uriOrPath + "?" : uriOrPath));
    }

    /**
     * Opens the embedded default backend in a directory.
     *
     * @param directory the store's directory; created if missing
     * @return the open backend, owned by the caller
     * @throws PersistentStoreException if the default backend's module is not on the class path
     * @throws IllegalArgumentException if the path is relative and its first name looks like a
     *         store URI's scheme ({@code file:/data/shop} given as a {@code Path}): it would make
     *         a RocksDB store in a directory named {@code file:} under the working directory;
     *         {@code ./file:} says that is meant
     */
    public static Backend open(Path directory) {
        if (!directory.isAbsolute() && directory.getNameCount() > 0
                && directory.getName(0).toString().matches("(?i)(rocksdb|file|memory):.*")) {
            throw new IllegalArgumentException("\"" + directory + "\" is a store URI given as a Path, which would make a"
                    + " RocksDB store in a directory of that name under the working directory: open it with"
                    + " PersistentStore.open(String) or open(URI), or write ./" + directory + " if that directory is meant");
        }
        return open(URI.create(DEFAULT_SCHEME + ":" + directory.toAbsolutePath().toUri().getRawPath()));
    }

    /**
     * The location of a store in a directory, as a URI that {@link #open(String)} opens again
     * (the same directory, whatever characters its name holds).
     *
     * @param scheme the backend's scheme, for example {@code rocksdb}
     * @param directory the store's directory, absolute
     * @return for example {@code rocksdb:/data/shop%231} for the directory {@code /data/shop#1}
     */
    public static String location(String scheme, Path directory) {
        // toUri percent-encodes what a path may hold but a URI may not ('#', '%', '?', spaces,
        // non-ASCII), and ends a directory that exists with '/', which is left out here
        String path = directory.toAbsolutePath().toUri().getRawPath();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return scheme + ":" + path;
    }

    /**
     * Finds the provider of a scheme through the thread's context class loader, then through
     * this class's own. A provider listed there that is not this copy's {@link BackendProvider}
     * (another copy of perpetua-core, bundled by a plug-in) is skipped.
     *
     * @param scheme a URI scheme, lower case
     * @return the provider that serves it
     * @throws PersistentStoreException naming the module to add if there is none
     */
    public static BackendProvider provider(String scheme) {
        java.util.List<String> skipped = new java.util.ArrayList<>();
        for (ClassLoader loader : new ClassLoader[] {Thread.currentThread().getContextClassLoader(),
                Backends.class.getClassLoader()}) {
            if (loader == null) {
                continue;
            }
            Iterator<BackendProvider> providers = ServiceLoader.load(BackendProvider.class, loader).iterator();
            // A provider the loader lists but cannot give as this copy's BackendProvider (one of another copy
            // of perpetua-core, which a plug-in bundles and the context loader sees) is skipped; the iterator
            // goes on past it, though the JDK does not promise it will: a few errors in a row end the loader.
            for (int errors = 0; errors < MAX_PROVIDER_ERRORS; ) {
                BackendProvider p;
                try {
                    if (!providers.hasNext()) {
                        break;
                    }
                    p = providers.next();
                } catch (ServiceConfigurationError e) {
                    errors++;
                    if (skipped.size() < MAX_PROVIDER_ERRORS) {
                        skipped.add(e.getMessage());
                    }
                    continue;
                }
                if (p.scheme().equals(scheme)) {
                    return p;
                }
            }
        }
        throw new PersistentStoreException("no Perpetua backend serves the scheme \"" + scheme + ":\""
                + hint(scheme) + (skipped.isEmpty() ? "" : "; providers skipped, not this copy of perpetua-core's"
                + " (two copies on the class path, or the thread's context class loader sees another): " + skipped));
    }

    /** Provider errors after which a loader's providers are given up (its iterator may not recover). */
    private static final int MAX_PROVIDER_ERRORS = 16;

    private static String hint(String scheme) {
        String provider = switch (scheme) {
            case "rocksdb" -> "io.perpetua.store.rocksdb.RocksDbBackendProvider";
            case "file" -> "io.perpetua.store.file.FileBackendProvider";
            default -> null;
        };
        if (provider == null) {
            return "; known schemes: memory, rocksdb, file";
        }
        try {
            Class.forName(provider, false, Backends.class.getClassLoader());
            // there, but not listed: a jar that bundles its dependencies kept one services file of several
            return "; " + provider + " is on the class path, but no META-INF/services/" + BackendProvider.class.getName()
                    + " lists it (a jar bundling the dependencies must merge those files: Maven Shade's"
                    + " ServicesResourceTransformer)";
        } catch (ClassNotFoundException | LinkageError e) {
            return "; add io.perpetua:perpetua-store-" + scheme + " to the class path";
        }
    }

    /** Decodes {@code %XX} escapes only: unlike form decoding, a {@code +} stays a plus (paths have them). */
    static String percentDecode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    static Map<String, String> parseOptions(String query) {
        Map<String, String> options = new LinkedHashMap<>();
        if (query == null || query.isEmpty()) {
            return options;
        }
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = percentDecode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "true" : percentDecode(pair.substring(eq + 1));
            if (options.put(key, value) != null) {
                throw new IllegalArgumentException("the store option " + key + " is given twice: " + query);
            }
        }
        return options;
    }

    /**
     * Reads a boolean option, removing it from the map.
     *
     * @param options the options left to read, as parsed from the URI's query; changed
     * @param key the option's name
     * @param defaultValue the value when the option is absent
     * @return the option's value
     * @throws IllegalArgumentException if the value is neither {@code true} nor {@code false}
     */
    public static boolean booleanOption(Map<String, String> options, String key, boolean defaultValue) {
        String v = options.remove(key);
        if (v == null) {
            return defaultValue;
        }
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("option " + key + " takes true or false, not \"" + v + "\"");
    }

    /**
     * Throws if any option is left that the provider did not take.
     *
     * @param scheme the provider's scheme, for the message
     * @param options the options left after the provider read its own
     * @param known the options the provider takes, for the message
     * @throws IllegalArgumentException naming the options left, and the known ones
     */
    public static void rejectUnknownOptions(String scheme, Map<String, String> options, String... known) {
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("unknown option(s) for " + scheme + ": " + options.keySet()
                    + (known.length == 0 ? "; it takes none" : "; it takes " + String.join(", ", known)));
        }
    }
}
