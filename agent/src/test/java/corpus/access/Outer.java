package corpus.access;

import java.util.function.IntSupplier;

/** Inner, anonymous, local and static nested classes reaching private fields of their outer class. */
public class Outer {
    private int secret;
    private String label;
    private final int[] counts = new int[3];

    public Outer(int secret, String label) {
        this.secret = secret;
        this.label = label;
    }

    /** An inner class: reads and writes Outer.this's private fields (nestmate access). */
    public class Inner {
        private int own = 7;

        public int peek() {
            return secret + own;
        }

        public void poke(int v) {
            secret = v;
            counts[0]++;
        }
    }

    /** A static nested class reaching the private fields of an Outer it is given. */
    public static class Nested {
        private final Outer target;

        public Nested(Outer target) {
            this.target = target;
        }

        public String read() {
            return target.label + ":" + target.secret;
        }

        public void write(String l) {
            target.label = l;
            target.counts[1] += 2;
        }
    }

    public IntSupplier anonymous() {
        return new IntSupplier() {
            @Override
            public int getAsInt() {
                return secret * 2;
            }
        };
    }

    public IntSupplier lambda() {
        return () -> secret * 3;
    }

    public static IntSupplier staticLambda(Outer o) {
        return () -> o.secret * 4;
    }

    public String local(int add) {
        class Local {
            int sum() {
                return secret + add;
            }
        }
        return "local=" + new Local().sum();
    }

    public int secret() {
        return secret;
    }

    public String label() {
        return label;
    }

    public int count(int i) {
        return counts[i];
    }

    /** Reads the private fields of another instance (same class, not this). */
    public boolean sameAs(Outer other) {
        return other.secret == secret && other.label.equals(label);
    }

    /** Ternary over this and another: the receiver is not certainly this. */
    public int pick(Outer other, boolean mine) {
        return (mine ? this : other).secret;
    }
}
