package io.perpetua.samples.notes;

import io.perpetua.PersistentStore;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * A notes program whose notes survive restarts. Apart from opening the store, naming one root
 * and running in a transaction, it is plain Java: the notebook, its list and its notes are
 * saved because they are reachable from the root.
 *
 * <pre>
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.notes.NotesApp notes.db add "buy tea"
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.notes.NotesApp notes.db list
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.notes.NotesApp notes.db done 1
 * </pre>
 * On JDK 24 or newer, with RocksDB, add {@code --enable-native-access=ALL-UNNAMED} (see the README).
 */
public final class NotesApp {
    private NotesApp() {
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: NotesApp <store directory> add <text> | list | done <number>");
            System.exit(2);
        }
        try (PersistentStore store = PersistentStore.open(Path.of(args[0]))) {    // RocksDB, the default
            store.inTransaction(() -> {
                if (!store.isBound("notebook")) {
                    store.persist(new Notebook(), "notebook");                     // the one root
                }
                run(store.fetch("notebook", Notebook.class), List.of(args).subList(1, args.length));
            });
        }
    }

    private static void run(Notebook notebook, List<String> command) {
        switch (command.get(0)) {
            case "add" -> notebook.add(new Note(String.join(" ", command.subList(1, command.size())), LocalDate.now()));
            case "done" -> notebook.get(Integer.parseInt(command.get(1))).markDone();
            case "list" -> {
                int number = 1;
                for (Note note : notebook.all()) {
                    System.out.println(number++ + ". " + note);
                }
            }
            default -> throw new IllegalArgumentException("unknown command " + command.get(0));
        }
    }
}
