package io.perpetua.benchmarks.jmh;

/**
 * The work one benchmark measures, implemented once (in {@code model}) and loaded twice: plain,
 * and rewritten by the agent's pipeline in a child class loader. This interface is loaded once,
 * by the parent, so the benchmark calls both the same way.
 */
public interface Workload {

    /** Sums one int field of each of {@code n} objects (reads from another class: the getter path). */
    long readFields();

    /** Writes one int field of each of {@code n} objects (the setter path). */
    void writeFields(int value);

    /** Writes each element of one {@code int[1024]} (the array write barrier's fast path: the array logged last). */
    void writeArray(int value);

    /**
     * Swaps the first two outgoing connections of each of 1,024 parts: two stores into each of
     * 1,024 different arrays (the barrier's other path: one array after another).
     */
    void writeArrays();

    /** OO1 traversal: 7 hops from a root part, 3,280 visits; returns a digest of the visited parts. */
    long traverse(int root);

    /**
     * @return every object the workload holds, so the benchmark can put rewritten ones into the
     *         state a resident committed object has
     */
    Object[] objects();
}
