package io.perpetua.kernel;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The id set against a {@code HashSet}, over ids close together and far apart, as it grows. */
class LongSetTest {
    @Test
    void holdsWhatWasAddedAndNothingElse() {
        SplittableRandom random = new SplittableRandom(3);
        LongSet set = new LongSet();
        Set<Long> model = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            long id = random.nextBoolean() ? 1 + random.nextLong(3_000) : Satellites.id(1 + random.nextLong(1L << 39), 1 + random.nextInt(8));
            assertEquals(model.add(id), set.add(id), "add " + id);
            long probe = 1 + random.nextLong(6_000);
            assertEquals(model.contains(probe), set.contains(probe), "contains " + probe);
        }
        for (long id : model) {
            assertTrue(set.contains(id), "contains " + id);
        }
    }
}
