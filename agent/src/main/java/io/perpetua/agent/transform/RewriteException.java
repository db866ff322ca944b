package io.perpetua.agent.transform;

/**
 * A class could not be rewritten: a type it refers to cannot be resolved from class bytes, its
 * class file is newer than the agent's ASM, or its code is malformed. The class is then left
 * as it was and the failure is reported (and, with {@code failFast}, the program stops).
 */
public final class RewriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String className;

    /**
     * @param className the dotted name of the class being rewritten, not null
     * @param message what went wrong, not null
     * @param cause the underlying error, may be null
     */
    public RewriteException(String className, String message, Throwable cause) {
        super(className + ": " + message, cause);
        this.className = className;
    }

    /** @return the dotted name of the class that could not be rewritten */
    public String className() {
        return className;
    }
}
