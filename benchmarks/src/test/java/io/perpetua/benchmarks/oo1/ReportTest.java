package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.impl.PerpetuaImplementation;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the report shows figures: small ratios, a size on disk nobody could measure, row versions. */
class ReportTest {

    @Test
    void ratiosBelowOneTenthKeepTwoSignificantDigits() {
        assertEquals("0.0034", Report.ratio(0.00342));
        assertEquals("0.0040", Report.ratio(0.004));
        assertEquals("0.00012", Report.ratio(0.000123));
        assertEquals("0.034", Report.ratio(0.0342));
        assertEquals("0.59", Report.ratio(0.59));
        assertEquals("4.70", Report.ratio(4.7));
        assertEquals("23.5", Report.ratio(23.46));
        assertEquals("150", Report.ratio(150.2));
        assertEquals("-", Report.ratio((Double) null));
    }

    /** A JDBC server other than PostgreSQL: its size on disk is unknown (-1), not -0.001 kB. */
    @Test
    void anUnknownSizeOnDiskIsShownAsUnknown() {
        Properties load = new Properties();
        load.setProperty("status", "ok");
        load.setProperty("load.nanos", "5000000");
        load.setProperty("size.bytes", "-1");
        load.setProperty("heap.bytes", "1048576");
        load.setProperty("generate.nanos", "1000000");
        RowRun.Settings s = new RowRun.Settings(Row.JDBC_URL, Size.TINY, Oo1.DEFAULT_SEED, 0, "jdbc:other:x", null,
                null);
        String line = Report.progressLine(s, "load", load);
        assertTrue(line.contains("size unknown on disk"), line);
        assertFalse(line.contains("-0.0") || line.contains("-1"), line);

        RowResult r = new RowResult(Row.JDBC_URL);
        r.load = load;
        assertEquals(null, r.sizeKilobytes());
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("hotRuns", "0");
        String json = Report.json(Size.TINY, Oo1.DEFAULT_SEED, List.of(r), environment, List.of());
        assertTrue(json.contains("\"sizeBytes\": null"), json);
        String table = Report.tables(Size.TINY, List.of(r), environment);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("size on disk (kB)") && l.trim().endsWith("-")), table);
    }

    @Test
    void perpetuaRowsNameTheirBackendWithoutATrailingColon() {
        assertTrue(new PerpetuaImplementation("rocksdb", false).version().matches("Perpetua \\S+ on rocksdb"),
                new PerpetuaImplementation("rocksdb", false).version());
        assertTrue(new PerpetuaImplementation("rocksdb", true).version().matches("Perpetua \\S+ on rocksdb, preloaded"),
                new PerpetuaImplementation("rocksdb", true).version());
        assertTrue(new PerpetuaImplementation("file", false).version().matches("Perpetua \\S+ on file"),
                new PerpetuaImplementation("file", false).version());
    }
}
