package io.perpetua.agent.transform;

/**
 * A class could not be rewritten: a type it refers to cannot be resolved from class bytes, its
 * class file is newer than the agent's ASM, a method would grow past 64 KB, or its code is
 * malformed. The class is then left as it was, or given only the members other rewritten
 * classes link against ({@link #linkOnly()}), and the failure is reported (and, with
 * {@code failFast}, the program stops).
 */
public final class RewriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String className;
    private final boolean linkOnly;

    /**
     * @param className the dotted name of the class being rewritten, not null
     * @param message what went wrong, not null
     * @param cause the underlying error, may be null
     */
    public RewriteException(String className, String message, Throwable cause) {
        this(className, message, cause, false);
    }

    /**
     * @param linkOnly whether the class was given the members other rewritten classes link
     *        against instead of being left as it was
     */
    RewriteException(String className, String message, Throwable cause, boolean linkOnly) {
        super(className + ": " + message, cause);
        this.className = className;
        this.linkOnly = linkOnly;
    }

    /** @return the dotted name of the class that could not be rewritten */
    public String className() {
        return className;
    }

    /**
     * @return true if the class was not left as it was but given only the members that other
     *         rewritten classes link against (its own code unchanged, its instances refused by
     *         the kernel); false if it was left as it was
     */
    public boolean linkOnly() {
        return linkOnly;
    }
}
