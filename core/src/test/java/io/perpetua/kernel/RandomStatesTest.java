package io.perpetua.kernel;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RandomStates}: a {@code Random} given the state of its stored copy (read back from its
 * Java serialization, as an abort reads it) draws what the original would, whatever either drew
 * before, Gaussian values kept or not.
 */
class RandomStatesTest {

    /** Draws from {@code r} as the operation numbered {@code op} (0 to 6) does. */
    private static void draw(Random r, int op) {
        switch (op) {
            case 0 -> r.nextInt();
            case 1 -> r.nextInt(1_000);
            case 2 -> r.nextLong();
            case 3 -> r.nextDouble();
            case 4 -> r.nextBoolean();
            case 5 -> r.nextFloat();
            default -> r.nextGaussian();
        }
    }

    /** Ten draws of every kind, Gaussian values among them: equal if the two are in one state. */
    private static void assertSameDraws(Random expected, Random actual, String history) {
        for (int op = 0; op < 7; op++) {
            for (int i = 0; i < 10; i++) {
                Random e = expected;
                switch (op) {
                    case 0 -> assertEquals(e.nextInt(), actual.nextInt(), history);
                    case 1 -> assertEquals(e.nextInt(1_000), actual.nextInt(1_000), history);
                    case 2 -> assertEquals(e.nextLong(), actual.nextLong(), history);
                    case 3 -> assertEquals(e.nextDouble(), actual.nextDouble(), history);
                    case 4 -> assertEquals(e.nextBoolean(), actual.nextBoolean(), history);
                    case 5 -> assertEquals(e.nextFloat(), actual.nextFloat(), history);
                    default -> assertEquals(e.nextGaussian(), actual.nextGaussian(), history);
                }
            }
        }
    }

    @Test
    void aRandomTakesTheStateOfItsCopyWhateverEitherDrewBefore() {
        SplittableRandom plan = new SplittableRandom(5);
        int kept = 0;
        for (int trial = 0; trial < 300; trial++) {
            long seed = plan.nextLong();
            Random original = new Random(seed);
            StringBuilder history = new StringBuilder("seed " + seed + ", draws");
            boolean keeps = false; // each nextGaussian draws a pair and keeps one, or uses the kept one
            for (int i = plan.nextInt(30); i > 0; i--) {
                int op = plan.nextInt(7);
                draw(original, op);
                keeps ^= op == 6;
                history.append(' ').append(op);
            }
            Random copy = (Random) JdkSerialized.read(JdkSerialized.write(original, "r", null), Random.class.getName(), null);
            Random target = new Random(plan.nextLong());
            for (int i = plan.nextInt(30); i > 0; i--) {
                draw(target, plan.nextInt(7)); // what an aborted transaction drew
            }
            assertTrue(RandomStates.restore(target, copy), history.toString());
            if (keeps) {
                kept++;
            }
            assertSameDraws(original, target, history.toString());
        }
        assertTrue(kept > 50, "copies that kept a Gaussian value: " + kept);
    }

    /**
     * One that kept a Gaussian value and then drew more than the search goes back is not put
     * back, and is left as it was, for the abort to say so; a subclass is never touched.
     */
    @Test
    void whatCannotBePutBackIsLeftAsItWas() {
        Random original = new Random(3);
        original.nextGaussian();
        for (int i = 0; i < 2_000; i++) {
            original.nextInt();
        }
        Random copy = (Random) JdkSerialized.read(JdkSerialized.write(original, "r", null), Random.class.getName(), null);
        Random target = new Random(8);
        assertFalse(RandomStates.restore(target, copy));
        assertSameDraws(new Random(8), target, "left as it was");

        Random subclass = new Random(8) {
        };
        assertFalse(RandomStates.restore(subclass, new Random(1)));
        assertSameDraws(new Random(8), subclass, "a subclass is left as it was");
    }
}
