package randomapp;

import java.util.ArrayList;

/** A list of the application's own: the agent stores its contents with its field, and checks every method it inherits. */
public class Items extends ArrayList<Object> {
    private static final long serialVersionUID = 1L;
    /** How many the program made (the creation proxy, which makes those read back, runs no constructor). */
    static final java.util.concurrent.atomic.AtomicInteger MADE = new java.util.concurrent.atomic.AtomicInteger();
    /** Not changed by the program: read back as it was written. */
    String kind = "items";

    Items() {
        MADE.incrementAndGet();
    }

    @Override
    public boolean add(Object o) {
        if (!kind.equals("items")) {
            throw new IllegalStateException("the field was not read back before the contents: " + kind);
        }
        return super.add(o);
    }
}
