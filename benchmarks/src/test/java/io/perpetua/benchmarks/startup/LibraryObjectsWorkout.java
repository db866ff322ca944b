package io.perpetua.benchmarks.startup;

import io.perpetua.PersistentStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Objects of other languages' and libraries' classes in a RocksDB store (needs the agent), in
 * runs of their own: {@code write DIR} stores them, {@code change DIR} changes some in place,
 * {@code read DIR} prints them.
 * <ul>
 *   <li>Constants come back as themselves: Scala's {@code Nil} and {@code None} (a Scala list
 *       ends with {@code Nil}, and {@code isEmpty} is {@code this eq Nil}), Kotlin's
 *       {@code EmptyList} object and {@code Duration}'s companion object (a static final field of
 *       the class it is nested in), Joda-Time's UTC chronology, which its dates hold.</li>
 *   <li>Classes that keep their state in transient fields and serialize it themselves have
 *       those fields stored: Guava's {@code ImmutableList} and {@code ArrayListMultimap} (whose
 *       {@code asMap()} view, cached in a transient field, is made again, and caching it does not
 *       make the multimap written again), Commons Collections'
 *       {@code LRUMap} (with its {@code new Object()} marker), Scala's {@code ArrayBuffer}, and
 *       Joda-Time's chronology of a time zone.</li>
 *   <li>Scala's {@code BigDecimal}, which holds a {@code java.math.MathContext}, a value the
 *       kernel stores.</li>
 *   <li>Guava's {@code ImmutableMap} and {@code ImmutableBiMap}, whose entries extend a JDK class
 *       with state: stored by their serialization replacement, one held twice (one object when
 *       read back), and one replaced by another.</li>
 * </ul>
 */
public final class LibraryObjectsWorkout {
    private LibraryObjectsWorkout() {
    }

    public static void main(String[] args) {
        try (PersistentStore store = PersistentStore.open(Path.of(args[1]).resolve("store"))) {
            switch (args[0]) {
                case "write" -> write(store);
                case "change" -> change(store);
                default -> read(store);
            }
        }
    }

    private static void write(PersistentStore store) {
        List<Object> objects = new ArrayList<>();
        objects.add(scala.jdk.javaapi.CollectionConverters.asScala(List.of("a", "b", "c")).toList());
        objects.add(scala.Option.apply(null));
        objects.add(kotlin.collections.CollectionsKt.emptyList());
        objects.add(new kotlin.Pair<>("left", 1));
        objects.add(new org.joda.time.LocalDate(2024, 2, 29));
        objects.add(new org.joda.time.DateTime(2024, 2, 29, 12, 30, org.joda.time.DateTimeZone.UTC));
        objects.add(new org.joda.time.DateTime(2024, 7, 1, 9, 0, org.joda.time.DateTimeZone.forID("Europe/Paris")));
        objects.add(com.google.common.collect.ImmutableList.of("x", "y"));
        com.google.common.collect.ArrayListMultimap<String, Integer> multimap = com.google.common.collect.ArrayListMultimap.create();
        multimap.put("k", 1);
        multimap.put("k", 2);
        multimap.asMap(); // a view, cached in a transient field
        objects.add(multimap);
        org.apache.commons.collections4.map.LRUMap<String, String> lru = new org.apache.commons.collections4.map.LRUMap<>(2);
        lru.put("one", "1");
        objects.add(lru);
        scala.collection.mutable.ArrayBuffer<String> buffer = new scala.collection.mutable.ArrayBuffer<>();
        buffer.addOne("p");
        objects.add(buffer);
        objects.add(new scala.math.BigDecimal(new java.math.BigDecimal("19.99"), java.math.MathContext.DECIMAL128));
        objects.add(com.google.common.collect.ImmutableMap.of("x", 1, "y", 2, "z", 3));
        objects.add(com.google.common.collect.ImmutableBiMap.of("p", 1, "q", 2));
        objects.add(new ArrayList<>(List.of(objects.get(13)))); // the bimap again: one object, held twice
        List<Object> companions = new ArrayList<>(List.of(kotlin.time.Duration.Companion));
        store.inTransaction(() -> {
            store.persist(objects, "objects");
            store.persist(companions, "companions"); // apart: its toString has an identity hash
        });
        System.out.println("written " + objects);
    }

