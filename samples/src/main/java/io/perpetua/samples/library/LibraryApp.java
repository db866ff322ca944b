package io.perpetua.samples.library;

import io.perpetua.PersistentStore;

/**
 * The Maven-dependency style: plain {@code javac} code against Perpetua's API, on the pure-Java
 * file store. {@code store.fetch(name, Type.class)} is typed; {@code inTransaction} commits,
 * or aborts if the block throws.
 *
 * <pre>
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.library.LibraryApp lib.db add "Dune" "Herbert"
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.library.LibraryApp lib.db lend "Dune" ana
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.library.LibraryApp lib.db list
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.library.LibraryApp lib.db backup rocksdb:/backups/lib
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.library.LibraryApp rocksdb:/backups/lib list
 * </pre>
 * The store is a directory for the file store or any store URI; {@code backup} copies it, as
 * committed, into a new store on any backend ({@code store.copyTo}).
 * On JDK 24 or newer, with RocksDB, add {@code --enable-native-access=ALL-UNNAMED} (see the README).
 */
public final class LibraryApp {
    private LibraryApp() {
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: LibraryApp <store directory or URI> add <title> <author> | lend <title> <reader>"
                    + " | list | backup <new store URI>");
            System.exit(2);
        }
        // a directory becomes a URI by Path.toUri, which escapes what a URI cannot hold as it is
        // (a space, a '%', a '#'): pasted after "file:", "lib%41" would open "libA"
        String location = args[0].matches("[A-Za-z][A-Za-z0-9+.-]+:.*") ? args[0]
                : java.nio.file.Path.of(args[0]).toAbsolutePath().toUri().toString();
        try (PersistentStore store = PersistentStore.open(location)) {
            if (args[1].equals("backup")) {
                System.out.println("copied " + store.copyTo(args[2]) + " records to " + args[2]);
                return;
            }
            store.inTransaction(() -> {
                if (!store.isBound("library")) {
                    store.persist(new Library(), "library");
                }
                Library library = store.fetch("library", Library.class);
                switch (args[1]) {
                    case "add" -> library.add(new Book(args[2], args[3]));
                    case "lend" -> library.find(args[2]).lendTo(args[3]);
                    case "list" -> library.books().forEach(System.out::println);
                    default -> throw new IllegalArgumentException("unknown command " + args[1]);
                }
            });
        }
    }
}
