package io.perpetua.benchmarks.startup;

import org.eclipse.store.storage.embedded.types.EmbeddedStorage;
import org.eclipse.store.storage.embedded.types.EmbeddedStorageManager;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Some work for EclipseStore: a graph of application objects (rewritten under the agent, so
 * carrying its two transient fields, which EclipseStore must leave alone) stored, read back
 * from a restarted storage, changed, stored and read back again. Prints what it read, which
 * must be the same with the agent as without.
 */
public final class EclipseStoreWorkout {
    private EclipseStoreWorkout() {
    }

    /** An application class, as EclipseStore's users write them. */
    static final class Node {
        String name;
        int value;
        Node peer;
        List<Node> children = new ArrayList<>();
        Map<String, Integer> tags = new HashMap<>();
        int[] numbers;

        Node(String name, int value) {
            this.name = name;
            this.value = value;
            this.numbers = new int[] {value, value * 2, value * 3};
        }
    }

    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("perpetua-eclipsestore-workout");
        try {
            Node root = new Node("root", 1);
            for (int i = 0; i < 50; i++) {
                Node child = new Node("child" + i, i);
                child.tags.put("even", i % 2);
                root.children.add(child);
            }
            for (int i = 0; i < 50; i++) {
                root.children.get(i).peer = root.children.get((i * 7 + 3) % 50);
            }
            EmbeddedStorageManager storage = EmbeddedStorage.start(root, dir);
            storage.storeRoot();
            storage.shutdown();

            storage = EmbeddedStorage.start(dir);
            Node back = (Node) storage.root();
            StringBuilder out = new StringBuilder(digest(back)).append('\n');
            Node changed = back.children.get(7);
            changed.value = 700;
            changed.numbers[1] = -1;
            storage.store(changed);
            storage.store(changed.numbers);
            storage.shutdown();

            storage = EmbeddedStorage.start(dir);
            out.append(digest((Node) storage.root())).append('\n');
            storage.shutdown();
            System.out.print(out);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String digest(Node root) {
        long sum = 0;
        StringBuilder names = new StringBuilder();
        for (Node c : root.children) {
            sum = sum * 31 + c.value + c.peer.value * 7L + c.tags.getOrDefault("even", -5) + c.numbers[1];
            names.append(c.name.charAt(c.name.length() - 1));
        }
        return root.name + " " + root.children.size() + " " + sum + " " + names;
    }
}
