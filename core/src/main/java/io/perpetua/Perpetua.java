package io.perpetua;

import io.perpetua.kernel.Kernel;

/**
 * The calls that name no store: {@code obj.persist("n")}, {@code obj.persist()} and
 * {@code Type.fetch("n")}, which the agent adds to every rewritten class and
 * {@link Persistable} offers to plain source.
 *
 * <h2>Which store</h2>
 * <ol>
 *   <li>An object that is already persistent in an open store belongs to it: {@code persist} on
 *       it uses that store. One read from a store closed since belongs to none open: the store
 *       the next rules choose refuses it, as that store's own {@code persist} does
 *       ({@link NotPersistableException}: fetch it again from there).</li>
 *   <li>Otherwise the <em>current store</em> is the store whose transaction the calling thread
 *       began most recently and that is still active.</li>
 *   <li>Failing that, if exactly one store is open in the JVM, that store.</li>
 *   <li>Otherwise {@link NoCurrentStoreException}: open one store, or begin a transaction on
 *       the one you mean.</li>
 * </ol>
 * Thread-safe.
 */
public final class Perpetua {
    private Perpetua() {
    }

    /**
     * Makes an object persistent in the current store and binds a name to it at commit. An
     * object already persistent in an open store is persisted in that store.
     *
     * @param object a persistent-capable object or another storable value with identity
     * @param name the name
     * @throws NoCurrentStoreException if no store can be chosen
     * @throws TransactionStateException if the store has no active transaction
     * @throws NotPersistableException if the object cannot be stored, among them an object read
     *         from a store closed since (an earlier opening of the store chosen, say): it belongs
     *         to that opening; fetch it again from the store it is to be persisted in. (Until
     *         session 42 this was a {@code StoreClosedException} naming the closed store.)
     */
    public static void persist(Object object, String name) {
        storeFor(object).persist(object, name);
    }

    /**
     * Makes an object persistent in the current store, without a name; an object already
     * persistent in an open store is persisted in that store.
     *
     * @param object a persistent-capable object or another storable value with identity
     * @throws NoCurrentStoreException if no store can be chosen
     * @throws TransactionStateException if the store has no active transaction
     * @throws NotPersistableException if the object cannot be stored, among them an object read
     *         from a store closed since (as {@link #persist(Object, String)})
     */
    public static void persist(Object object) {
        storeFor(object).persist(object);
    }

    /**
     * Fetches the object bound to a name in the current store.
     *
     * @param <T> the type asked for
     * @param name a bound name
     * @param type the class the object must be an instance of
     * @return the object, as {@link PersistentStore#fetch(String)} returns it
     * @throws NoCurrentStoreException if no store can be chosen
     * @throws UnknownPersistentName if the name is not bound there
     * @throws UnexpectedTypeException if the object is not a {@code type}
     */
    public static <T> T fetch(String name, Class<T> type) {
        return current().fetch(name, type);
    }

    /**
     * @return the current store, by the rule in the class documentation
     * @throws NoCurrentStoreException if there is none
     */
    public static PersistentStore current() {
        return Kernel.current();
    }

    /**
     * An object's own store if it is open, else the current one: an object of a store closed
     * since goes to the current store, whose {@code persist} refuses it saying why, as it does
     * when called on that store (a closed store would say only that it is closed).
     */
    private static PersistentStore storeFor(Object object) {
        Kernel owner = Kernel.ownerOf(object);
        return owner != null ? owner : Kernel.current();
    }
}
