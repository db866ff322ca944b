package io.perpetua.benchmarks.oo1;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver stopped while a phase runs does not leave the phase running: stopped by a signal
 * (SIGTERM, as a CI timeout or {@code kill} stops it) it stops the phase's JVM and deletes its
 * work directory with the stores before it exits; killed outright (SIGKILL, no code of its own
 * runs) its phase's JVM sees the pipe from it close and halts. The driver runs in a JVM of its
 * own, with a temporary directory of the test's, on the tiny database and the JDBC (H2) row,
 * whose traversal phase with 1,000 hot runs lasts seconds.
 */
class InterruptedRunTest {

    private static Process startDriver(Path tmp) throws IOException {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                Oo1.class.getName(), "--sizes", "tiny", "--rows", "jdbc", "--hot", "1000", "--heap", "256m",
                "--out", tmp.resolve("results").toString());
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("driver.log").toFile())
                .start();
    }

    /** @return the driver's phase JVM once it runs the traversal phase (whose log it has made) */
    private static ProcessHandle traversalPhase(Process driver, Path tmp) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            for (Path work : workDirectories(tmp)) {
                if (Files.exists(work.resolve("tiny-jdbc-traversal.log"))) {
                    Optional<ProcessHandle> phase = driver.children().findFirst();
                    if (phase.isPresent()) {
                        return phase.get();
                    }
                }
            }
            assertTrue(driver.isAlive(), () -> "the driver ended: " + log(tmp));
            Thread.sleep(20);
        }
        throw new AssertionError("no traversal phase within 2 minutes: " + log(tmp));
    }

    private static List<Path> workDirectories(Path tmp) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("perpetua-oo1-")).toList();
        }
    }

    private static String log(Path tmp) {
        try {
            return Files.readString(tmp.resolve("driver.log"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void sigtermStopsThePhaseAndDeletesTheWorkDirectory(@TempDir Path tmp) throws Exception {
        Process driver = startDriver(tmp);
        ProcessHandle phase = null;
        try {
            phase = traversalPhase(driver, tmp);
            assertEquals(1, workDirectories(tmp).size(), () -> "the run's work directory: " + log(tmp));
            driver.destroy(); // SIGTERM
            assertTrue(driver.waitFor(1, TimeUnit.MINUTES), "the driver did not stop");
            assertFalse(phase.isAlive(), () -> "the phase's JVM outlived the driver: " + log(tmp));
            assertEquals(List.of(), workDirectories(tmp), () -> "left behind: " + log(tmp));
        } finally {
            driver.destroyForcibly();
            if (phase != null) {
                phase.destroyForcibly();
            }
        }
    }

    @Test
    void sigkillOfTheDriverEndsThePhase(@TempDir Path tmp) throws Exception {
        Process driver = startDriver(tmp);
        ProcessHandle phase = null;
        try {
            phase = traversalPhase(driver, tmp);
            driver.destroyForcibly(); // SIGKILL: the driver runs no code of its own
            assertTrue(driver.waitFor(1, TimeUnit.MINUTES), "the driver did not stop");
            assertTrue(phase.onExit().toCompletableFuture().completeOnTimeout(null, 2, TimeUnit.SECONDS).get() != null
                    || !phase.isAlive(), () -> "the phase's JVM went on without its driver: " + log(tmp));
        } finally {
            driver.destroyForcibly();
            if (phase != null) {
                phase.destroyForcibly();
            }
        }
    }
}
