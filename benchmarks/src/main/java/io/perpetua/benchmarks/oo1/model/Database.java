package io.perpetua.benchmarks.oo1.model;

import java.util.Arrays;

/**
 * The OO1 database: the index from part id to part. Parts are numbered 1..{@link #partCount()}
 * without gaps; the index is an array of {@link PartChunk}s of {@value #CHUNK_SIZE} parts.
 * Plain Java (see {@link Part}); not thread-safe.
 */
public class Database {

    /** log2 of {@link #CHUNK_SIZE}. */
    public static final int CHUNK_BITS = 10;
    /** Parts per chunk. */
    public static final int CHUNK_SIZE = 1 << CHUNK_BITS;

    private PartChunk[] chunks;
    private int partCount;

    /** @param capacity how many parts the index is sized for at first (it grows as needed) */
    public Database(int capacity) {
        chunks = new PartChunk[Math.max(1, (capacity + CHUNK_SIZE - 1) >>> CHUNK_BITS)];
    }

    /** @return the number of parts, which are numbered 1..partCount */
    public int partCount() {
        return partCount;
    }

    /**
     * @param id a part id
     * @return the part with that id
     * @throws IllegalArgumentException if there is no such part
     */
    public Part part(int id) {
        if (id < 1 || id > partCount) {
            throw new IllegalArgumentException("no part " + id + " (the database has 1.." + partCount + ")");
        }
        int i = id - 1;
        return chunks[i >>> CHUNK_BITS].parts[i & (CHUNK_SIZE - 1)];
    }

    /**
     * Adds the next part to the index.
     *
     * @param part a part whose id is {@code partCount() + 1}
     */
    public void add(Part part) {
        if (part.id != partCount + 1) {
            throw new IllegalArgumentException("expected part " + (partCount + 1) + ", got " + part.id);
        }
        int i = partCount;
        int c = i >>> CHUNK_BITS;
        if (c == chunks.length) {
            chunks = Arrays.copyOf(chunks, chunks.length * 2);
        }
        PartChunk chunk = chunks[c];
        if (chunk == null) {
            chunk = new PartChunk();
            chunks[c] = chunk;
        }
        chunk.parts[i & (CHUNK_SIZE - 1)] = part;
        partCount++;
    }
}
