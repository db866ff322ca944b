package io.perpetua.benchmarks.oo1;

import java.nio.file.Path;

/**
 * One system under test: JSPIN's {@code Implementation} (seed 004, Figures 3 to 5), with the
 * operations inside it because the rows without objects (raw RocksDB, JDBC) navigate records,
 * not parts.
 *
 * <p>Lifecycle, driven by {@link RowRun}: either {@link #create} then
 * {@link #makeDatabasePersistent} then {@link #stabilize} (the load), or {@link #initiate} then
 * {@link #fetchDatabase} (the open); then any operations; then {@link #terminate}. Every part an
 * operation visits is passed to {@link NullProcedure#call}. Insert changes are made durable only
 * by the {@link #stabilize} that follows. Single-threaded; an instance serves one store once.
 */
public interface Implementation {

    /** @return the system's name and version, e.g. {@code RocksDB 11.0.4} */
    String version();

    /**
     * @return false for the transient row, which has nothing on disk: it is "opened" by building
     *         the database again
     */
    default boolean stores() {
        return true;
    }

    /** JSPIN {@code create}: makes a new, empty store in a directory (which exists and is empty). */
    void create(Path directory) throws Exception;

    /**
     * JSPIN {@code makeDatabasePersist} and {@code makePartPersist} for every part: builds the
     * whole generated database in this system's representation and makes it persistent (durable
     * at the next {@link #stabilize}).
     */
    void makeDatabasePersistent(Oo1Data data) throws Exception;

    /** JSPIN {@code initiate}: opens the store made by an earlier {@link #create}. */
    void initiate(Path directory) throws Exception;

    /** JSPIN {@code fetchDatabase}: gets the database root (or whatever the system needs first). */
    void fetchDatabase() throws Exception;

    /** JSPIN {@code stabilize}: makes every change so far durable. */
    void stabilize() throws Exception;

    /** JSPIN {@code terminate}: closes the store. Idempotent. */
    void terminate() throws Exception;

    /** Lookup: fetches each part and calls the null procedure on it. */
    void lookup(int[] ids) throws Exception;

    /**
     * Traversal: from a part, follows outgoing connections depth first, {@code hops} deep,
     * keeping duplicates; null procedure on each visit, root included.
     */
    void traverse(int id, int hops) throws Exception;

    /** Reverse traversal: the same over incoming connections. */
    void reverseTraverse(int id, int hops) throws Exception;

    /**
     * Insert: makes the batch's parts persistent with their connections (ids continue from the
     * current count), updates the index and the targets' incoming lists, and calls the null
     * procedure on each new part. Durable after the next {@link #stabilize}.
     */
    void insert(Oo1Data batch, int firstId) throws Exception;

    /**
     * @param directory the store's directory, after {@link #terminate}
     * @return bytes on disk, or -1 if unknown (a server other than PostgreSQL)
     */
    default long sizeOnDisk(Path directory) throws Exception {
        return Files2.size(directory);
    }
}
