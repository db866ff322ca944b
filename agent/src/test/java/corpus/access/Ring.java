package corpus.access;

import corpus.shapes.Circle;

/**
 * A rewritten class whose rewritten super-classes are in another package: its generated code
 * reads the state field the top-most class ({@code corpus.shapes.Shape}) declares, which is
 * protected, through its own type.
 */
public class Ring extends Circle {
    private double hole;

    public Ring(String name, int id, double radius, double hole) {
        super(name, id, radius);
        this.hole = hole;
    }

    @Override
    public double area() {
        return Math.round((super.area() - Math.PI * hole * hole) * 100) / 100.0;
    }

    public void widen(double by) {
        hole -= by;
        name = name + "+";
    }
}
