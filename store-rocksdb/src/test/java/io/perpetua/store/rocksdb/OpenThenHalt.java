package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;

import java.net.URI;

/**
 * Child process main of {@link NativeLibraryTest}: opens the store named by {@code args[0]},
 * prints {@code OPEN} and dies without closing it or running exit hooks, as under {@code kill -9}.
 */
public final class OpenThenHalt {
    private OpenThenHalt() {
    }

    public static void main(String[] args) {
        Backend backend = Backends.open(URI.create(args[0]));
        System.out.println("OPEN " + backend.location());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
