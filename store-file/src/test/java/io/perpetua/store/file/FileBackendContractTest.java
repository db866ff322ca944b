package io.perpetua.store.file;

import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendContract;
import io.perpetua.spi.Backends;

import java.net.URI;
import java.nio.file.Path;

/** The core contract suite against the file store, opened through its provider. */
class FileBackendContractTest extends BackendContract {

    @Override
    protected Backend open(Path dir) {
        return Backends.open(URI.create("file:" + dir.toUri().getRawPath()));
    }

    @Override
    protected Backend openFailingAfter(Path dir, int operations) {
        return FileBackend.open(dir, Options.DEFAULT, new FailingFileIO(operations));
    }
}
