package io.perpetua;

/**
 * A typed fetch found an object of another type than the caller asked for. When the two classes
 * have one name and differ by their class loader (a plug-in redeployed in a new loader while
 * the store stays open), the message names both loaders.
 */
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
        this(name, expected, actual, "the object named \"" + name + "\" is " + withArticle(actual) + ", not "
                + withArticle(expected));
    }

    /**
     * @param name the name that was fetched, never null
     * @param expected the class the caller asked for, never null
     * @param actual the class of the stored object, never null
     */
    public UnexpectedTypeException(String name, Class<?> expected, Class<?> actual) {
        this(name, expected.getTypeName(), actual.getTypeName(), message(name, expected, actual));
    }

    private UnexpectedTypeException(String name, String expected, String actual, String message) {
        super(message);
        this.name = name;
        this.expected = expected;
        this.actual = actual;
    }

    private static String message(String name, Class<?> expected, Class<?> actual) {
        if (!expected.getTypeName().equals(actual.getTypeName())) {
            return "the object named \"" + name + "\" is " + withArticle(actual.getTypeName()) + ", not "
                    + withArticle(expected.getTypeName());
        }
        return "the object named \"" + name + "\" is " + withArticle(actual.getTypeName()) + " of the class loader "
                + loader(actual) + ", not the class of that name asked for, of the class loader " + loader(expected)
                + ": a store reads its classes through the thread's context class loader of when it was opened; open"
                + " it again with the loader of the class asked for (close the store before a plug-in's loader is"
                + " replaced)";
    }

    /** @return the name after "a", or "an" before a vowel: "an Order", "an int[]", "a Shop" */
    private static String withArticle(String typeName) {
        return ("aeiouAEIOU".indexOf(typeName.charAt(0)) >= 0 ? "an " : "a ") + typeName;
    }

    private static String loader(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        return loader == null ? "(the bootstrap loader)" : loader.toString();
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
