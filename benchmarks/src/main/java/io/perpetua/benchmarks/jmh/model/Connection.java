package io.perpetua.benchmarks.jmh.model;

/** An OO1 connection. */
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
