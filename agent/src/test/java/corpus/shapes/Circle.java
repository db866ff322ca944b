package corpus.shapes;

public class Circle extends Shape implements Named {
    double radius;

    public Circle(String name, int id, double radius) {
        super(name, id);
        this.radius = radius;
    }

    @Override
    public double area() {
        return Math.round(Math.PI * radius * radius * 100) / 100.0;
    }

    @Override
    public String name() {
        return name;
    }
}
