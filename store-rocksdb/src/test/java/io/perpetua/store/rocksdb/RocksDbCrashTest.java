package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.CrashHarness;
import io.perpetua.spi.CrashWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crash safety with forked JVMs: a writer committing numbered transactions is killed with
 * SIGKILL at random moments; after each kill the store reopens with every acknowledged
 * transaction and none in part ({@link CrashHarness}, {@link CrashWriter#verify}).
 */
class RocksDbCrashTest {

    private static String uri(Path store, String query) {
        return "rocksdb:" + store.toUri().getRawPath() + query;
    }

    @Test
    void syncedCommitsSurviveTwentyFiveKills(@TempDir Path tmp) {
        Path store = tmp.resolve("store");
        CrashHarness.Report report = CrashHarness.builder(uri(store, ""))
                .kills(25)
                .seed(20261121)
                // rocksdbjni unpacks its native library into java.io.tmpdir, and a killed child
                // cannot delete its copy: keep the copies in the test's own directory.
                .jvmArgs("-Djava.io.tmpdir=" + tmp)
                .run();
        assertEquals(25, report.kills());
        assertTrue(report.acknowledged() >= 25, "every round acknowledged at least one transaction: " + report);
        assertFinalState(store, report);
    }

    @Test
    void killsDuringFlushesAndCompactionsLoseNothing(@TempDir Path tmp) {
        Path store = tmp.resolve("store");
        CrashHarness.Report report = CrashHarness.builder(uri(store, ""))
                .kills(20)
                .seed(7)
                .mainClass(RocksDbCrashWriter.class.getName())
                .childArgs("5")
                .jvmArgs("-Djava.io.tmpdir=" + tmp)
                .run();
        assertEquals(20, report.kills());
        assertFinalState(store, report);
    }

    @Test
    void unsyncedCommitsStillSurviveAProcessKill(@TempDir Path tmp) {
        // sync=false gives up durability against a machine crash only: the write-ahead log is
        // written to the operating system at every commit, so a killed process loses nothing.
        Path store = tmp.resolve("store");
        CrashHarness.Report report = CrashHarness.builder(uri(store, "?sync=false"))
                .kills(20)
                .seed(99)
                .jvmArgs("-Djava.io.tmpdir=" + tmp)
                .run();
        assertEquals(20, report.kills());
        assertFinalState(store, report);
    }

    private static void assertFinalState(Path store, CrashHarness.Report report) {
        try (Backend backend = Backends.open(URI.create(uri(store, "")))) {
            CrashWriter.State state = CrashWriter.verify(backend);
            assertEquals(report.lastTransaction(), state.last());
            // Each transaction adds a log record; the slots (4) and the newest scratch record
            // are the rest: the exact count survived every crash.
            assertEquals(state.last() + CrashWriter.SLOTS + 1, backend.statistics().objects());
            assertEquals(2, backend.statistics().names());
        }
    }
}
