package io.perpetua;

/** A name was looked up (or unbound) that is not bound in the store. */
public class UnknownPersistentName extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String name;

    /** @param name the name that is not bound, never null */
    public UnknownPersistentName(String name) {
        super("no object is bound to the name \"" + name + "\"");
        this.name = name;
    }

    /** @return the name that is not bound, never null */
    public String name() {
        return name;
    }
}
