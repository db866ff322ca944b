package io.perpetua.benchmarks.oo1.model;

/**
 * An OO1 connection from one part to another: plain Java (see {@link Part}). Immutable once
 * built.
 */
public class Connection {

    /** The part that owns this connection in its {@link Part#to} array. Never null. */
    public final Part from;
    /** The part this connection leads to; it lists this connection in {@link Part#from}. */
    public final Part to;
    /** One of {@code conn-type0} ... {@code conn-type9}. Never null. */
    public final String type;
    /** Uniform in [1, 1000]. */
    public final int length;

    public Connection(Part from, Part to, String type, int length) {
        this.from = from;
        this.to = to;
        this.type = type;
        this.length = length;
    }
}
