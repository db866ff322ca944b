package io.perpetua.kernel;

/**
 * One step of the path by which a commit reached an object, for messages such as
 * {@code "shop".orders[3].thread}. Immutable. A commit makes one for every object it writes
 * and renders it only for an error message: a root of an unnamed object keeps its class and
 * id, and a step its field name or index, rather than strings, since building those eagerly
 * for every object and container written showed in OO1 inserts' profiles.
 */
final class PathNode {
    private final PathNode parent;
    /** A field name; null for an element (then {@link #index}) or for a root. */
    private final String field;
    /** The element index, for a step with no field. */
    private final int index;
    /** For a root: its label; null for a root made of {@link #object}'s class and {@link #id}. */
    private final String label;
    /** For a root labelled by class and id: the object, for {@link RootPaths} to find if the commit fails. */
    private final Object object;
    private final long id;

    private PathNode(PathNode parent, String field, int index, String label, Object object, long id) {
        this.parent = parent;
        this.field = field;
        this.index = index;
        this.label = label;
        this.object = object;
        this.id = id;
    }

    static PathNode root(String label) {
        return new PathNode(null, null, 0, label, null, 0);
    }

    /** @return a root labelled by the object's class and its id ({@code Order#9}), rendered only if needed */
    static PathNode root(Object object, long id) {
        return new PathNode(null, null, 0, null, object, id);
    }

    /** @return the object of the root this path starts from, or null if the root is labelled otherwise */
    Object rootObject() {
        PathNode root = this;
        while (root.parent != null) {
            root = root.parent;
        }
        return root.object;
    }

    /** @return the label of a root of {@code object} and {@code id}: its class as the program knows it, and the id */
    static String label(Object object, long id) {
        Class<?> type = object.getClass();
        // a collection Perpetua read back is of its own subclass: the program made a JDK one
        return (object instanceof Tracked ? type.getSuperclass() : type).getTypeName() + "#" + id;
    }

    /**
     * The index of a step to a map's value whose key is a string: the step's field is that key,
     * rendered {@code ["key"]}, as the program writes it. The key is passed as it is, so that a
     * commit builds no string for a map it encodes without error.
     */
    static final int KEYED = Integer.MIN_VALUE;

    /** @param field a field name, or null for an element, or the key for a {@link #KEYED} value */
    static String step(String field, int index) {
        return index == KEYED ? "[\"" + field + "\"]" : field != null ? "." + field : "[" + index + "]";
    }

    /** @param field a field name, or null for element {@code index}; the step is rendered only if needed */
    PathNode child(String field, int index) {
        return new PathNode(this, field, index, null, null, 0);
    }

    String render() {
        StringBuilder sb = new StringBuilder();
        render(sb);
        return sb.toString();
    }

    private void render(StringBuilder sb) {
        if (parent != null) {
            parent.render(sb);
            sb.append(step(field, index));
        } else if (label != null) {
            sb.append(label);
        } else {
            sb.append(label(object, id));
        }
    }

    @Override
    public String toString() {
        return render();
    }
}
