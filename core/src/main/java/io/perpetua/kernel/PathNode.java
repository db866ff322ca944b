package io.perpetua.kernel;

/**
 * One step of the path by which a commit reached an object, for messages such as
 * {@code "shop".orders[3].thread}. Immutable; built only for objects a commit makes persistent.
 */
record PathNode(PathNode parent, String step) {

    static PathNode root(String label) {
        return new PathNode(null, label);
    }

    /** @param field a field name, or null for an element */
    static String step(String field, int index) {
        return field != null ? "." + field : "[" + index + "]";
    }

    PathNode child(String field, int index) {
        return new PathNode(this, step(field, index));
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
        sb.append(step);
    }
}
