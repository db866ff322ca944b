package io.perpetua;

/**
 * A call that names no store ({@code obj.persist("n")}, {@code Type.fetch("n")}) could not tell
 * which store it meant: see {@link Perpetua} for the rule.
 */
public class NoCurrentStoreException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;

    /** @param message why no store could be chosen, never null */
    public NoCurrentStoreException(String message) {
        super(message);
    }
}
