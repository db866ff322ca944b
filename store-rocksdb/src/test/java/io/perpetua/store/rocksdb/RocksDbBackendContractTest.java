package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendContract;
import io.perpetua.spi.Backends;

import java.net.URI;
import java.nio.file.Path;

/** The core backend contract, run against the RocksDB backend opened as an application would. */
class RocksDbBackendContractTest extends BackendContract {

    @Override
    protected Backend open(Path dir) {
        // Through the URI and the ServiceLoader, as Backends.open does for a user.
        return Backends.open(URI.create("rocksdb:" + dir.toUri().getRawPath()));
    }

    @Override
    protected Backend openFailingAfter(Path dir, int operations) {
        RocksDbBackend backend = (RocksDbBackend) open(dir);
        backend.failNextCommitAfter(operations);
        return backend;
    }
}
