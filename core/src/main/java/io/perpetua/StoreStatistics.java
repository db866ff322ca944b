package io.perpetua;

/**
 * Figures about a store: what it holds (computed by the backend when asked) and what this
 * session has done with it (counted since the store was opened).
 *
 * @param objects how many object records the store holds (a small object stored inside the
 *                record of the object it hangs from, as a satellite, has no record of its own)
 * @param names how many names are bound (as committed)
 * @param bytesOnDisk the space the store takes on disk; 0 for an in-memory store
 * @param recordsRead records read from the backend since open (each fault-in reads one; a
 *                    satellite's fault-in reads its home's record)
 * @param recordsWritten records written by commits since open
 * @param commits commits since open that wrote something
 * @param residentObjects objects the kernel's object table tracks now (including hollow ones
 *                        not yet collected)
 * @param comparedContainers resident arrays and collections that every commit compares with
 *                           what they held when read or last committed, since they cannot report
 *                           their own changes: a commit's cost grows with this (new ones, not yet
 *                           committed, are counted too). Arrays never read (still lazy), empty
 *                           arrays, immutable collections and containers their owner has
 *                           replaced are not among them; nor, while the agent's array write log
 *                           is trusted, arrays that never escaped to JDK code (a commit compares
 *                           those only when they were logged as written).
 */
public record StoreStatistics(long objects, long names, long bytesOnDisk, long recordsRead, long recordsWritten,
                              long commits, long residentObjects, long comparedContainers) {
}
