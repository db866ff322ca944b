package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;

import java.io.IOException;
import java.net.URI;

/**
 * Child process main of the id reservation test: opens the store named by {@code args[0]},
 * reserves {@code args[1]} ids, commits a write set that binds the name {@code last} to the
 * last of them and writes no record, prints {@code COMMITTED <id>} and then waits, without
 * closing the store, until the parent kills it.
 */
public final class IdReserver {
    private IdReserver() {
    }

    public static void main(String[] args) throws IOException {
        Backend backend = Backends.open(URI.create(args[0]));
        int count = Integer.parseInt(args[1]);
        long last = backend.allocateIds(count) + count - 1;
        backend.commit(new WriteSet().bind("last", last));
        System.out.println("COMMITTED " + last);
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for SIGKILL; the store is never closed
        }
    }
}
