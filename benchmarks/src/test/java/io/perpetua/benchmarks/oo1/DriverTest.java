package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.AgentJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver end to end on the tiny database: forks a JVM per row and phase (the Perpetua rows
 * with the agent jar built in {@code agent/target}, when there is one), cross-checks, and writes
 * the table, the JSON and the SVG.
 */
class DriverTest {

    @Test
    void tinyComparisonRunsForkedAndWritesTableJsonAndSvg(@TempDir Path out) throws Exception {
        Path agent = AgentJar.find();
        List<String> args = new ArrayList<>(List.of("--sizes", "tiny", "--hot", "2", "--heap", "512m",
                "--out", out.toString(),
                "--rows", "transient,rocksdb,perpetua-rocksdb,perpetua-rocksdb-preload,perpetua-file"));
        if (agent != null) {
            args.add("--agent");
            args.add(agent.toString());
        }
        assertEquals(0, Oo1.execute(args.toArray(String[]::new)), "exit status");

        String json = Files.readString(out.resolve("oo1-tiny.json"));
        assertEquals("ok", status(json, "transient"));
        assertEquals("ok", status(json, "rocksdb"));
        String expected = agent != null ? "ok" : "skipped";
        assertEquals(expected, status(json, "perpetua-rocksdb"), json);
        assertEquals(expected, status(json, "perpetua-rocksdb-preload"), json);
        assertEquals(expected, status(json, "perpetua-file"), json);
        String svg = Files.readString(out.resolve("oo1-tiny.svg"));
        assertTrue(svg.startsWith("<svg") && svg.contains("ratio to raw RocksDB") && svg.contains("<rect"), svg);
        String text = Files.readString(out.resolve("oo1-tiny.txt"));
        assertTrue(text.contains("traversal") && text.contains("Ratio to transient Java"), text);
    }

    private static String status(String json, String row) {
        Matcher m = Pattern.compile("\"row\": \"" + Pattern.quote(row) + "\",[^}]*?\"status\": \"([a-z]+)\"",
                Pattern.DOTALL).matcher(json);
        return m.find() ? m.group(1) : "(absent)";
    }
}
