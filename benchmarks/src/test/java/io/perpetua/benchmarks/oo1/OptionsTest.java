package io.perpetua.benchmarks.oo1;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's options and exit status: a bad option is refused before anything runs, with a
 * message naming it (status 2); {@code --help} prints the usage on standard output (status 0);
 * a run with a FAILED row ends with status 1, one whose rows ran or were skipped with 0.
 */
class OptionsTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream systemOut;
    private PrintStream systemErr;

    @BeforeEach
    void capture() {
        systemOut = System.out;
        systemErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(systemOut);
        System.setErr(systemErr);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private void assertRefused(Path dir, String expected, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("--sizes", "tiny", "--rows", "transient", "--out",
                dir.resolve("results").toString()));
        args.addAll(List.of(options));
        out.reset();
        err.reset();
        assertEquals(2, Oo1.execute(args.toArray(String[]::new)), err() + out());
        assertTrue(err().startsWith("oo1: ") && err().contains(expected), err());
        assertFalse(Files.exists(dir.resolve("results")), "nothing runs, no results written");
    }

    @Test
    void badOptionsAreRefusedNamingTheOption(@TempDir Path dir) throws Exception {
        assertRefused(dir, "row jdbc-url needs the server's URL: --jdbc-url URL", "--rows", "jdbc-url");
        assertRefused(dir, "option --hot takes a number from 0 to", "--hot", "-5");
        assertRefused(dir, "option --hot takes a number from 0 to", "--hot", "-20");
        assertRefused(dir, "option --hot takes a whole number, not 'x'", "--hot", "x");
        assertRefused(dir, "option --seed takes a whole number, not 'abc'", "--seed", "abc");
        assertRefused(dir, "option --heap takes a heap size as -Xmx does (512m, 4g), not 'foo'", "--heap", "foo");
        assertRefused(dir, "option --heap", "--heap", "-1g");
        assertRefused(dir, "unknown option --bogus", "--bogus");
        assertRefused(dir, "unknown row 'foo'", "--rows", "foo");
        assertRefused(dir, "option --out needs a value", "--out");
    }

    @Test
    void helpPrintsTheUsageOnStandardOutputAndSucceeds() throws Exception {
        assertEquals(0, Oo1.execute(new String[] {"--sizes", "tiny", "--help"}));
        assertTrue(out().startsWith("usage: Oo1 "), out());
        assertTrue(out().contains("perpetua-rocksdb-preload") && out().contains("jdbc-url"), out());
        assertEquals("", err());
    }

    /** A Perpetua row whose agent jar is not a jar: its JVMs do not start, the row FAILS. */
    @Test
    void aFailedRowMakesTheExitStatusOneAndTheResultsAreWritten(@TempDir Path dir) throws Exception {
        Path notAJar = Files.writeString(dir.resolve("agent.jar"), "not a jar");
        Path results = dir.resolve("results");
        assertEquals(1, Oo1.execute(new String[] {"--sizes", "tiny", "--rows", "transient,perpetua-rocksdb",
                "--hot", "0", "--heap", "256m", "--agent", notAJar.toString(), "--out", results.toString()}),
                out() + err());
        assertTrue(err().contains("1 row wrong or failed: tiny perpetua-rocksdb failed"), err());
        String json = Files.readString(results.resolve("oo1-tiny.json"));
        assertTrue(json.contains("\"status\": \"failed\""), json);
    }

    /** Rows that cannot run here (no agent jar) are skipped, which is no failure. */
    @Test
    void skippedRowsLeaveTheExitStatusZero(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("results");
        assertEquals(0, Oo1.execute(new String[] {"--sizes", "tiny", "--rows", "transient,perpetua-file",
                "--hot", "0", "--heap", "256m", "--agent", dir.resolve("absent.jar").toString(),
                "--out", results.toString()}), out() + err());
        String json = Files.readString(results.resolve("oo1-tiny.json"));
        assertTrue(json.contains("\"status\": \"skipped\"") && json.contains("\"status\": \"ok\""), json);
        assertEquals("", err());
    }
}
