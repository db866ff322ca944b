package io.perpetua.runtime;

/**
 * Makes an instance of one concrete rewritten class without running any of its constructors
 * (JSPIN's creation proxy). Implementations are generated; they must be stateless.
 */
@FunctionalInterface
public interface HollowFactory {
    /** @return a new instance in state {@link ObjectState#TRANSIENT} with every field at its default */
    Persistent newInstance();
}
