package io.perpetua.kernel;

/**
 * One step of the path by which a commit reached an object, for messages such as
 * {@code "shop".orders[3].thread}. Immutable. A commit makes one for every object it writes
 * and renders it only for an error message: a root of an unnamed object keeps its class and
 * id rather than a string ({@code Class#id}), since building those labels eagerly for every
 * pending object showed in an OO1 insert's profile.
 */
final class PathNode {
    private final PathNode parent;
    /** The step, or for a root: its label; null for a root made of {@link #type} and {@link #id}. */
    private final String step;
    private final Class<?> type;
    private final long id;

    private PathNode(PathNode parent, String step, Class<?> type, long id) {
        this.parent = parent;
        this.step = step;
        this.type = type;
        this.id = id;
    }

    static PathNode root(String label) {
        return new PathNode(null, label, null, 0);
    }

    /** @return a root labelled {@code type.getName() + "#" + id}, rendered only if needed */
    static PathNode root(Class<?> type, long id) {
        return new PathNode(null, null, type, id);
    }

    /** @param field a field name, or null for an element */
    static String step(String field, int index) {
        return field != null ? "." + field : "[" + index + "]";
    }

    PathNode child(String field, int index) {
        return new PathNode(this, step(field, index), null, 0);
    }

    String render() {
        StringBuilder sb = new StringBuilder();
        render(sb);
        return sb.toString();
    }

    private void render(StringBuilder sb) {
        if (parent != null) {
            parent.render(sb);
        }
        if (step != null) {
            sb.append(step);
        } else {
            sb.append(type.getName()).append('#').append(id);
        }
    }

    @Override
    public String toString() {
        return render();
    }
}
