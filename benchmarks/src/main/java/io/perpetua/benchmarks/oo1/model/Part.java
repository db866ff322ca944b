package io.perpetua.benchmarks.oo1.model;

import java.time.LocalDate;
import java.util.Arrays;

/**
 * An OO1 part: plain Java, with no trace of persistence in its source. The transient row uses it
 * as it is; the Perpetua rows use the same class, rewritten by the agent at load time.
 *
 * <p>Fields are public, as in JSPIN's benchmark code (seed 004, Figure 1): the operations read
 * them directly. Not thread-safe.
 */
public class Part {

    /** 1..N, unique. */
    public final int id;
    /** One of {@code part-type0} ... {@code part-type9}. Never null. */
    public final String type;
    /** Uniform in [0, 99999]. */
    public final int x;
    /** Uniform in [0, 99999]. */
    public final int y;
    /** Uniform over a ten-year span. Never null. */
    public final LocalDate build;
    /** Exactly three outgoing connections, filled by the builder right after construction. */
    public final Connection[] to = new Connection[3];
    /** Incoming connections, in the order they were made; never null. */
    public Connection[] from;

    public Part(int id, String type, int x, int y, LocalDate build, int incoming) {
        this.id = id;
        this.type = type;
        this.x = x;
        this.y = y;
        this.build = build;
        this.from = new Connection[incoming];
    }

    /**
     * Appends an incoming connection, growing {@link #from} by copy (the insert path; the load
     * path sizes {@code from} exactly and fills it with {@link #setFrom}).
     */
    public void addFrom(Connection c) {
        Connection[] grown = Arrays.copyOf(from, from.length + 1);
        grown[grown.length - 1] = c;
        from = grown;
    }

    /** Sets slot {@code i} of a {@link #from} array sized at construction. */
    public void setFrom(int i, Connection c) {
        from[i] = c;
    }

    @Override
    public String toString() {
        return "Part " + id;
    }
}
