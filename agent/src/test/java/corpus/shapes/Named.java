package corpus.shapes;

/** Interface with default and static methods that reach fields of rewritten classes. */
public interface Named {
    String name();

    default String greeting() {
        return "hello " + name();
    }

    static String nameOf(Object o) {
        return o instanceof Shape s ? s.name : String.valueOf(o);
    }

    static int idOf(Shape s) {
        return s.id;
    }
}
