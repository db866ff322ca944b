package io.perpetua.benchmarks.jmh.kernel;

/** A part without connections: the object of the commit-per-object benchmarks (a flat record of about 40 bytes). */
public class Item {
    int id;
    String type;
    int x;
    int y;
    long build;

    Item(int id, String type, int x, int y, long build) {
        this.id = id;
        this.type = type;
        this.x = x;
        this.y = y;
        this.build = build;
    }
}
