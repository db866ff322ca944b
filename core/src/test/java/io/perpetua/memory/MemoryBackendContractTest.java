package io.perpetua.memory;

import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendContract;
import io.perpetua.spi.Backends;

import java.net.URI;
import java.nio.file.Path;

/**
 * Runs the backend contract against {@code memory:NAME}: each temporary directory the suite
 * hands out names one named memory store, which keeps its contents across close and reopen
 * within this JVM.
 */
class MemoryBackendContractTest extends BackendContract {

    @Override
    protected Backend open(Path dir) {
        // Through the URI and ServiceLoader, as an application opens it.
        return Backends.open(URI.create("memory:" + dir.toUri().getRawPath()));
    }

    @Override
    protected Backend openFailingAfter(Path dir, int operations) {
        MemoryBackend backend = (MemoryBackend) open(dir);
        backend.failNextCommitAfter(operations);
        return backend;
    }
}
