package io.perpetua.benchmarks.startup;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.perpetua.PersistentStore;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Jackson over persistent objects (needs the agent): beans are written to JSON, made persistent
 * in a RocksDB store, and, after a reopen, written again from the hollow objects the store
 * hands back; Jackson's getters fill them as it goes. Prints both, which must be equal.
 */
public final class PersistedJsonWorkout {
    private PersistedJsonWorkout() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("perpetua-json-workout");
        try {
            ObjectMapper jackson = SerializersWorkout.jackson();
            Customer customer = Customer.sample(5);
            customer.getReferrer().setReferrer(Customer.sample(2));
            String before = jackson.writeValueAsString(customer);
            try (PersistentStore store = PersistentStore.open(dir.resolve("store"))) {
                store.inTransaction(() -> {
                    store.persist(customer, "customer");
                    return null;
                });
            }
            try (PersistentStore store = PersistentStore.open(dir.resolve("store"))) {
                Customer hollow = store.fetch("customer", Customer.class);
                String after = jackson.writeValueAsString(hollow);
                System.out.println(before);
                System.out.println(after);
                System.out.println(store.statistics().recordsRead() + " records read");
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
