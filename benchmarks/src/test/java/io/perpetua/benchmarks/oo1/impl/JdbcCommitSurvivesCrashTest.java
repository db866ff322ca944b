package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.benchmarks.oo1.Oo1Data;
import io.perpetua.benchmarks.oo1.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JDBC (H2) row's commit, the one its insert times, has written the inserted rows when it
 * returns: a JVM that loads, inserts 100 parts, commits as the benchmark does
 * ({@code stabilize}) and then dies ({@code Runtime.halt}) leaves them to the next JVM. With
 * H2's default write delay the commit wrote nothing and the parts were gone.
 */
class JdbcCommitSurvivesCrashTest {

    private static final int PARTS = 2_000;

    @Test
    void insertCommittedBeforeTheProcessDiesIsReadBackByANewJvm(@TempDir Path dir) throws Exception {
        assertEquals("loaded", run(dir, "load"));
        assertEquals("inserted", run(dir, "insert-and-halt"));
        assertEquals("found " + (PARTS + 1) + " to " + (PARTS + 100), run(dir, "check"));
    }

    private static String run(Path dir, String step) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), Child.class.getName(), dir.toString(), step));
        Path out = dir.resolveSibling(dir.getFileName() + "-" + step + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), step + " did not end");
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), step + ": " + lines);
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    /** One step in a JVM of its own, driving the row's implementation as RowRun does. */
    public static final class Child {
        public static void main(String[] a) throws Exception {
            Path dir = Path.of(a[0]);
            JdbcImplementation impl = new JdbcImplementation(null, null, null);
            switch (a[1]) {
                case "load" -> {
                    impl.create(dir);
                    impl.makeDatabasePersistent(Oo1Data.generate(PARTS, 1));
                    impl.stabilize();
                    impl.terminate();
                    System.out.println("loaded");
                }
                case "insert-and-halt" -> {
                    impl.initiate(dir);
                    impl.fetchDatabase();
                    impl.insert(Oo1Data.insertBatch(Oo1Data.operationRandom(1, Operation.INSERT), PARTS),
                            PARTS + 1);
                    impl.stabilize(); // the commit the insert times
                    System.out.println("inserted");
                    System.out.flush();
                    Runtime.getRuntime().halt(0);
                }
                default -> {
                    impl.initiate(dir);
                    for (int id = PARTS + 1; id <= PARTS + 100; id++) {
                        impl.lookup(new int[] {id}); // throws for a part that is not there
                    }
                    impl.terminate();
                    System.out.println("found " + (PARTS + 1) + " to " + (PARTS + 100));
                }
            }
        }
    }
}
