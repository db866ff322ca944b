package corpus.shapes;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public final class Scenario {
    private Scenario() {
    }

    public static String run() {
        StringBuilder out = new StringBuilder();
        Square sq = new Square("sq", 1, 2.0);
        Circle c = new Circle("c", 2, 1.5);
        out.append(sq.describe()).append('\n');
        out.append(c.describe()).append('\n');
        out.append(sq.seenInConstructor()).append('\n');
        out.append(sq.kinds()).append('\n');
        sq.grow(1.0);
        out.append(sq.area()).append(' ').append(sq.log()).append('\n');
        out.append(Shape.rename(sq, "square")).append("->").append(sq.name).append(sq.id).append('\n');
        out.append(c.greeting()).append(' ').append(Named.nameOf(c)).append(' ').append(Named.idOf(c)).append('\n');
        out.append(sq.sumIds(new Square("x", 10, 1))).append('\n');
        List<Shape> shapes = new ArrayList<>(List.of(sq, c, new Square("tiny", 3, 0.5)));
        Collections.sort(shapes);
        for (Shape s : shapes) {
            out.append(s.name).append(' ');
        }
        out.append(Shape.instances > 0).append('\n');
        // field access through casts and ternaries
        Shape any = shapes.get(0);
        out.append(((Square) any).side()).append(' ').append((any.id > 2 ? sq : c).name).append('\n');
        Polygon p = sq;
        out.append(p.kind).append(' ').append(((Shape) p).kind).append(' ').append(p.sides).append('\n');
        Polygon copy = p.clone();
        copy.sides = 7;
        out.append(copy.describe()).append(' ').append(p.describe()).append(' ').append(copy != p).append('\n');
        return out.toString();
    }
}
