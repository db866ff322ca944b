package io.perpetua.store.rocksdb;

import io.perpetua.spi.InterruptedThreadContract;

import java.nio.file.Path;

class InterruptedThreadTest extends InterruptedThreadContract {
    @Override
    protected String store(Path dir, String name) {
        return dir.resolve(name).toString(); // a path: the embedded default, RocksDB
    }
}
