package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backends;
import io.perpetua.spi.CrashWriter;

import java.net.URI;

/**
 * Child main of {@link RocksDbCrashTest}: {@link CrashWriter}'s protocol, with a flush of every
 * memtable and a compaction of the records after every {@code args[2]}-th acknowledged
 * transaction, so that kills also land in the middle of RocksDB's background work (new SST
 * files, a new MANIFEST entry, WAL files made obsolete).
 */
public final class RocksDbCrashWriter {
    private RocksDbCrashWriter() {
    }

    /** @param args the store URI, the maximum payload, how often to flush and compact */
    public static void main(String[] args) {
        CrashWriter.haltWhenParentGoesAway();
        int maxPayload = Integer.parseInt(args[1]);
        int every = Integer.parseInt(args[2]);
        RocksDbBackend backend = (RocksDbBackend) Backends.open(URI.create(args[0]));
        CrashWriter.run(backend, System.out, maxPayload, n -> {
            if (n % every == 0) {
                backend.flushAndCompact();
            }
        });
    }
}
