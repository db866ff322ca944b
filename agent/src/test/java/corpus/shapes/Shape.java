package corpus.shapes;

/** Three-deep hierarchy, abstract top: Shape > Polygon > Square; protected and hidden fields. */
public abstract class Shape implements Comparable<Shape> {
    protected String name;
    protected int id;
    String kind = "shape";
    private final long created;
    static int instances;

    protected Shape(String name, int id) {
        this.name = name;
        this.id = id;
        this.created = 1000L + id;
        instances++;
        describeInConstructor(); // overridable call from a constructor
    }

    protected void describeInConstructor() {
    }

    public abstract double area();

    public String describe() {
        return kind + ":" + name + "#" + id + "@" + created + " area=" + area();
    }

    public long created() {
        return created;
    }

    @Override
    public int compareTo(Shape o) {
        return Double.compare(area(), o.area());
    }

    /** Static method taking the object: reads and writes its fields. */
    public static String rename(Shape s, String newName) {
        String old = s.name;
        s.name = newName;
        s.id += 1;
        return old;
    }
}
