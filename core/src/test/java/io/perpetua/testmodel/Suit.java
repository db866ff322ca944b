package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/**
 * A type-safe enum written before Java had enums: its constants are instances held by static
 * final fields (one of them private, one an alias of another), compared by identity; other
 * instances may be made too. It also holds a {@link Companion}, as Kotlin compiles a class's
 * companion object. Protocol written by hand.
 */
public class Suit extends Base {
    static {
        PersistentClasses.register(Suit.class, () -> new Suit((HollowFactory) null));
    }

    public static final Suit HEARTS = new Suit("hearts");
    private static final Suit SPADES = new Suit("spades");
    /** The same object as {@link #HEARTS}. */
    public static final Suit DEFAULT = HEARTS;

    private String label;

    protected Suit(HollowFactory proxy) {
    }

    public Suit(String label) {
        this.label = label;
    }

    /** The one instance of {@link Companion}. */
    public static final Companion COMPANION = new Companion();

    public static Suit spades() {
        return SPADES;
    }

    /**
     * Shaped as Kotlin compiles a companion object: a nested class whose one instance is a static
     * final field of the class it is nested in, not of its own.
     */
    public static final class Companion extends Base {
        static {
            PersistentClasses.register(Companion.class, () -> new Companion((HollowFactory) null));
        }

        private Companion() {
        }

        private Companion(HollowFactory proxy) {
        }

        public Suit hearts() {
            return HEARTS;
        }
    }

    public String label() {
        readCheck();
        return label;
    }

    public void label(String label) {
        writeCheck();
        this.label = label;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(label);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        label = (String) in.readObject();
    }
}
