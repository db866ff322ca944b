package io.perpetua.benchmarks.jmh.kernel;

import java.util.Arrays;

/** The OO1 database root: part id to part, in chunks of {@value #CHUNK}. */
public class PartIndex {
    static final int CHUNK = 1024;

    Chunk[] chunks = new Chunk[1];
    int count;

    void add(Part p) {
        int i = count;
        if (i / CHUNK == chunks.length) {
            chunks = Arrays.copyOf(chunks, chunks.length * 2);
        }
        Chunk c = chunks[i / CHUNK];
        if (c == null) {
            c = new Chunk();
            chunks[i / CHUNK] = c;
        }
        c.parts[i % CHUNK] = p;
        count = i + 1;
    }

    /** @param id 1..count */
    Part part(int id) {
        return chunks[(id - 1) / CHUNK].parts[(id - 1) % CHUNK];
    }
}
