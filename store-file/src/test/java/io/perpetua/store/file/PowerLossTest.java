package io.perpetua.store.file;

import io.perpetua.PersistentStoreException;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static io.perpetua.store.file.Stores.bytes;
import static io.perpetua.store.file.Stores.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A power loss at every sync of a workload (commits across several segments, a checkpoint, a
 * compaction, a close), with the writes in flight reaching the disk in part and in any order:
 * every image opens, holds every commit acknowledged as durable, and holds each commit whole or
 * not at all. A killed process is {@code CrashTest}'s; this is the operating system dying too.
 */
class PowerLossTest {
    private static final int ROUNDS = 30;
    private static final int OBJECTS = 10;
    private static final String[] SURVIVORS = {"nothing", "everything", "header slots only",
            "all but the header slots", "random pages 1", "random pages 2", "random pages 3"};

    /** How far the workload got: commits acknowledged, and of them how many a sync covered. */
    private static final class Progress {
        int acknowledged;
        int durable;
    }

    @ParameterizedTest(name = "sync={0}")
    @ValueSource(booleans = {true, false})
    void everyImageOfAPowerLossOpensWithWholeCommitsAndLosesNoneThatWasDurable(boolean sync, @TempDir Path dir) {
        Options options = new Options(sync, 4096, 1L << 30, false, 0.5);
        int images = 0;
        for (int lossAt = 1; ; lossAt++) {
            Path live = dir.resolve("live" + lossAt);
            PowerLossFileIO io = new PowerLossFileIO(lossAt);
            Progress progress = new Progress();
            try {
                try (FileBackend b = FileBackend.open(live, options, io)) {
                    workload(b, sync, progress);
                }
            } catch (PersistentStoreException e) {
                if (!io.lost()) {
                    throw e;
                }
            }
            if (!io.lost()) {
                assertTrue(lossAt > 20, "the workload syncs more than a few times: " + lossAt);
                break;
            }
            for (int variant = 0; variant < SURVIVORS.length; variant++) {
                Path image = dir.resolve("image" + lossAt + "-" + variant);
                io.image(live, image, survivors(variant, lossAt));
                check(image, options, progress, "loss at sync " + lossAt + ", " + SURVIVORS[variant] + " reached the disk");
                images++;
            }
        }
        assertTrue(images > 100, "images checked: " + images);
    }

    private static PowerLossFileIO.Survivors survivors(int variant, int lossAt) {
        return switch (variant) {
            case 0 -> (position, index, page) -> false;
            case 1 -> (position, index, page) -> true;
            case 2 -> (position, index, page) -> position < Format.HEADER_SIZE;
            case 3 -> (position, index, page) -> position >= Format.HEADER_SIZE;
            default -> (position, index, page) ->
                    new SplittableRandom(lossAt * 1_000_003L + variant * 7_919L + index * 131L + page).nextBoolean();
        };
    }

    /**
     * Round r writes the counter (object {@code first}, "r") and one of the other objects, and
     * every fifth round deletes one, so that compaction has garbage to reclaim.
     */
    private static void workload(FileBackend b, boolean sync, Progress progress) {
        long first = b.allocateIds(OBJECTS + 1);
        for (int round = 0; round < ROUNDS; round++) {
            b.commit(commit(first, round));
            progress.acknowledged = round + 1;
            if (sync) {
                progress.durable = round + 1;
            }
            if (round == 9) {
                b.checkpoint();
                progress.durable = round + 1;
            }
            if (round == 19) {
                b.compact();
                progress.durable = round + 1;
            }
        }
    }

    private static WriteSet commit(long first, int round) {
        WriteSet w = new WriteSet().put(first, bytes(Integer.toString(round)));
        w.put(object(first, round), bytes(value(round)));
        if (round % 5 == 4) {
            w.delete(object(first, round + 3));
        }
        return w;
    }

    private static long object(long first, int round) {
        return first + 1 + round % OBJECTS;
    }

    private static String value(int round) {
        return "round " + round + " " + "p".repeat(100 + round * 37 % 400);
    }

    /** The store after the first {@code commits} rounds, object id to value. */
    private static Map<Long, String> model(long first, int commits) {
        Map<Long, String> m = new LinkedHashMap<>();
        for (int round = 0; round < commits; round++) {
            m.put(first, Integer.toString(round));
            m.put(object(first, round), value(round));
            if (round % 5 == 4) {
                m.remove(object(first, round + 3));
            }
        }
        return m;
    }

    private static void check(Path image, Options options, Progress progress, String what) {
        try (FileBackend b = FileBackend.open(image, options, FileIO.DEFAULT)) {
            long first = 1; // the first id a new store hands out
            String counter = string(b.read(first));
            int commits = counter == null ? 0 : Integer.parseInt(counter) + 1;
            assertTrue(commits >= progress.durable && commits <= progress.acknowledged + 1,
                    what + ": " + commits + " commits found, " + progress.durable + " durable, "
                            + progress.acknowledged + " acknowledged");
            Map<Long, String> expected = model(first, commits);
            for (long id = first; id <= first + OBJECTS; id++) {
                assertEquals(expected.get(id), string(b.read(id)), what + ": object " + id);
            }
            assertEquals(expected.size(), b.statistics().objects(), what + ": objects stored");
            b.commit(new WriteSet().put(first, bytes("after")));
        } catch (PersistentStoreException e) {
            fail(what + ": " + e, e);
        }
    }
}
