package corpus.access;

/** A record (not persistent-capable) whose methods reach fields of a rewritten class. */
public record Pair(Counter left, Counter right) {
    public int total() {
        return left.total + right.total;
    }

    public void bump() {
        left.total++;
        right.lastOp = "bumped";
    }
}
