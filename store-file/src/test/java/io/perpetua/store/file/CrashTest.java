package io.perpetua.store.file;

import io.perpetua.spi.CrashHarness;
import io.perpetua.spi.CrashWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGKILL tests with core's {@link CrashHarness}: a forked writer commits numbered transactions
 * and is killed at random, at least 20 times; after each kill every acknowledged transaction
 * must be there and none in part, and the store must take a new commit.
 */
class CrashTest {
    private static final int KILLS = 20;
    private static final int KILLS_PER_RUN = 5;

    /**
     * Runs the harness until {@link #KILLS} kills were verified, in runs of a few kills, each
     * starting by verifying the whole store. A run that fails only because the harness's reader
     * lost the child's output (the JDK closes a dead child's pipe while the harness's reader
     * thread reads it: "Stream closed") is repeated, at most a few times; any other failure
     * fails the test.
     */
    private static long run(String uri, long seed, UnaryOperator<CrashHarness.Builder> configure) {
        int verified = 0;
        int glitches = 0;
        long acknowledged = 0;
        for (long round = 0; verified < KILLS; round++) {
            CrashHarness.Builder builder = configure.apply(CrashHarness.builder(uri))
                    .kills(KILLS_PER_RUN).seed(seed + round);
            try {
                CrashHarness.Report report = builder.run();
                assertTrue(report.acknowledged() >= KILLS_PER_RUN, report.toString());
                verified += report.kills();
                acknowledged += report.acknowledged();
            } catch (AssertionError e) {
                if (!String.valueOf(e.getMessage()).contains("cannot read the child's output") || ++glitches > 8) {
                    throw e;
                }
                System.out.println("harness glitch, repeating the run: " + e.getMessage());
            }
        }
        System.out.println(uri + ": " + verified + " kills verified, " + acknowledged + " transactions acknowledged, "
                + glitches + " harness glitch(es)");
        return acknowledged;
    }

    @Test
    void killedWritersLoseNothingAcknowledged(@TempDir Path dir) {
        String uri = "file:" + dir.toUri().getRawPath();
        run(uri, 20_251_121, b -> b.maxPayload(512));
        try (FileBackend b = Stores.open(dir, "")) {
            assertTrue(CrashWriter.verify(b).last() >= KILLS);
        }
    }

    @Test
    void killsDuringCompactionLoseNothingAcknowledged(@TempDir Path dir) {
        // Tiny segments and a low garbage ratio: background compaction runs all the time, and the
        // child compacts on request every third transaction as well.
        String uri = "file:" + dir.toUri().getRawPath() + "?segmentSize=8k&garbageRatio=0.2&checkpointBytes=64k";
        run(uri, 7_000_007, b -> b.mainClass(CompactingCrashWriter.class.getName()).childArgs("3").maxPayload(1024));
        try (FileBackend b = Stores.open(dir, "")) {
            long last = CrashWriter.verify(b).last();
            assertTrue(last >= KILLS);
            // Compaction did its job across the kills: far fewer segments than the log would need.
            long logged = last * 7 * 600; // seven records of about 600 bytes per transaction
            assertTrue(Stores.segmentFiles(dir).size() * 8192L < logged / 2,
                    Stores.segmentFiles(dir).size() + " segments for " + last + " transactions");
        }
    }
}
