package io.perpetua.spi;

/**
 * Figures about a store, computed when asked for.
 *
 * @param objects how many object records the store holds
 * @param names how many names are bound
 * @param bytesOnDisk the space the store takes on disk (0 for an in-memory store); for
 *                    log-structured backends this includes space not yet reclaimed
 */
public record BackendStatistics(long objects, long names, long bytesOnDisk) {
}
