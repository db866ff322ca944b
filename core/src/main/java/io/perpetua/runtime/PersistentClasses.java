package io.perpetua.runtime;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry of rewritten concrete classes and their creation proxies. Each concrete rewritten
 * class registers itself in its static initializer, so a class is here once it is initialized.
 * Thread-safe.
 */
public final class PersistentClasses {
    private static final ConcurrentHashMap<Class<?>, HollowFactory> FACTORIES = new ConcurrentHashMap<>();

    private PersistentClasses() {
    }

    /**
     * Registers a concrete rewritten class. Called from generated static initializers.
     *
     * @param type the class, not null
     * @param factory its creation proxy, not null
     */
    public static void register(Class<?> type, HollowFactory factory) {
        FACTORIES.put(type, factory);
    }

    /**
     * @param type a class, not null
     * @return its creation proxy, or null if the class was not rewritten (or is abstract, or
     *         is not initialized yet)
     */
    public static HollowFactory factory(Class<?> type) {
        return FACTORIES.get(type);
    }
}
