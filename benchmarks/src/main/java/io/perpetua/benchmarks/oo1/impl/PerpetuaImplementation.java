package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.PersistentStore;
import io.perpetua.benchmarks.oo1.Oo1Data;
import io.perpetua.benchmarks.oo1.model.Database;

import java.nio.file.Path;

/**
 * The Perpetua rows: the same domain classes as the transient row, rewritten by the agent, in a
 * store opened by URI ({@code rocksdb:} or {@code file:}) with its default options (durable
 * commits). Only the public API: the database is bound to the name {@value #ROOT}; an insert
 * runs in a transaction whose commit is {@link #stabilize}. Preloaded, fetching the database
 * also makes all of it resident ({@code PersistentStore.preload}); otherwise each object is read
 * when first touched.
 */
public final class PerpetuaImplementation extends ObjectGraphImplementation {

    /** The name the database root is bound to. */
    public static final String ROOT = "oo1";

    private final String scheme;
    private final boolean preload;
    private PersistentStore store;

    /**
     * @param scheme the store's URI scheme: {@code rocksdb} or {@code file}
     * @param preload whether fetching the database makes all of it resident
     */
    public PerpetuaImplementation(String scheme, boolean preload) {
        this.scheme = scheme;
        this.preload = preload;
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
        return "Perpetua " + v + " on " + scheme + (preload ? ", preloaded" : "");
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
        if (preload) {
            store.preload(ROOT);
        }
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
