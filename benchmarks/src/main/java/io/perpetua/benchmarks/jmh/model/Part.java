package io.perpetua.benchmarks.jmh.model;

/** An OO1 part (see design/oo1.md). */
public class Part {
    int id;
    String type;
    int x;
    int y;
    long build;
    Connection[] to = new Connection[3];

    Part(int id, String type, int x, int y, long build) {
        this.id = id;
        this.type = type;
        this.x = x;
        this.y = y;
        this.build = build;
    }
}