    @SuppressWarnings("unchecked")
    private static void change(PersistentStore store) {
        List<Object> objects = (List<Object>) store.fetch("objects");
        store.inTransaction(() -> {
            ((com.google.common.collect.ArrayListMultimap<String, Integer>) objects.get(8)).put("k", 3);
            org.apache.commons.collections4.map.LRUMap<String, String> lru =
                    (org.apache.commons.collections4.map.LRUMap<String, String>) objects.get(9);
            lru.put("two", "2");
            lru.put("three", "3"); // evicts "one"
            ((scala.collection.mutable.ArrayBuffer<String>) objects.get(10)).addOne("q");
            objects.set(12, com.google.common.collect.ImmutableMap.builder()
                    .putAll((java.util.Map<?, ?>) objects.get(12)).put("w", 4).build());
        });
        System.out.println("changed");
    }

    @SuppressWarnings("unchecked")
    private static void read(PersistentStore store) {
        List<Object> objects = (List<Object>) store.fetch("objects");
        // before anything else reads it: the multimap's asMap() view, made and cached in a transient
        // field, is stored as null as the field was, so the multimap is not written again for it
        long written = store.statistics().recordsWritten();
        ((com.google.common.collect.Multimap<?, ?>) objects.get(8)).asMap();
        store.inTransaction(() -> { });
        long forView = store.statistics().recordsWritten() - written;
        System.out.println("read " + objects);
        scala.collection.immutable.List<String> list = (scala.collection.immutable.List<String>) objects.get(0);
        Object end = list.drop(3);
        System.out.println("scala list length " + list.length() + ", ends with Nil itself "
                + (end == scala.collection.immutable.Nil$.MODULE$) + ", " + list.map(s -> s + s));
        System.out.println("scala None itself " + (objects.get(1) == scala.None$.MODULE$));
        System.out.println("kotlin EmptyList itself " + (objects.get(2) == kotlin.collections.CollectionsKt.emptyList()));
        System.out.println("kotlin companion itself "
                + (((List<?>) store.fetch("companions")).get(0) == kotlin.time.Duration.Companion));
        org.joda.time.LocalDate date = (org.joda.time.LocalDate) objects.get(4);
        org.joda.time.DateTime paris = (org.joda.time.DateTime) objects.get(6);
        System.out.println("joda " + date.plusDays(1) + ", chronology itself "
                + (date.getChronology() == org.joda.time.chrono.ISOChronology.getInstanceUTC())
                + ", Paris " + paris.plusMonths(6) + " " + paris.getZone().getID());
        com.google.common.collect.ArrayListMultimap<String, Integer> multimap =
                (com.google.common.collect.ArrayListMultimap<String, Integer>) objects.get(8);
        System.out.println("guava " + ((List<String>) objects.get(7)).subList(1, 2) + " " + multimap.get("k")
                + " " + multimap.asMap() + " " + multimap.size());
        org.apache.commons.collections4.map.LRUMap<String, String> lru =
                (org.apache.commons.collections4.map.LRUMap<String, String>) objects.get(9);
        System.out.println("lru " + lru.get("one") + " " + lru.get("three") + " " + lru.keySet() + " full " + lru.isFull());
        System.out.println("scala buffer " + objects.get(10));
        scala.math.BigDecimal price = (scala.math.BigDecimal) objects.get(11);
        System.out.println("scala BigDecimal " + price.$plus(price) + " " + price.mc().getPrecision());
        com.google.common.collect.ImmutableMap<?, ?> map = (com.google.common.collect.ImmutableMap<?, ?>) objects.get(12);
        com.google.common.collect.ImmutableBiMap<?, ?> biMap = (com.google.common.collect.ImmutableBiMap<?, ?>) objects.get(13);
        System.out.println("guava maps " + map.get("y") + " " + map.getClass().getSimpleName() + ", " + biMap.inverse()
                + " " + biMap.getClass().getSimpleName() + ", held twice as one " + (((List<?>) objects.get(14)).get(0) == biMap));
        System.out.println("records written for guava's view " + forView);
    }
}
