package io.perpetua.agent.transform;

/**
 * What the agent does with one class, decided from class bytes alone (the class itself and its
 * super-classes), so that every class that refers to it reaches the same decision. Immutable.
 */
final class Capability {

    enum Kind {
        /** Never touched: the JDK's, Perpetua's own, excluded by option, or loaded by the JDK. */
        UNTOUCHED,
        /**
         * Not persistent-capable (an interface, record, enum, or a class refused with a reason),
         * but its accesses to fields of persistent-capable classes still go through their
         * accessors.
         */
        REDIRECT_ONLY,
        /** Rewritten into a persistent-capable class. */
        PERSISTENT
    }

    final Kind kind;
    /** Why the class is not persistent-capable, or null. */
    final String reason;
    /** Whether this is the top-most persistent-capable class of its hierarchy. */
    final boolean topMost;
    /** Whether the class file already carries the generated members (rewritten before). */
    final boolean alreadyRewritten;

    private Capability(Kind kind, String reason, boolean topMost, boolean alreadyRewritten) {
        this.kind = kind;
        this.reason = reason;
        this.topMost = topMost;
        this.alreadyRewritten = alreadyRewritten;
    }

    static Capability untouched(String reason) {
        return new Capability(Kind.UNTOUCHED, reason, false, false);
    }

    static Capability redirectOnly(String reason) {
        return new Capability(Kind.REDIRECT_ONLY, reason, false, false);
    }

    static Capability persistent(boolean topMost) {
        return new Capability(Kind.PERSISTENT, null, topMost, false);
    }

    static Capability alreadyRewritten() {
        return new Capability(Kind.PERSISTENT, "already rewritten", false, true);
    }

    boolean isPersistent() {
        return kind == Kind.PERSISTENT;
    }

    @Override
    public String toString() {
        return kind + (reason == null ? "" : " (" + reason + ")");
    }
}
