package io.perpetua.agent.report;

/**
 * Sees every class the agent's transformer is offered (except the JDK's own, loaded by the
 * bootstrap or platform loader, and hidden classes): each is rewritten, skipped or failed,
 * exactly once. Implementations must be thread-safe (classes load on many threads) and must not
 * throw; they must not load application classes.
 */
public interface TransformListener {

    /**
     * A class was rewritten: made persistent-capable, or only its field accesses redirected.
     *
     * @param className dotted class name, not null
     * @param loader its defining loader, not null
     * @param detail a one-line summary, not null
     */
    void onRewritten(String className, ClassLoader loader, String detail);

    /**
     * A class was left as it was, on purpose.
     *
     * @param className dotted class name, not null
     * @param loader its defining loader, not null
     * @param reason why, not null
     */
    void onSkipped(String className, ClassLoader loader, String reason);

    /**
     * A class could not be rewritten: it was left as it was, or (a persistent-capable class other
     * rewritten classes may link against; {@code RewriteException.linkOnly()}) given only those
     * members. Its instances cannot persist, and its field accesses to persistent-capable
     * classes are not checked.
     *
     * @param className dotted class name, not null
     * @param loader its defining loader, not null
     * @param error what went wrong, not null
     */
    void onFailed(String className, ClassLoader loader, Throwable error);

    /**
     * Something worth the user's attention that is not a failure of the class itself (a class
     * loaded before the agent started, a dump file that could not be written).
     *
     * @param className dotted class name, may be null
     * @param message not null
     */
    void onWarning(String className, String message);

    /**
     * Information for verbose output only (for example, where perpetua-core is loaded from).
     *
     * @param message not null
     */
    default void onNote(String message) {
    }
}
