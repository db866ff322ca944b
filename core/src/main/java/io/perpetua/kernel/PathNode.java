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
    /** For a root: its label; null for a root made of {@link #type} and {@link #id}. */
    private final String label;
    private final Class<?> type;
    private final long id;

    private PathNode(PathNode parent, String field, int index, String label, Class<?> type, long id) {
        this.parent = parent;
        this.field = field;
        this.index = index;
        this.label = label;
        this.type = type;
        this.id = id;
    }

    static PathNode root(String label) {
        return new PathNode(null, null, 0, label, null, 0);
    }

    /** @return a root labelled {@code type.getName() + "#" + id}, rendered only if needed */
    static PathNode root(Class<?> type, long id) {
        return new PathNode(null, null, 0, null, type, id);
    }

    /** @param field a field name, or null for an element */
    static String step(String field, int index) {
        return field != null ? "." + field : "[" + index + "]";
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
            if (field != null) {
                sb.append('.').append(field);
            } else {
                sb.append('[').append(index).append(']');
            }
        } else if (label != null) {
            sb.append(label);
        } else {
            sb.append(type.getName()).append('#').append(id);
        }
    }

    @Override
    public String toString() {
        return render();
    }
}
