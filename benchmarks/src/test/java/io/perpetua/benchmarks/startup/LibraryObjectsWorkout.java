package io.perpetua.benchmarks.startup;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Objects of other languages' and libraries' classes in a RocksDB store (needs the agent), in
 * two runs: {@code write DIR} stores them, {@code read DIR} reads them back in a new JVM.
 * <ul>
 *   <li>Constants come back as themselves: Scala's {@code Nil} and {@code None} (a Scala list
 *       ends with {@code Nil}, and {@code isEmpty} is {@code this eq Nil}), Kotlin's
 *       {@code EmptyList} object, Joda-Time's UTC chronology, which its dates hold.</li>
 *   <li>Objects that keep their state in transient fields and serialize it themselves (Guava's
 *       {@code ImmutableList}, Commons Collections' {@code LRUMap}) are refused at commit, with
 *       the reason; before, they came back broken or empty.</li>
 * </ul>
 */
public final class LibraryObjectsWorkout {
    private LibraryObjectsWorkout() {
    }

    public static void main(String[] args) {
        Path store = Path.of(args[1]).resolve("store");
        if (args[0].equals("write")) {
            write(store);
        } else {
            read(store);
        }
    }

    private static void write(Path dir) {
        try (PersistentStore store = PersistentStore.open(dir)) {
            List<Object> objects = new ArrayList<>();
            objects.add(scala.jdk.javaapi.CollectionConverters.asScala(List.of("a", "b", "c")).toList());
            objects.add(scala.Option.apply(null));
            objects.add(scala.Option.apply("some"));
            objects.add(kotlin.collections.CollectionsKt.emptyList());
            objects.add(new kotlin.Pair<>("left", 1));
            objects.add(new org.joda.time.LocalDate(2024, 2, 29));
            objects.add(new org.joda.time.DateTime(2024, 2, 29, 12, 30, org.joda.time.DateTimeZone.UTC));
            store.inTransaction(() -> store.persist(objects, "objects"));
            System.out.println("written " + objects);

            org.apache.commons.collections4.map.LRUMap<String, String> lru = new org.apache.commons.collections4.map.LRUMap<>(4);
            lru.put("k", "v");
            for (Object refused : List.of(com.google.common.collect.ImmutableList.of("x", "y"), lru)) {
                store.beginTransaction();
                store.persist(new ArrayList<>(List.of(refused)), "refused");
                try {
                    store.commitTransaction();
                    System.out.println("stored " + refused.getClass().getName());
                } catch (NotPersistableException e) {
                    System.out.println("refused " + e.className() + " at " + e.path() + ": " + e.reason());
                    store.abortTransaction();
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void read(Path dir) {
        try (PersistentStore store = PersistentStore.open(dir)) {
            System.out.println("names " + store.names());
            List<Object> objects = (List<Object>) store.fetch("objects");
            System.out.println("read " + objects);
            scala.collection.immutable.List<String> list = (scala.collection.immutable.List<String>) objects.get(0);
            Object end = list.drop(3);
            System.out.println("scala list length " + list.length() + ", ends with Nil itself "
                    + (end == scala.collection.immutable.Nil$.MODULE$) + ", " + list.map(s -> s + s));
            System.out.println("scala None itself " + (objects.get(1) == scala.None$.MODULE$));
            System.out.println("kotlin EmptyList itself " + (objects.get(3) == kotlin.collections.CollectionsKt.emptyList()));
            org.joda.time.LocalDate date = (org.joda.time.LocalDate) objects.get(5);
            org.joda.time.DateTime time = (org.joda.time.DateTime) objects.get(6);
            System.out.println("joda " + date.plusDays(1) + " " + time.plusHours(12).getDayOfMonth()
                    + ", chronology itself " + (date.getChronology() == org.joda.time.chrono.ISOChronology.getInstanceUTC()));
        }
    }
}
