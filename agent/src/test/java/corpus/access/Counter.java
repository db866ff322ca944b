package corpus.access;

public class Counter {
    int total;
    String lastOp = "none";

    /** A string switch. */
    public int apply(String op, int v) {
        switch (op) {
            case "plus" -> Op.PLUS.apply(this, v);
            case "times" -> Op.TIMES.apply(this, v);
            case "reset" -> total = 0;
            default -> throw new IllegalArgumentException(op);
        }
        lastOp = op;
        return total;
    }

    /** try/finally writes a field on every path. */
    public int guarded(int v) {
        try {
            if (v < 0) {
                throw new IllegalStateException("negative");
            }
            total += v;
            return total;
        } finally {
            lastOp = "guarded" + v;
        }
    }

    public synchronized int sum(int... values) { // synchronized varargs
        for (int v : values) {
            total += v;
        }
        synchronized (this) {
            lastOp = "sum" + values.length;
        }
        return total;
    }
}
