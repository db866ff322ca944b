package io.perpetua;

/** A typed fetch found an object of another type than the caller asked for. */
public class UnexpectedTypeException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String name;
    private final String expected;
    private final String actual;

    /**
     * @param name the name that was fetched, never null
     * @param expected the class the caller asked for, never null
     * @param actual the class of the stored object, never null
     */
    public UnexpectedTypeException(String name, String expected, String actual) {
        super("the object named \"" + name + "\" is a " + actual + ", not a " + expected);
        this.name = name;
        this.expected = expected;
        this.actual = actual;
    }

    /** @return the name that was fetched */
    public String name() {
        return name;
    }

    /** @return the class name the caller asked for */
    public String expected() {
        return expected;
    }

    /** @return the class name of the stored object */
    public String actual() {
        return actual;
    }
}
