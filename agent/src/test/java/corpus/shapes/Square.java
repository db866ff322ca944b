package corpus.shapes;

import java.util.ArrayList;
import java.util.List;

public final class Square extends Polygon {
    private double side;
    private final List<String> log = new ArrayList<>();
    private String seenInConstructor;

    public Square(String name, int id, double side) {
        super(name, id, 4);
        this.side = side;
    }

    @Override
    protected void describeInConstructor() {
        // runs before Square's fields are assigned: side is 0.0, log is null
        seenInConstructor = "side=" + side + " log=" + log;
    }

    @Override
    public double area() {
        return side * side;
    }

    public synchronized void grow(double by) {
        side += by;
        log.add("grow " + by);
    }

    public String seenInConstructor() {
        return seenInConstructor;
    }

    public List<String> log() {
        return log;
    }

    public double side() {
        return side;
    }

    /** Reaches fields of a superclass through another instance (protected, same package). */
    public int sumIds(Square other) {
        return this.id + other.id + other.sides + sides;
    }
}
