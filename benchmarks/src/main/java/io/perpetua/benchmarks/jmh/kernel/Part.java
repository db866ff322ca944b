package io.perpetua.benchmarks.jmh.kernel;

/**
 * An OO1 part (see {@code design/oo1.md}): the object the fault-in and commit benchmarks
 * store. Loaded only rewritten (by {@code RewritingLoader}); plain Java source.
 */
public class Part {
    int id;
    String type;
    int x;
    int y;
    long build;
    Connection[] to = new Connection[3];
    Connection[] from = new Connection[0];

    Part(int id, String type, int x, int y, long build) {
        this.id = id;
        this.type = type;
        this.x = x;
        this.y = y;
        this.build = build;
    }

    void addFrom(Connection c) {
        Connection[] grown = java.util.Arrays.copyOf(from, from.length + 1);
        grown[grown.length - 1] = c;
        from = grown;
    }
}
