package io.perpetua.modelcheck;

import io.perpetua.PersistentStore;
import io.perpetua.StorageException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendProvider;
import io.perpetua.spi.Backends;
import io.perpetua.spi.ForwardingBackend;
import io.perpetua.spi.WriteSet;

import java.net.URI;
import java.util.Map;

/**
 * The scheme {@code flaky:}, for tests: {@code flaky:rocksdb:/data/x} is the store
 * {@code rocksdb:/data/x} on a backend that fails a read or a commit when {@link #FAULTS} says,
 * with a {@link StorageException} thrown before the real backend is asked, so that the failure
 * changes nothing stored. One switch for the whole JVM: a test that uses it runs alone.
 */
public final class FlakyBackendProvider implements BackendProvider {
    private static final String SCHEME = "flaky";

    /** Counts down the records read before the one that fails; 0 for none. Guarded by the class. */
    private static int readsLeft;
    private static boolean commitFails;

    /** Opens stores as {@code flaky:} + their URI, and makes them fail. */
    public static final RandomProgram.Faults FAULTS = new RandomProgram.Faults() {
        @Override
        public PersistentStore open(String uri) {
            return PersistentStore.open(SCHEME + ":" + uri);
        }

        @Override
        public void failRead(int n) {
            synchronized (FlakyBackendProvider.class) {
                readsLeft = n;
            }
        }

        @Override
        public void failCommit() {
            synchronized (FlakyBackendProvider.class) {
                commitFails = true;
            }
        }

        @Override
        public boolean clear() {
            synchronized (FlakyBackendProvider.class) {
                boolean pending = readsLeft > 0 || commitFails;
                readsLeft = 0;
                commitFails = false;
                return pending;
            }
        }
    };

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public Backend open(URI uri, String location, Map<String, String> options) {
        // the rest of the URI, query included, is the real store's
        return new Flaky(Backends.open(uri.getRawSchemeSpecificPart()));
    }

    private static synchronized void reading(int records) {
        if (readsLeft > 0) {
            readsLeft -= records;
            if (readsLeft <= 0) {
                readsLeft = 0;
                throw new StorageException("injected read failure", null);
            }
        }
    }

    private static synchronized void committing() {
        if (commitFails) {
            commitFails = false;
            throw new StorageException("injected commit failure", null);
        }
    }

    /** Hands every call to the real backend, failing where told. */
    private static final class Flaky extends ForwardingBackend {
        Flaky(Backend inner) {
            super(inner);
        }

        @Override
        public byte[] read(long id) {
            reading(1);
            return inner.read(id);
        }

        @Override
        public byte[][] readMany(long[] ids) {
            reading(ids.length);
            return inner.readMany(ids);
        }

        @Override
        public void commit(WriteSet writes) {
            committing();
            inner.commit(writes);
        }
    }
}
