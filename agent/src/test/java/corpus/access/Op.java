package corpus.access;

/** An enum with constant bodies whose methods reach fields of a rewritten class. */
public enum Op {
    PLUS("+") {
        @Override
        public int apply(Counter c, int v) {
            c.total += v;
            return c.total;
        }
    },
    TIMES("*") {
        @Override
        public int apply(Counter c, int v) {
            c.total *= v;
            return c.total;
        }
    };

    private final String symbol;

    Op(String symbol) {
        this.symbol = symbol;
    }

    public abstract int apply(Counter c, int v);

    public String symbol() {
        return symbol;
    }
}
