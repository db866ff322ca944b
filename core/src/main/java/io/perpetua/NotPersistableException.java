package io.perpetua;

/**
 * An object reached at commit cannot be stored: its class is neither rewritten by the agent
 * (nor {@link io.perpetua.runtime.Persistent}) nor one of the JDK types Perpetua stores itself.
 * Typical offenders are threads, sockets, streams, class loaders and lambdas. The commit in
 * which it is raised writes nothing.
 */
public class NotPersistableException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String className;
    private final String path;
    private final String reason;

    /**
     * @param className the offending object's class name, never null
     * @param path how the object was reached, for example {@code shop.orders[3].thread}, never null
     * @param reason why the class cannot be stored, never null
     */
    public NotPersistableException(String className, String path, String reason) {
        super("cannot persist an object of class " + className + " reached by " + path + ": " + reason);
        this.className = className;
        this.path = path;
        this.reason = reason;
    }

    /** @return the offending object's class name, never null */
    public String className() {
        return className;
    }

    /**
     * @return the path from a root to the object: a bound name in quotes, or
     *         {@code Class#id} for an unnamed persistent object, then fields and indexes;
     *         never null
     */
    public String path() {
        return path;
    }

    /** @return why the class cannot be stored, never null */
    public String reason() {
        return reason;
    }
}
