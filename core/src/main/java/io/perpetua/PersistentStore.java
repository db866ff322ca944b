package io.perpetua;

import io.perpetua.kernel.Kernel;
import io.perpetua.spi.Backends;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * A store of persistent objects: JSPIN's {@code PersistentStore}, on a pluggable backend.
 *
 * <pre>{@code
 * try (PersistentStore store = PersistentStore.open(Path.of("shop.db"))) {  // RocksDB
 *     store.inTransaction(() -> {
 *         Shop shop = store.fetch("shop", Shop.class);
 *         shop.orders.add(new Order("tea", 3));   // saved at commit: reachable from "shop"
 *     });
 * }
 * }</pre>
 *
 * <h2>Persistence by reachability</h2>
 * At commit, every object reachable from a named root or from an object that is already
 * persistent becomes persistent, and every new or changed persistent object is written, in one
 * atomic write. Objects of classes rewritten by the agent are stored field by field (static and
 * {@code transient} fields are not stored); the JDK types Perpetua knows (strings, boxes, enums,
 * arrays, collections, maps, records, {@code java.time} values, {@code BigInteger},
 * {@code BigDecimal}, {@code UUID}, {@code Optional}, {@code Locale}, {@code Currency},
 * {@code URI}, {@code URL}, {@code Path}, {@code File}, {@code Pattern}, {@code Charset},
 * {@code Class} (by name), {@code Date} and its three {@code java.sql} subclasses,
 * {@code StringBuilder}, the atomic numbers, {@code AtomicReference}, {@code BitSet}, the
 * {@code Map.Entry} classes, and in fields a plain {@code Object} and the two reentrant locks,
 * which come back unlocked) are stored by the kernel itself; the JDK's other serializable classes
 * ({@code Random}, {@code Calendar}...), and the application's exception classes (which the
 * agent leaves as they are), by their Java serialization, holding JDK objects and such
 * exceptions only.
 * Arrays, holders such as {@code Date}, and collections keep their identity, so two objects that
 * shared a list still share it after a reload, and changes made to them in place are saved by
 * the next commit. An
 * {@code ArrayList}, {@code HashMap}, {@code HashSet}, {@code ArrayDeque}, {@code TreeMap} or
 * {@code TreeSet} read from a store is an instance of a Perpetua subclass that notes calls that
 * may change it, so that a commit compares only those with their stored form ({@code instanceof}
 * and every method behave as the JDK class's; {@code getClass()} differs). Other containers,
 * and arrays, are compared at every commit while they are resident.
 *
 * <h2>Fault-in</h2>
 * {@link #fetch(String)} returns the object bound to a name; the objects it references are
 * hollow shells, filled from the store the first time the program touches them.
 * {@link #preload(String)} makes a whole graph resident at once instead. One stored object is
 * one Java object per store, however it is reached.
 *
 * <h2>Transactions</h2>
 * A store has at most one active transaction at a time, begun by {@link #beginTransaction()}.
 * {@link #persist}, {@link #unbind}, {@link #commitTransaction()} and
 * {@link #abortTransaction()} need one; {@link #fetch} and reading objects do not. Changes made
 * to persistent objects outside a transaction are written by the next commit (or undone by the
 * next abort). {@link #abortTransaction()} returns every persistent object to its last committed
 * state, makes the objects made persistent in the transaction transient again and undoes name
 * bindings; the store itself is unchanged. A commit that fails changes nothing on disk and
 * leaves the transaction active, so it can be retried or aborted.
 *
 * <h2>Thread-safety</h2>
 * All methods of the store are thread-safe. Persistent objects are ordinary Java objects: share
 * them between threads as you would any object (a lock, a concurrent collection, a volatile
 * field), and the other thread sees them filled and as they were written. Two threads that
 * fault the same object in at once get one filled object. A commit running while another
 * thread changes objects it writes may save either value: run it when the program's writers
 * are done.
 *
 * <h2>Lifecycle and ownership</h2>
 * The caller owns the store and must {@link #close()} it; {@code close} is idempotent and aborts
 * an active transaction. After close, {@link #location()} still names the store (for messages),
 * {@link #inTransaction()} answers false (so that clean-up code may ask), and every other
 * method but {@code close} throws {@link StoreClosedException}; hollow objects of the store can
 * no longer be filled.
 *
 * <h2>Nullness</h2>
 * No method accepts or returns null unless its documentation says so.
 */
public interface PersistentStore extends AutoCloseable {

    /**
     * Opens (creating if needed) the embedded default store, RocksDB, in a directory. Needs
     * {@code perpetua-store-rocksdb} on the class path. The classes of stored objects are found
     * through the calling thread's context class loader, which also supplies the renamed
     * classes, fields and enum constants the application declares in
     * {@code META-INF/perpetua/renamed-classes.properties}.
     *
     * @param directory the store's directory
     * @return the open store, owned by the caller
     * @throws StoreLockedException if another process has the store open
     * @throws CorruptStoreException if the directory holds something that is not a store
     * @throws UnsupportedStoreFormatException if a newer version of Perpetua wrote the store in
     *         a record format this version cannot read
     * @throws PersistentStoreException if the declared renames cannot be read or contradict
     *         each other
     * @throws IllegalArgumentException if the path is relative and begins with what looks like
     *         a store URI's scheme ({@code Path.of("file:/data/shop")}: use {@link #open(String)});
     *         {@code ./file:} names such a directory
     */
    static PersistentStore open(Path directory) {
        return new Kernel(Backends.open(directory));
    }

    /**
     * Opens (creating if needed) a store named by a URI: {@code rocksdb:/path},
     * {@code file:/path}, {@code memory:} (a new, empty in-memory store), with options as a
     * query, e.g. {@code rocksdb:/data/shop?sync=false}. A string without a scheme is a path
     * for the embedded default store.
     *
     * @param uriOrPath a store URI or a directory path
     * @return the open store, owned by the caller
     * @throws StoreLockedException if another process has the store open
     * @throws CorruptStoreException if the location holds something that is not a store
     * @throws UnsupportedStoreFormatException if a newer version of Perpetua wrote the store in
     *         a record format this version cannot read
     * @throws PersistentStoreException if no backend on the class path serves the URI's scheme
     * @throws IllegalArgumentException if an option is unknown or malformed, or the URI has a
     *         fragment: a {@code #} in a directory name is written {@code %23}
     */
    static PersistentStore open(String uriOrPath) {
        return new Kernel(Backends.open(uriOrPath));
    }

    /**
     * Opens (creating if needed) a store named by a URI; see {@link #open(String)}.
     *
     * @param uri the store's URI
     * @return the open store, owned by the caller
     * @throws PersistentStoreException as {@link #open(String)} throws, and for the same reasons
     */
    static PersistentStore open(URI uri) {
        return new Kernel(Backends.open(uri));
    }

    /**
     * Begins a transaction on this store and makes this store the calling thread's current
     * store (see {@link Perpetua}). Until the transaction ends, the store holds every resident
     * array and collection that could change in place unseen, and each one read during it,
     * strongly: one changed in place is saved by the commit even if the program dropped it first
     * (nothing marks an array dirty, as a field write marks an object). A list, set, deque or
     * map of the kinds it tracks ({@code ArrayList}, {@code HashMap}, {@code HashSet},
     * {@code TreeMap}, {@code TreeSet}, {@code ArrayDeque} read from the store) it holds from
     * its first change to the commit that saves it instead, so one only read is let go when
     * the program drops it. Between transactions it holds the others only weakly.
     *
     * @throws TransactionStateException if a transaction is already active on this store
     */
    void beginTransaction();

    /**
     * Writes every new and changed object reachable from the named roots and from persistent
     * objects, and the name bindings, in one atomic and (by default) durable write; then ends
     * the transaction.
     *
     * @throws TransactionStateException if no transaction is active
     * @throws NotPersistableException if a reachable object cannot be stored; nothing was
     *         written and the transaction is still active
     * @throws StorageException if the backend failed; nothing was written. If the backend
     *         recovered, the transaction is still active (retry or abort it); if it could not
     *         ({@link StorageException#storeClosed()}: a write it could not undo, on a full disk
     *         say), the store is closed, its objects are as an abort leaves them, and the store
     *         must be opened again
     */
    void commitTransaction();

    /**
     * Ends the transaction without writing: persistent objects return to their last committed
     * state, objects made persistent in it become transient again, name bindings are undone.
     * One exception: an object stored by its Java serialization is put back only where public
     * methods reach its state (a {@code Calendar}, an atomic array, an adder, a {@code Random});
     * any other (a {@code TimeZone}, an exception) keeps what the transaction made of it, and
     * the next commit writes it so.
     *
     * @throws TransactionStateException if no transaction is active
     */
    void abortTransaction();

    /**
     * @return true if a transaction is active on this store; false once it is closed (close
     *         aborts an active transaction)
     */
    boolean inTransaction();

    /**
     * Runs a block in a transaction: begins one, runs the block, commits; if the block or the
     * commit throws, aborts and rethrows.
     *
     * @param block what to run, not null
     * @throws TransactionStateException if a transaction is already active
     */
    default void inTransaction(Runnable block) {
        inTransaction(() -> {
            block.run();
            return null;
        });
    }

    /**
     * Runs a block in a transaction and returns its result; see {@link #inTransaction(Runnable)}.
     *
     * @param <T> the block's result type
     * @param block what to run, not null; may return null
     * @return what the block returned
     */
    <T> T inTransaction(Supplier<T> block);

    /**
     * Makes an object persistent and binds a name to it (replacing an earlier binding of the
     * name). Both take effect at commit.
     *
     * @param object a persistent-capable object (of a rewritten class) or any other storable
     *               value with identity (an array, a collection)
     * @param name the name: any string with a UTF-8 form (the empty one too)
     * @throws TransactionStateException if no transaction is active
     * @throws NotPersistableException if the object's class cannot be stored
     * @throws IllegalArgumentException if the name holds an unpaired surrogate {@code char},
     *         which UTF-8 cannot encode
     */
    void persist(Object object, String name);

    /**
     * Makes an object persistent without a name: it is written at commit and keeps its
     * identity in this store.
     *
     * @param object a persistent-capable object (of a rewritten class) or any other storable
     *               value with identity (an array, a collection)
     * @throws TransactionStateException if no transaction is active
     * @throws NotPersistableException if the object's class cannot be stored
     */
    void persist(Object object);

    /**
     * Returns the object bound to a name, filled; the objects it references are hollow until
     * touched. An object stored under an older version of its class is read under the current
     * one: fields added read as their default, removed ones are dropped, and widened, boxed,
     * moved or declared-renamed ones keep their value (see {@link IncompatibleClassChangeException}).
     *
     * @param name a bound name
     * @return the object, resident in this store from now on (one Java object per stored
     *         object: fetching it again, or reaching it another way, returns the same one)
     * @throws UnknownPersistentName if the name is not bound
     * @throws IncompatibleClassChangeException if the object's class changed so that what is
     *         stored cannot be read (touching a hollow object may throw it too)
     * @throws NotPersistableException if the object's class was not rewritten by the agent in
     *         this JVM (loaded before the agent started, or the program runs without it)
     */
    Object fetch(String name);

    /**
     * Returns the object bound to a name, checked against a type.
     *
     * @param <T> the type asked for
     * @param name a bound name
     * @param type the class the object must be an instance of
     * @return the object, as {@link #fetch(String)} returns it
     * @throws UnknownPersistentName if the name is not bound
     * @throws UnexpectedTypeException if the object is not an instance of {@code type}
     */
    <T> T fetch(String name, Class<T> type);

    /**
     * Makes the whole graph reachable from a named root resident now, rather than object by
     * object as the program first touches it: every object filled, every array and collection
     * read, all in this call. For a program that will touch most of its data and would rather
     * pay for reading it once, up front, than at the first touch of each object (an in-memory
     * workload, a server warming up before it takes requests). The objects stay resident while
     * the program holds them, as fetched objects do; this does not pin them.
     *
     * <p>Objects already resident are left as they are, changed ones included; so calling it
     * again, or inside a transaction, reads only what is not resident yet. Needs no transaction.
     * The walk follows what the stored objects hold (fields, array and collection elements, map
     * keys and values, record components, {@code Optional} values), one record at a time, under
     * the store's lock.
     *
     * @param name a bound name
     * @return how many records this call read from the store
     * @throws UnknownPersistentName if the name is not bound
     */
    long preload(String name);

    /**
     * Removes a name's binding at commit. The object itself stays stored.
     *
     * @param name a bound name
     * @throws UnknownPersistentName if the name is not bound
     * @throws TransactionStateException if no transaction is active
     */
    void unbind(String name);

    /**
     * @param name a name
     * @return true if the name is bound (counting this transaction's binds and unbinds)
     */
    boolean isBound(String name);

    /** @return the bound names in sorted order, counting this transaction's binds and unbinds */
    List<String> names();

    /**
     * Deletes from the store every stored object that nothing can reach any more: no bound
     * name, through the stored objects, and no object resident in this session (which the
     * program may still hold and link to a root in a later transaction). Without it, objects
     * that become unreachable, by {@link #unbind} or by a commit that drops the last reference
     * to them, stay stored for good. The backend reclaims their space later, in its own
     * compaction.
     *
     * <p>What is kept is decided from what is stored, by reading every reachable record, under
     * the store's lock: the other methods of the store wait until it returns. The deletions
     * are one atomic write: if the call throws, nothing was deleted.
     *
     * @return how many stored records were deleted; an object stored inside another's record
     *         (a satellite, an embedded array or collection) is not counted apart, and a
     *         reachable one keeps that whole record
     * @throws TransactionStateException if a transaction is active
     * @throws CorruptStoreException if a stored object refers to a record that is missing or
     *         cannot be read; nothing was deleted
     */
    long collectGarbage();

    /**
     * Copies this store, as last committed, into a new store: every record, every name and
     * every class descriptor, byte for byte, and an id counter past every copied id. The copy
     * is a store in its own right, on any backend: a backup taken while the program runs, or
     * this store moved to another backend ({@code rocksdb:} to {@code file:}, say). What the
     * current transaction has not committed is not copied, nor is anything only resident.
     *
     * <p>The copy is consistent: it runs under the store's lock, so the store's other methods
     * (commits included) wait until it returns. The target is opened, written in batches and
     * closed by this call. Its names are written last, in one commit, so that a copy that
     * failed before then shows no names; the call also deletes the records it had written, as
     * far as the target still lets it.
     *
     * @param targetUriOrPath the new store, as for {@link #open(String)}: a URI
     *        ({@code file:/backups/shop}, {@code memory:copy}) or a directory for the embedded
     *        default store; created if missing
     * @return how many records were copied
     * @throws IllegalArgumentException if the target is an anonymous {@code memory:} store,
     *         which would be gone when the copy ends
     * @throws StoreNotEmptyException if the target already holds records, names or class
     *         descriptors; it was not written to
     * @throws StoreLockedException if the target is open elsewhere (this store included)
     * @throws StorageException if either backend failed; the target holds no name
     * @throws CorruptStoreException if this store lists a record it cannot read; the target
     *         holds no name
     */
    long copyTo(String targetUriOrPath);

    /**
     * @param object any object, may be null
     * @return true if the object is persistent in this store (made persistent, or loaded from it)
     * @throws StoreClosedException if the store is closed
     */
    boolean isPersistent(Object object);

    /**
     * @return figures about the stored data (objects, names, bytes on disk) and about this
     *         session (records read and written, commits, resident objects)
     */
    StoreStatistics statistics();

    /**
     * @return the store's URI without its options, for example {@code rocksdb:/data/shop}; also
     *         once the store is closed (for messages). A disk store's is percent-encoded
     *         ({@code file:/data/shop%231} for the directory {@code /data/shop#1}), so that
     *         {@link #open(String)} given it opens the same directory again
     */
    String location();

    /**
     * Aborts an active transaction and closes the backend. Idempotent. The objects read from the
     * store stay ordinary objects of the program: a resident one keeps its fields, which may be
     * read and changed (a change is saved nowhere); touching a hollow one, or an array field not
     * read yet, throws {@link io.perpetua.StoreClosedException}. They do not carry over to a
     * later opening of the store: reaching one from an object committed there is a
     * {@link io.perpetua.NotPersistableException} that says so; fetch it again from that opening.
     */
    @Override
    void close();
}
