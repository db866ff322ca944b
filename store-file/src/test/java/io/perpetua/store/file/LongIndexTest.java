package io.perpetua.store.file;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The in-memory index against a {@code HashMap}: random puts, replacements and removals, with
 * {@link LongIndex#reserve} between them; a reserve makes room for that many new keys at once,
 * so that a commit's entries go in without the table growing after the commit is written.
 */
class LongIndexTest {

    @Test
    void randomOperationsMatchAMapAndAReserveMakesRoomBeforehand() {
        SplittableRandom random = new SplittableRandom(40);
        LongIndex index = LongIndex.withCapacity(16);
        Map<Long, long[]> model = new HashMap<>();
        for (int round = 0; round < 300; round++) {
            int batch = random.nextInt(1, 200);
            index.reserve(batch);
            int capacity = index.capacity();
            for (int i = 0; i < batch; i++) {
                long key = 1 + random.nextLong(5_000);
                long location = random.nextLong(1, Long.MAX_VALUE);
                int length = random.nextInt(1, 1 << 20);
                index.put(key, location, length);
                model.put(key, new long[] {location, length});
            }
            assertEquals(capacity, index.capacity(), "no growth inside a reserved batch (round " + round + ")");
            for (int i = random.nextInt(50); i > 0; i--) {
                long key = 1 + random.nextLong(5_000);
                assertEquals(model.remove(key) != null, index.remove(key), "remove " + key);
            }
            assertEquals(model.size(), index.size());
        }
        for (Map.Entry<Long, long[]> e : model.entrySet()) {
            int slot = index.find(e.getKey());
            assertEquals(e.getValue()[0], index.location(slot), "key " + e.getKey());
            assertEquals(e.getValue()[1], index.length(slot), "key " + e.getKey());
        }
    }
}
