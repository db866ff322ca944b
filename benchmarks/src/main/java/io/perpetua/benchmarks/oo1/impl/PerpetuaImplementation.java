package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.PersistentStore;
import io.perpetua.benchmarks.oo1.Oo1Data;
import io.perpetua.benchmarks.oo1.model.Database;

import java.nio.file.Path;

/**
 * The Perpetua rows: the same domain classes as the transient row, rewritten by the agent, in a
 * store opened by URI ({@code rocksdb:} or {@code file:}) with its default options (durable
 * commits). Only the public API: the database is bound to the name {@value #ROOT}; an insert
 * runs in a transaction whose commit is {@link #stabilize}.
 */
public final class PerpetuaImplementation extends ObjectGraphImplementation {

    /** The name the database root is bound to. */
    public static final String ROOT = "oo1";

    private final String scheme;
    private PersistentStore store;

    /** @param scheme the store's URI scheme: {@code rocksdb} or {@code file} */
    public PerpetuaImplementation(String scheme) {
        this.scheme = scheme;
    }

    @Override
    public String version() {
        String v = PersistentStore.class.getPackage().getImplementationVersion();
        if (v == null) {
            v = System.getProperty("perpetua.version", "?");
        }
        if (v.equals("?")) {
            v = Versions.of("io.perpetua", "perpetua-core");
        }
        return "Perpetua " + v + " on " + scheme + ":";
    }

    @Override
    public void create(Path directory) {
        store = PersistentStore.open(scheme + ":" + directory.toAbsolutePath());
    }

    @Override
    public void makeDatabasePersistent(Oo1Data data) {
        database = build(data);
        store.beginTransaction();
        store.persist(database, ROOT);
    }

    @Override
    public void initiate(Path directory) {
        create(directory);
    }

    @Override
    public void fetchDatabase() {
        database = store.fetch(ROOT, Database.class);
    }

    @Override
    protected void beginChanges() {
        store.beginTransaction();
    }

    @Override
    public void stabilize() {
        if (store.inTransaction()) {
            store.commitTransaction();
        }
    }

    @Override
    public void terminate() {
        database = null;
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
