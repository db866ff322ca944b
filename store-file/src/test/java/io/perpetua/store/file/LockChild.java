package io.perpetua.store.file;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;

import java.net.URI;

/**
 * A child process for {@link ProcessLockTest}. {@code hold URI}: opens the store, prints
 * {@code OPEN}, and keeps it until standard input ends or the process is killed.
 * {@code try URI}: tries to open it and prints {@code OPENED} or the exception's class and message.
 */
public final class LockChild {
    private LockChild() {
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[1]);
        if (args[0].equals("hold")) {
            Backend backend = Backends.open(uri);
            System.out.println("OPEN");
            System.out.flush();
            while (System.in.read() >= 0) {
                // Hold the store until the parent closes our input or kills us.
            }
            backend.close();
        } else {
            try (Backend backend = Backends.open(uri)) {
                System.out.println("OPENED " + backend.location());
            } catch (RuntimeException e) {
                System.out.println(e.getClass().getName() + ": " + e.getMessage()
                        + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")"));
            }
        }
    }
}
