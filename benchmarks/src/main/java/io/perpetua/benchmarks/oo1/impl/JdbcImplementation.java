package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.benchmarks.oo1.Implementation;
import io.perpetua.benchmarks.oo1.NullProcedure;
import io.perpetua.benchmarks.oo1.Oo1Data;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;

/**
 * JDBC: what most Java programs do. Two tables, {@code oo1_part} (primary key {@code id}) and
 * {@code oo1_connection} (indexed on {@code from_id} and on {@code to_id}); prepared statements;
 * one transaction per load and per insert run, ended by {@code commit}. By default an embedded
 * H2 database in the row's directory; given a JDBC URL (PostgreSQL, say), that server, whose
 * tables are dropped and made again by the load.
 *
 * <p>Durability of the embedded H2 database: opened with {@code WRITE_DELAY=0}, so that each
 * {@code commit} writes its changes to the database file before it returns (H2's default leaves
 * them to a background writer, up to 500 ms later, and a commit is lost if the process dies
 * first). That commit survives the process dying, not a power failure: H2 2.x has no setting
 * that makes a commit {@code fsync}; it syncs only on close and on {@code CHECKPOINT SYNC}.
 *
 * <p>A traversal asks for each part's attributes, then for its outgoing (or incoming) target
 * ids: two queries per visit, as a program navigating rows would.
 */
public final class JdbcImplementation implements Implementation {

    private static final int LOAD_BATCH = 1000;

    private final String url;
    private final String user;
    private final String password;
    private Connection connection;
    private PreparedStatement selectPart;
    private PreparedStatement selectTo;
    private PreparedStatement selectFrom;
    private PreparedStatement insertPart;
    private PreparedStatement insertConnection;

    /**
     * @param url a JDBC URL, or null for an embedded H2 database in the store's directory
     * @param user the user for {@code url}, may be null
     * @param password the password for {@code url}, may be null
     */
    public JdbcImplementation(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    @Override
    public String version() {
        if (connection != null) {
            try {
                DatabaseMetaData m = connection.getMetaData();
                return m.getDatabaseProductName() + " " + m.getDatabaseProductVersion() + " (JDBC "
                        + m.getDriverVersion() + ")";
            } catch (SQLException e) {
                return "?";
            }
        }
        return url == null ? "H2 " + Versions.of("com.h2database", "h2") : url;
    }

    /** The URL of the embedded H2 database in a directory: each commit written before it returns. */
    static String h2Url(Path directory) {
        return "jdbc:h2:file:" + directory.toAbsolutePath().resolve("oo1") + ";WRITE_DELAY=0";
    }

    private String urlFor(Path directory) {
        return url != null ? url : h2Url(directory);
    }

    @Override
    public void create(Path directory) throws SQLException {
        connect(directory);
        try (Statement s = connection.createStatement()) {
            s.execute("drop table if exists oo1_connection");
            s.execute("drop table if exists oo1_part");
            s.execute("create table oo1_part (id integer primary key, type varchar(10) not null,"
                    + " x integer not null, y integer not null, build date not null)");
            s.execute("create table oo1_connection (from_id integer not null, to_id integer not null,"
                    + " type varchar(10) not null, length integer not null)");
            s.execute("create index oo1_connection_from on oo1_connection (from_id)");
            s.execute("create index oo1_connection_to on oo1_connection (to_id)");
        }
        connection.commit();
        prepare();
    }

    private void connect(Path directory) throws SQLException {
        connection = DriverManager.getConnection(urlFor(directory), user, password);
        connection.setAutoCommit(false);
    }

    private void prepare() throws SQLException {
        selectPart = connection.prepareStatement("select x, y, type from oo1_part where id = ?");
        selectTo = connection.prepareStatement("select to_id from oo1_connection where from_id = ?");
        selectFrom = connection.prepareStatement("select from_id from oo1_connection where to_id = ?");
        insertPart = connection.prepareStatement(
                "insert into oo1_part (id, type, x, y, build) values (?, ?, ?, ?, ?)");
        insertConnection = connection.prepareStatement(
                "insert into oo1_connection (from_id, to_id, type, length) values (?, ?, ?, ?)");
    }

    @Override
    public void makeDatabasePersistent(Oo1Data data) throws SQLException {
        insertParts(data, 1, false);
    }

    private void insertParts(Oo1Data data, int firstId, boolean visit) throws SQLException {
        for (int i = 0; i < data.parts; i++) {
            insertPart.setInt(1, firstId + i);
            insertPart.setString(2, data.partType(i + 1));
            insertPart.setInt(3, data.x[i]);
            insertPart.setInt(4, data.y[i]);
            insertPart.setDate(5, Date.valueOf(data.build(i + 1)));
            insertPart.addBatch();
            for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
                int c = i * Oo1Data.FAN_OUT + k;
                insertConnection.setInt(1, firstId + i);
                insertConnection.setInt(2, data.to[c]);
                insertConnection.setString(3, Oo1Data.CONNECTION_TYPES[data.connectionType[c]]);
                insertConnection.setInt(4, data.length[c]);
                insertConnection.addBatch();
            }
            if (visit) {
                NullProcedure.call(data.x[i], data.y[i], data.partType(i + 1));
            }
            if ((i + 1) % LOAD_BATCH == 0 || i == data.parts - 1) {
                insertPart.executeBatch();
                insertConnection.executeBatch();
            }
        }
    }

    @Override
    public void initiate(Path directory) throws SQLException {
        connect(directory);
        prepare();
    }

    @Override
    public void fetchDatabase() {
    }

    @Override
    public void stabilize() throws SQLException {
        connection.commit();
    }

    @Override
    public void terminate() throws SQLException {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    @Override
    public long sizeOnDisk(Path directory) throws Exception {
        if (url == null) {
            return Implementation.super.sizeOnDisk(directory);
        }
        if (!url.startsWith("jdbc:postgresql:")) {
            return -1;
        }
        try (Connection c = DriverManager.getConnection(url, user, password);
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("select pg_total_relation_size('oo1_part')"
                     + " + pg_total_relation_size('oo1_connection')")) {
            r.next();
            return r.getLong(1);
        }
    }

    private void visit(int id) throws SQLException {
        selectPart.setInt(1, id);
        try (ResultSet r = selectPart.executeQuery()) {
            if (!r.next()) {
                throw new IllegalStateException("no part " + id);
            }
            NullProcedure.call(r.getInt(1), r.getInt(2), r.getString(3));
        }
    }

    @Override
    public void lookup(int[] ids) throws SQLException {
        for (int id : ids) {
            visit(id);
        }
    }

    @Override
    public void traverse(int id, int hops) throws SQLException {
        navigate(selectTo, id, hops);
    }

    @Override
    public void reverseTraverse(int id, int hops) throws SQLException {
        navigate(selectFrom, id, hops);
    }

    private void navigate(PreparedStatement next, int id, int hops) throws SQLException {
        visit(id);
        if (hops == 0) {
            return;
        }
        next.setInt(1, id);
        int[] ids;
        try (ResultSet r = next.executeQuery()) {
            ids = new int[4];
            int n = 0;
            while (r.next()) {
                if (n == ids.length) {
                    ids = Arrays.copyOf(ids, n * 2);
                }
                ids[n++] = r.getInt(1);
            }
            ids = Arrays.copyOf(ids, n);
        }
        for (int other : ids) {
            navigate(next, other, hops - 1);
        }
    }

    @Override
    public void insert(Oo1Data batch, int firstId) throws SQLException {
        insertParts(batch, firstId, true);
    }
}
