package corpus.shapes;

public abstract class Polygon extends Shape {
    protected int sides;
    String kind = "polygon"; // hides Shape.kind

    protected Polygon(String name, int id, int sides) {
        super(name, id);
        this.sides = sides;
    }

    public String kinds() {
        return kind + "/" + super.kind + "/" + ((Shape) this).kind;
    }

    @Override
    public String describe() {
        return super.describe() + " sides=" + sides;
    }
}
