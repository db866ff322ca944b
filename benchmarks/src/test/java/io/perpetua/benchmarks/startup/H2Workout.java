package io.perpetua.benchmarks.startup;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Some work for H2, in memory: a table of 20,000 rows loaded in batches, an aggregate, a sort and
 * a string aggregate. Prints the answers, which must be the same with the agent as without.
 */
public final class H2Workout {
    private H2Workout() {
    }

    public static void main(String[] args) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:workout")) {
            Statement s = c.createStatement();
            s.execute("create table part(id int primary key, type varchar(10), x int, y int)");
            PreparedStatement insert = c.prepareStatement("insert into part values(?, ?, ?, ?)");
            for (int i = 1; i <= 20_000; i++) {
                insert.setInt(1, i);
                insert.setString(2, "part-type" + i % 10);
                insert.setInt(3, i * 7 % 100_000);
                insert.setInt(4, i * 13 % 100_000);
                insert.addBatch();
                if (i % 1_000 == 0) {
                    insert.executeBatch();
                }
            }
            StringBuilder out = new StringBuilder();
            try (ResultSet r = s.executeQuery("select type, count(*), sum(x), max(y), avg(x + y) from part"
                    + " where mod(id, 3) = 1 group by type order by type")) {
                while (r.next()) {
                    out.append(r.getString(1)).append(' ').append(r.getLong(2)).append(' ').append(r.getLong(3))
                            .append(' ').append(r.getInt(4)).append(' ').append(r.getString(5)).append('\n');
                }
            }
            try (ResultSet r = s.executeQuery("select listagg(id, ',') within group (order by id desc)"
                    + " from (select id from part where x < 50 order by id limit 20)")) {
                r.next();
                out.append(r.getString(1)).append('\n');
            }
            System.out.print(out);
        }
    }
}
