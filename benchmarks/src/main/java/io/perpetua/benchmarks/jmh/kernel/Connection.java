package io.perpetua.benchmarks.jmh.kernel;

/** An OO1 connection from one part to another. */
public class Connection {
    Part from;
    Part to;
    String type;
    int length;

    Connection(Part from, Part to, String type, int length) {
        this.from = from;
        this.to = to;
        this.type = type;
        this.length = length;
    }
}
