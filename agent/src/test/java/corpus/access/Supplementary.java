package corpus.access;

/**
 * A class whose name holds a letter outside the Basic Multilingual Plane (U+1D49E, a legal
 * Java identifier letter), and a class reading its field: rewriting the reader reads the
 * other's class file, through a URL the JDK escapes so that it cannot open it itself.
 */
public final class Supplementary {
    private Supplementary() {
    }

    public static class 𝒞ounter {
        public int v;
    }

    public static class Owner {
        public 𝒞ounter c = new 𝒞ounter();

        public int value() {
            return c.v;
        }
    }
}
