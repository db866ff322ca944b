package io.perpetua.store.file;

import io.perpetua.spi.InterruptedThreadContract;

import java.nio.file.Path;

class InterruptedThreadTest extends InterruptedThreadContract {
    @Override
    protected String store(Path dir, String name) {
        return "file:" + dir.resolve(name).toUri().getRawPath() + "?segmentSize=64k"; // commits begin segments
    }
}
