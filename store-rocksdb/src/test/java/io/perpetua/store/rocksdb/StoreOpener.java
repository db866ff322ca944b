package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;

import java.io.IOException;
import java.net.URI;

/**
 * Child process main of the lock tests: opens the store named by {@code args[0]} through
 * {@link Backends#open(URI)}. Prints {@code OPEN} and keeps the store open until its standard
 * input ends, or prints {@code FAILED <exception class> <message>} and exits with status 1.
 */
public final class StoreOpener {
    private StoreOpener() {
    }

    public static void main(String[] args) throws IOException {
        Backend backend;
        try {
            backend = Backends.open(URI.create(args[0]));
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e.getClass().getName() + " " + e.getMessage());
            System.out.flush();
            System.exit(1);
            return;
        }
        System.out.println("OPEN " + backend.location());
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold the store until the parent closes our input or goes away
        }
        backend.close();
        System.out.println("CLOSED");
    }
}
