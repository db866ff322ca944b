package io.perpetua;

/**
 * An optional interface that lets code compiled by plain {@code javac} write JSPIN-style
 * {@code order.persist("o-17")} calls. The agent adds the same methods to every class it
 * rewrites, so implementing this interface is never required; it only makes the calls visible
 * to the compiler. To fetch, use {@link PersistentStore#fetch(String, Class)} or
 * {@link Perpetua#fetch(String, Class)}.
 *
 * <p>Both methods use the store {@link Perpetua} chooses.
 */
public interface Persistable {

    /**
     * Makes this object persistent and binds a name to it at the next commit.
     *
     * @param name the name
     * @see Perpetua#persist(Object, String)
     */
    default void persist(String name) {
        Perpetua.persist(this, name);
    }

    /**
     * Makes this object persistent, without a name, at the next commit.
     *
     * @see Perpetua#persist(Object)
     */
    default void persist() {
        Perpetua.persist(this);
    }
}
