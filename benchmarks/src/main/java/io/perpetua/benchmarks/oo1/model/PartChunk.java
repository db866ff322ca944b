package io.perpetua.benchmarks.oo1.model;

/**
 * {@value Database#CHUNK_SIZE} consecutive parts of the index. The index is chunked so that an
 * insert changes one small chunk rather than an array of every part; under Perpetua each chunk
 * is its own object, faulted in the first time a lookup reaches it.
 */
public class PartChunk {

    /** Parts with ids {@code first .. first + CHUNK_SIZE - 1}; null where not yet inserted. */
    public final Part[] parts = new Part[Database.CHUNK_SIZE];
}
