package io.perpetua.store.file;

import io.perpetua.spi.Backends;
import io.perpetua.spi.CrashWriter;

import java.net.URI;

/**
 * A {@link io.perpetua.spi.CrashHarness} child that keeps compaction busy: besides the
 * background compaction its small segments trigger, it calls {@link FileBackend#compact()}
 * after every {@code args[2]}-th transaction, so kills land in the middle of compactions too.
 */
public final class CompactingCrashWriter {
    private CompactingCrashWriter() {
    }

    public static void main(String[] args) {
        CrashWriter.haltWhenParentGoesAway();
        FileBackend backend = (FileBackend) Backends.open(URI.create(args[0]));
        int every = Integer.parseInt(args[2]);
        CrashWriter.run(backend, System.out, Integer.parseInt(args[1]), n -> {
            if (n % every == 0) {
                backend.compact();
            }
        });
    }
}
