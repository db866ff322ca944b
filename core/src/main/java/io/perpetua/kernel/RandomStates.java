package io.perpetua.kernel;

import java.util.Random;

/**
 * Puts a {@code java.util.Random} back to the state of another, for an abort, through its
 * public methods alone: its seed is a private field that no method reads, and {@code java.base}
 * is not open to reflection. It can be done because {@code Random}'s Javadoc fixes its
 * algorithms for every Java implementation: a 48-bit linear congruential generator
 * ({@code seed = seed * 0x5DEECE66D + 0xB}), {@code nextInt()} the top 32 bits of the next seed,
 * {@code setSeed(s)} the seed {@code s ^ 0x5DEECE66D}, and {@code nextGaussian()} the polar
 * method, which draws pairs of {@code nextDouble()}s (four steps of the generator per pair) until
 * one is accepted, returns one value and keeps the second for the next call.
 *
 * <p>So: three {@code nextInt()}s of the copy give its seed (the top 32 bits of the first step,
 * and the one of the 65,536 values of its low 16 bits that the next two outputs agree with); a
 * {@code nextGaussian()} then two more {@code nextInt()}s tell whether it kept a second Gaussian
 * value (the generator did not move for it) and which. The seed is set with {@code setSeed},
 * which also drops a kept value. A kept value is made again: the seed is set some steps earlier,
 * from which {@code nextGaussian()} keeps that value, then stepped on to the seed (the program
 * may have drawn other numbers after its Gaussian). Only for {@code Random} itself: a subclass
 * may draw otherwise. Stateless.
 */
final class RandomStates {
    private static final long MULTIPLIER = 0x5DEECE66DL;
    private static final long ADDEND = 0xBL;
    private static final long MASK = (1L << 48) - 1;
    /** The inverse of {@link #MULTIPLIER} modulo 2^48 (it is odd), to step the generator back. */
    private static final long INVERSE = inverse(MULTIPLIER);
    /**
     * How many steps of the generator before the seed a kept Gaussian value is looked for: the
     * pairs its {@code nextGaussian()} drew (each accepted with probability pi/4), and whatever
     * the program drew after it. A {@code Random} that drew more than this after keeping one is
     * not put back.
     */
    private static final int MAX_STEPS = 1_024;

    private RandomStates() {
    }

    /**
     * Gives {@code target} the state of {@code copy}: the same seed, and the same second
     * Gaussian value if {@code copy} kept one. Draws from {@code copy}, which is left in no
     * particular state.
     *
     * @return false, {@code target} unchanged, if either is not exactly a {@code Random}, or if
     *         {@code copy} kept a Gaussian value that no state within {@value #MAX_STEPS} steps
     *         before its seed gives
     */
    static boolean restore(Random target, Random copy) {
        if (target.getClass() != Random.class || copy.getClass() != Random.class) {
            return false;
        }
        int x1 = copy.nextInt();
        int x2 = copy.nextInt();
        int x3 = copy.nextInt();
        long seed = seedBefore(x1, x2, x3);
        long now = step(step(step(seed)));
        double kept = copy.nextGaussian();
        if (copy.nextInt() != output(step(now)) || copy.nextInt() != output(step(step(now)))) {
            target.setSeed(seed ^ MULTIPLIER); // it kept no Gaussian value: nextGaussian stepped
            return true;
        }
        long[] earlier = new long[MAX_STEPS + 1]; // earlier[i]: the seed i steps before
        earlier[0] = seed;
        for (int back = 1; back <= MAX_STEPS; back++) {
            earlier[back] = back(earlier[back - 1]);
            if (back < 4) {
                continue; // a pair takes four steps
            }
            Random trial = new Random(earlier[back] ^ MULTIPLIER);
            trial.nextGaussian();
            if (Double.doubleToRawLongBits(trial.nextGaussian()) != Double.doubleToRawLongBits(kept)) {
                continue;
            }
            int y1 = trial.nextInt();
            int y2 = trial.nextInt();
            for (int pairs = back / 4; pairs > 0; pairs--) { // which seed its nextGaussian ended on
                long end = earlier[back - 4 * pairs];
                if (y1 == output(step(end)) && y2 == output(step(step(end)))) {
                    target.setSeed(earlier[back] ^ MULTIPLIER);
                    target.nextGaussian(); // keeps the value
                    for (int i = back - 4 * pairs; i > 0; i--) {
                        target.nextInt(); // what the program drew after it: one step each
                    }
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @return the seed before three steps whose {@code nextInt()}s were these: the first's top 32
     *         bits are {@code x1}; its low 16 the value the next two agree with
     */
    private static long seedBefore(int x1, int x2, int x3) {
        long high = (x1 & 0xFFFF_FFFFL) << 16;
        for (long low = 0; low < 1 << 16; low++) {
            long s1 = high | low;
            long s2 = step(s1);
            if (output(s2) == x2 && output(step(s2)) == x3) {
                return back(s1);
            }
        }
        // three outputs of a 48-bit LCG always come from one seed: only a broken Random gets here
        throw new IllegalStateException("no java.util.Random seed gives these three outputs");
    }

    private static long step(long seed) {
        return (seed * MULTIPLIER + ADDEND) & MASK;
    }

    private static long back(long seed) {
        return ((seed - ADDEND) * INVERSE) & MASK;
    }

    /** @return what {@code nextInt()} returns on stepping to {@code seed} */
    private static int output(long seed) {
        return (int) (seed >>> 16);
    }

    /** Newton's iteration for an inverse modulo 2^64, each step doubling the correct low bits. */
    private static long inverse(long odd) {
        long x = odd; // correct to 3 bits: odd * odd = 1 modulo 8
        for (int i = 0; i < 5; i++) {
            x *= 2 - odd * x;
        }
        return x & MASK;
    }
}
