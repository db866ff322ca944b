package io.perpetua.spi;

import java.util.Map;
import java.util.SortedMap;

/**
 * A storage backend: the only thing a backend implements. It sees object ids, names, class
 * descriptors and byte records, never a Java object of the application.
 *
 * <h2>Lifecycle</h2>
 * A backend is created open by its {@link BackendProvider} and owns its resources (files,
 * native handles, the lock that keeps other processes out) until {@link #close()}, which is
 * idempotent. Every other method called after {@code close()} throws
 * {@link io.perpetua.StoreClosedException}. A backend that meets a fatal storage error may
 * close itself; later calls then throw {@code StoreClosedException} with that error as cause.
 *
 * <h2>Thread-safety</h2>
 * All methods are safe to call from several threads at once. {@link #commit(WriteSet)} is
 * atomic with respect to every read: a concurrent {@link #read}/{@link #readMany} sees either
 * all of a write set or none of it.
 *
 * <h2>Ids</h2>
 * Object ids are positive {@code long}s handed out by {@link #allocateIds(int)}; an id is never
 * handed out twice, across restarts and crashes too. {@code 0} is never an id.
 *
 * <h2>Failures</h2>
 * Methods throw {@link io.perpetua.StorageException} for I/O failures and
 * {@link io.perpetua.CorruptStoreException} for damaged data. A commit that throws has written
 * nothing that a later open can see.
 */
public interface Backend extends AutoCloseable {

    /**
     * Reads one record.
     *
     * @param id an object id
     * @return the record's bytes (the caller owns the array), or null if there is no such record
     */
    byte[] read(long id);

    /**
     * Reads several records from one consistent state of the store.
     *
     * @param ids object ids, not null; may repeat
     * @return an array aligned with {@code ids}: element {@code i} is the record of {@code ids[i]}
     *         or null if there is none; the caller owns the arrays
     */
    byte[][] readMany(long[] ids);

    /**
     * Lists the records, for the kernel's collection of unreachable objects: one consistent
     * state of the store, as {@link #readMany} reads.
     *
     * @return the id of every record, in no particular order; a snapshot the caller owns
     */
    long[] recordIds();

    /**
     * Looks up a name.
     *
     * @param name the name, not null
     * @return the id bound to it, or {@code 0} if it is not bound
     */
    long lookup(String name);

    /** @return every bound name and its id, in name order; a snapshot the caller owns */
    SortedMap<String, Long> names();

    /**
     * @return every class descriptor ever committed, by descriptor id; a snapshot the caller
     *         owns. Descriptors are small and few; the kernel reads them all once at open.
     */
    Map<Integer, byte[]> classDescriptors();

    /**
     * Reserves {@code count} consecutive fresh ids: after this returns, none of them will ever
     * be handed out again, even if the process dies before they are used. Against a crash of
     * the machine, the reservation must be at least as durable as any commit that uses its ids
     * (a backend may make it durable with the first such commit rather than at once).
     *
     * @param count how many ids, at least 1
     * @return the first id of the range {@code [first, first + count)}
     */
    long allocateIds(int count);

    /**
     * Applies a write set atomically and, unless the backend was opened with durability off,
     * durably: when this returns, all of it survives a crash; if it throws, none of it is
     * visible now or after a reopen.
     *
     * @param writes what to write, not null; the backend does not keep it after returning
     */
    void commit(WriteSet writes);

    /** @return statistics about the stored data, computed now */
    BackendStatistics statistics();

    /**
     * @return the store's URI without options, e.g. {@code rocksdb:/data/shop}; a store in a
     *         directory gives {@link Backends#location}, which {@link Backends#open(String)} opens
     *         again ({@code rocksdb:/data/shop%231} for the directory {@code /data/shop#1})
     */
    String location();

    /** Releases every resource and the store's lock. Idempotent. */
    @Override
    void close();
}
