package corpus.shapes;

public abstract class Polygon extends Shape implements Cloneable {
    protected int sides;
    String kind = "polygon"; // hides Shape.kind

    protected Polygon(String name, int id, int sides) {
        super(name, id);
        this.sides = sides;
    }

    public String kinds() {
        return kind + "/" + super.kind + "/" + ((Shape) this).kind;
    }

    /** A shallow copy by {@code Object.clone()}, with a covariant return type (a bridge method). */
    @Override
    public Polygon clone() {
        try {
            return (Polygon) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String describe() {
        return super.describe() + " sides=" + sides;
    }
}
