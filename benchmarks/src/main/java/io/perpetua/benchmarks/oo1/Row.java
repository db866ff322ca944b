package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.impl.EclipseStoreImplementation;
import io.perpetua.benchmarks.oo1.impl.JdbcImplementation;
import io.perpetua.benchmarks.oo1.impl.PerpetuaImplementation;
import io.perpetua.benchmarks.oo1.impl.RawRocksDb;
import io.perpetua.benchmarks.oo1.impl.TransientJava;

import java.util.Locale;

/** The systems of the comparison: one column of the tables each (spec: {@code oo1.md}). */
public enum Row {
    TRANSIENT("transient", "Transient Java"),
    PERPETUA_ROCKSDB("perpetua-rocksdb", "Perpetua+RocksDB"),
    /**
     * The same, with the whole database made resident when it is fetched
     * ({@code PersistentStore.preload}), as EclipseStore loads its whole graph when it starts.
     */
    PERPETUA_ROCKSDB_PRELOAD("perpetua-rocksdb-preload", "Perpetua+RocksDB, preloaded"),
    PERPETUA_FILE("perpetua-file", "Perpetua+file"),
    ROCKSDB("rocksdb", "raw RocksDB"),
    ECLIPSESTORE("eclipsestore", "EclipseStore"),
    JDBC("jdbc", "JDBC (H2)"),
    /** JDBC against the server named by {@code --jdbc-url}; only when one is given. */
    JDBC_URL("jdbc-url", "JDBC (server)");

    /** Name on the command line and in result files. */
    public final String id;
    /** Column heading. */
    public final String label;

    Row(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /** @return true for the rows that run on the agent-rewritten domain classes */
    public boolean needsAgent() {
        return this == PERPETUA_ROCKSDB || this == PERPETUA_ROCKSDB_PRELOAD || this == PERPETUA_FILE;
    }

    /**
     * @param jdbcUrl the server's URL for {@link #JDBC_URL}, else ignored
     * @param user the server's user, may be null
     * @param password the server's password, may be null
     * @return a new, unopened implementation of this row
     */
    public Implementation create(String jdbcUrl, String user, String password) {
        return switch (this) {
            case TRANSIENT -> new TransientJava();
            case PERPETUA_ROCKSDB -> new PerpetuaImplementation("rocksdb", false);
            case PERPETUA_ROCKSDB_PRELOAD -> new PerpetuaImplementation("rocksdb", true);
            case PERPETUA_FILE -> new PerpetuaImplementation("file", false);
            case ROCKSDB -> new RawRocksDb();
            case ECLIPSESTORE -> new EclipseStoreImplementation();
            case JDBC -> new JdbcImplementation(null, null, null);
            case JDBC_URL -> new JdbcImplementation(jdbcUrl, user, password);
        };
    }

    /**
     * @param id a row's {@link #id}
     * @return the row
     * @throws IllegalArgumentException for an unknown name
     */
    public static Row of(String id) {
        String s = id.trim().toLowerCase(Locale.ROOT);
        for (Row r : values()) {
            if (r.id.equals(s)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown row '" + id
                + "' (transient, perpetua-rocksdb, perpetua-rocksdb-preload, perpetua-file, rocksdb,"
                + " eclipsestore, jdbc, jdbc-url)");
    }
}
