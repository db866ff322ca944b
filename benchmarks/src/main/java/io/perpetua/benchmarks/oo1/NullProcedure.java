package io.perpetua.benchmarks.oo1;

/**
 * OO1's null procedure, called with a part's {@code x}, {@code y} and {@code type} on every
 * visit. It consumes them into static accumulators, so the JIT cannot remove the work that
 * produced them, and the accumulators are also the run's answer: the harness compares them
 * across rows, so every row must have visited the same parts with the same values.
 *
 * <p>Single-threaded: operations run on one thread; {@link #reset()} before a run,
 * {@link #answer()} after it.
 */
public final class NullProcedure {

    private static long sum;
    private static long visits;
    private static long types;

    private NullProcedure() {
    }

    /**
     * The null procedure.
     *
     * @param x the part's x
     * @param y the part's y
     * @param type the part's type, not null
     */
    public static void call(int x, int y, String type) {
        sum += x + y;
        visits++;
        types += type.hashCode();
    }

    /** Clears the accumulators. */
    public static void reset() {
        sum = 0;
        visits = 0;
        types = 0;
    }

    /** @return what the calls since the last reset consumed */
    public static Answer answer() {
        return new Answer(sum, visits, types);
    }

    /**
     * What one run of an operation consumed: the sum of x + y, the number of visits, the sum of
     * the types' hash codes.
     */
    public record Answer(long sum, long visits, long types) {

        /** @return the compact form used in result files: {@code sum/visits/types} */
        @Override
        public String toString() {
            return sum + "/" + visits + "/" + types;
        }

        /**
         * @param s the form {@link #toString()} writes
         * @return the answer
         */
        public static Answer parse(String s) {
            String[] p = s.split("/");
            return new Answer(Long.parseLong(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2]));
        }
    }
}
