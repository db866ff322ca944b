package io.perpetua;

/**
 * An object reached at commit cannot be stored: its class is neither rewritten by the agent
 * (nor {@link io.perpetua.runtime.Persistent}) nor one of the JDK types Perpetua stores itself.
 * Typical offenders are threads, sockets, streams, class loaders and lambdas. The commit in
 * which it is raised writes nothing. Also raised when a stored object is read in a JVM where its
 * class was not rewritten ({@link #whenRead}).
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
        this("cannot persist an object of class " + className + " reached by " + path + ": " + reason, className, path,
                reason);
    }

    private NotPersistableException(String message, String className, String path, String reason) {
        super(message);
        this.className = className;
        this.path = path;
        this.reason = reason;
    }

    /**
     * The exception for a stored object read in a JVM where its class is not persistent-capable
     * (the agent did not rewrite it): the store keeps it, this JVM cannot make it.
     *
     * @param className the stored object's class name, never null
     * @param path which stored object, for example {@code stored object #12}, never null
     * @param reason why the class cannot be made persistent here, never null
     * @return the exception, with a message that says it is a read
     */
    public static NotPersistableException whenRead(String className, String path, String reason) {
        return new NotPersistableException("cannot read " + path + ", an object of class " + className + ": " + reason,
                className, path, reason);
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
