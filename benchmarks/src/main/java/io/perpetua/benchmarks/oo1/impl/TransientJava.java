package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.benchmarks.oo1.Oo1Data;

import java.nio.file.Path;

/**
 * The transient Java row: the plain objects in memory, nothing stored. The floor for warm times
 * (JSPIN's "Transient Java"). "Opening" it means building the database again.
 */
public final class TransientJava extends ObjectGraphImplementation {

    @Override
    public String version() {
        return "Java " + System.getProperty("java.version");
    }

    @Override
    public boolean stores() {
        return false;
    }

    @Override
    public void create(Path directory) {
    }

    @Override
    public void makeDatabasePersistent(Oo1Data data) {
        database = build(data);
    }

    @Override
    public void initiate(Path directory) {
        throw new UnsupportedOperationException("transient Java has no store to open");
    }

    @Override
    public void fetchDatabase() {
    }

    @Override
    public void stabilize() {
    }

    @Override
    public void terminate() {
        database = null;
    }

    @Override
    public long sizeOnDisk(Path directory) {
        return 0;
    }
}
