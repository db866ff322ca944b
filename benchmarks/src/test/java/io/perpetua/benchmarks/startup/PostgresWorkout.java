package io.perpetua.benchmarks.startup;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Some work for PostgreSQL's JDBC driver against a real server (the URL, user and password in
 * {@code PERPETUA_OO1_PG_URL}, {@code _USER}, {@code _PASSWORD}, as {@code .ci/run} sets them):
 * a table of its own, loaded in batches, an aggregate and an array column, then dropped; and a
 * query of several types with its metadata (under the agent of session 21 this failed with
 * {@code NoSuchFieldError: $perpetua$state}: a super-class had failed to rewrite). Prints
 * the answers, which must be the same with the agent as without.
 */
public final class PostgresWorkout {
    private PostgresWorkout() {
    }

    public static void main(String[] args) throws SQLException {
        String table = "perpetua_workout_" + ProcessHandle.current().pid();
        try (Connection c = DriverManager.getConnection(System.getenv("PERPETUA_OO1_PG_URL"),
                System.getenv("PERPETUA_OO1_PG_USER"), System.getenv("PERPETUA_OO1_PG_PASSWORD"))) {
            Statement s = c.createStatement();
            s.execute("create table " + table + " (id int primary key, type varchar(10), x int, tags int[])");
            try {
                PreparedStatement insert = c.prepareStatement("insert into " + table + " values (?, ?, ?, ?)");
                for (int i = 1; i <= 2_000; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, "part-type" + i % 10);
                    insert.setInt(3, i * 7 % 1_000);
                    insert.setArray(4, c.createArrayOf("int4", new Integer[] {i % 3, i % 5}));
                    insert.addBatch();
                }
                insert.executeBatch();
                StringBuilder out = new StringBuilder();
                try (ResultSet r = s.executeQuery("select type, count(*), sum(x), max(tags[2]) from " + table
                        + " group by type order by type")) {
                    while (r.next()) {
                        out.append(r.getString(1)).append(' ').append(r.getLong(2)).append(' ')
                                .append(r.getLong(3)).append(' ').append(r.getInt(4)).append('\n');
                    }
                }
                try (ResultSet r = s.executeQuery("select tags from " + table + " where id = 1234")) {
                    r.next();
                    Integer[] tags = (Integer[]) r.getArray(1).getArray();
                    out.append(tags[0]).append(',').append(tags[1]).append('\n');
                }
                try (ResultSet r = s.executeQuery("select 1::int2, 'x'::text, '1 day'::interval,"
                        + " '{\"k\": 1}'::jsonb, 1.5::numeric")) {
                    java.sql.ResultSetMetaData m = r.getMetaData();
                    r.next();
                    for (int i = 1; i <= m.getColumnCount(); i++) {
                        out.append(m.getColumnTypeName(i)).append(' ').append(m.getColumnClassName(i)).append(' ')
                                .append(r.getObject(i)).append('\n');
                    }
                }
                System.out.print(out);
            } finally {
                s.execute("drop table " + table);
            }
        }
    }
}
