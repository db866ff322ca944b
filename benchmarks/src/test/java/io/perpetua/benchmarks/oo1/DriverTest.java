package io.perpetua.benchmarks.oo1;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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
        Path agent = agentJar();
        List<String> args = new ArrayList<>(List.of("--sizes", "tiny", "--hot", "2", "--heap", "512m",
                "--out", out.toString(),
                "--rows", "transient,rocksdb,perpetua-rocksdb,perpetua-rocksdb-preload,perpetua-file"));
        if (agent != null) {
            args.add("--agent");
            args.add(agent.toString());
        }
        Oo1.main(args.toArray(String[]::new));

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

    /** @return the agent jar built by the agent module, or null */
    private static Path agentJar() throws IOException {
        Path target = Path.of("..", "agent", "target");
        if (!Files.isDirectory(target)) {
            return null;
        }
        try (Stream<Path> s = Files.list(target)) {
            return s.filter(p -> p.getFileName().toString().matches("perpetua-agent-[^/]*\\.jar"))
                    .filter(p -> !p.getFileName().toString().contains("sources"))
                    .findFirst().map(Path::toAbsolutePath).orElse(null);
        }
    }
}
