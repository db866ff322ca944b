package io.perpetua.benchmarks.jmh;

/**
 * What the kernel benchmarks do to persistent objects, implemented once in {@code kernel} (the
 * only code that touches their fields, so it is loaded rewritten with them) and called through
 * this interface, which the parent loader loads. Store calls (open, persist, commit) are made by
 * the benchmarks themselves through the public API. Not thread-safe: one model per benchmark
 * thread.
 */
public interface KernelModel {

    /**
     * Builds an OO1 database, transient: {@code parts} parts, 3 outgoing connections each with
     * OO1's locality rule, indexed by a root of chunks of 1,024 parts.
     *
     * @return the root, to be made persistent by the caller
     */
    Object build(int parts, long seed);

    /**
     * Takes a root fetched from a store and makes the index resident (the root and every chunk,
     * one record each); the parts stay hollow.
     *
     * @return the number of parts
     */
    int attach(Object root);

    /** @return part {@code id} (1..count), without touching it: hollow if it was never read */
    Object part(int id);

    /** Reads x, y and type of part {@code id}: one fault-in if it is hollow. @return a digest of them */
    long touch(int id);

    /** @return the chunk objects of the index, in order (resident after {@link #attach}) */
    Object[] chunks();

    /**
     * Chooses the targets of {@code n} new parts (OO1's locality rule, among the parts that exist
     * now) and makes them resident, so that {@link #insert} only creates, links and marks.
     *
     * @return the chosen target ids, 3 per new part, in order
     */
    int[] prepareInsert(int n, java.util.SplittableRandom random);

    /**
     * Adds the parts prepared by {@link #prepareInsert}: each new part with 3 new connections,
     * appended to its targets' incoming lists, and to the index.
     *
     * @return the id of the first new part
     */
    int insert();

    /** @return a new flat object (about 40 bytes of fields: 4 ints and longs and a 9-character string) */
    Object newItem(int id);

    /** Writes one int field of each object (each becomes dirty). */
    void touchItems(Object[] items, int value);
}
