package io.perpetua.benchmarks.jmh.kernel;

/** {@value PartIndex#CHUNK} consecutive parts of the index: its own object, so an insert rewrites one chunk. */
public class Chunk {
    Part[] parts = new Part[PartIndex.CHUNK];
}
