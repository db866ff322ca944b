package io.perpetua.store.rocksdb;

import io.perpetua.PersistentStore;

import java.net.URI;

/**
 * Child process main of {@link RocksDbBackendTest}: opens the store named by {@code args[0]}
 * through the public API and prints {@code OPENED}, or the class and message of what it threw.
 */
public final class OpenAndReport {
    private OpenAndReport() {
    }

    public static void main(String[] args) {
        try (PersistentStore store = PersistentStore.open(URI.create(args[0]))) {
            System.out.println("OPENED " + store.location());
        } catch (Throwable t) {
            System.out.println("THREW " + t.getClass().getName() + ": " + t.getMessage());
        }
    }
}
