package io.perpetua.spi;

import java.nio.file.Path;

/**
 * Runs the contract suite against a second backend that, unlike {@code memory:}, really goes
 * through files and a fresh load on every reopen: evidence that the suite's reopen and failure
 * checks work on disk as they will for the store modules.
 */
class RenamingFileBackendContractTest extends BackendContract {

    @Override
    protected Backend open(Path dir) {
        return RenamingFileBackend.open(dir);
    }

    @Override
    protected Backend openFailingAfter(Path dir, int operations) {
        return RenamingFileBackend.openFailingAfter(dir, operations);
    }
}
