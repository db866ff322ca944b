package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/**
 * A type-safe enum written before Java had enums: its constants are instances held by static
 * final fields (one of them private, one an alias of another), compared by identity; other
 * instances may be made too. Protocol written by hand.
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

    public static Suit spades() {
        return SPADES;
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
