package randomapp;

import io.perpetua.modelcheck.RandomProgram;

import java.util.List;

/**
 * The random program's view of this package's classes: plain field reads and writes, which the
 * agent redirects through the accessors it adds (residency check on read, dirty mark on write).
 */
final class AppClasses implements RandomProgram.Classes {
    @Override
    public Class<?> node() {
        return Node.class;
    }

    @Override
    public Class<?> leaf() {
        return Leaf.class;
    }

    @Override
    public Class<?> memo() {
        return Memo.class;
    }

    @Override
    public Class<?> holder() {
        return Holder.class;
    }

    @Override
    public Class<?> record() {
        return Tag.class;
    }

    @Override
    public Object newRecord(String label, Object node) {
        return new Tag(label, (Node) node);
    }

    @Override
    public List<Object> newAppList() {
        return new Items();
    }

    @Override
    public Object newNode(String name, int value) {
        Node n = new Node(name, value);
        n.visits = 1;
        return n;
    }

    @Override
    public Object newLeaf(String label, int weight) {
        return new Leaf(label, weight);
    }

    @Override
    public Object newMemo(String body, long when) {
        return new Memo(body, when);
    }

    @Override
    public Object newHolder(String label, Object leaves) {
        return new Holder(label, (Leaf[]) leaves);
    }

    @Override
    public Object newHolder(String label, Object nodes, int[] numbers, String[] labels) {
        return new Holder(label, (Node[]) nodes, numbers, labels);
    }

    @Override
    public Object read(Object object, String field) {
        if (object instanceof Node n) {
            n.visits++;
            return switch (field) {
                case "any" -> n.any;
                case "children" -> n.children;
                case "name" -> n.name;
                case "next" -> n.next;
                case "value" -> n.value;
                default -> throw new IllegalArgumentException(field);
            };
        }
        if (object instanceof Leaf l) {
            return switch (field) {
                case "label" -> l.label;
                case "peer" -> l.peer;
                case "weight" -> l.weight;
                default -> throw new IllegalArgumentException(field);
            };
        }
        if (object instanceof Memo m) {
            return switch (field) {
                case "body" -> m.body;
                case "count" -> m.count;
                case "when" -> m.when;
                default -> throw new IllegalArgumentException(field);
            };
        }
        if (object instanceof Tag t) {
            return switch (field) {
                case "label" -> t.label();
                case "node" -> t.node();
                default -> throw new IllegalArgumentException(field);
            };
        }
        Holder h = (Holder) object;
        return switch (field) {
            case "label" -> h.label;
            case "labels" -> h.labels;
            case "leaves" -> h.leaves;
            case "nodes" -> h.nodes;
            case "numbers" -> h.numbers;
            default -> throw new IllegalArgumentException(field);
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public void write(Object object, String field, Object value) {
        if (object instanceof Node n) {
            switch (field) {
                case "any" -> n.any = value;
                case "children" -> n.children = (List<Node>) value;
                case "name" -> n.name = (String) value;
                case "next" -> n.next = (Node) value;
                case "value" -> n.value = (Integer) value;
                default -> throw new IllegalArgumentException(field);
            }
        } else if (object instanceof Leaf l) {
            switch (field) {
                case "peer" -> l.peer = (Node) value;
                case "weight" -> l.weight = (Integer) value;
                default -> throw new IllegalArgumentException(field);
            }
        } else if (object instanceof Memo m) {
            if (!field.equals("count")) {
                throw new IllegalArgumentException(field);
            }
            m.count = (Integer) value;
        } else {
            Holder h = (Holder) object;
            switch (field) {
                case "label" -> h.label = (String) value;
                case "labels" -> h.labels = (String[]) value;
                case "leaves" -> h.leaves = (Leaf[]) value;
                case "nodes" -> h.nodes = (Node[]) value;
                case "numbers" -> h.numbers = (int[]) value;
                default -> throw new IllegalArgumentException(field);
            }
        }
    }
}
