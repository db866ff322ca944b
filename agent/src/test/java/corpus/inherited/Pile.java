package corpus.inherited;

import java.util.Stack;

/** Extends a JDK collection and reaches its protected fields directly, as a subclass of {@code Vector} may. */
public class Pile extends Stack<String> {
    private static final long serialVersionUID = 1L;

    /** Drops the top element by writing {@code Vector}'s fields. */
    public void dropTop() {
        elementData[elementCount - 1] = null;
        elementCount--;
    }

    /** Replaces the top element through {@code elementData}, which it only reads. */
    public void replaceTop(String s) {
        elementData[elementCount - 1] = s;
    }

    /** Reads another pile's count: a hollow one must be filled first. */
    public static int countOf(Pile other) {
        return other.elementCount;
    }
}
