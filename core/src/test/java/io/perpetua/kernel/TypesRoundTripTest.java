package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import io.perpetua.testmodel.ByLength;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.ArrayList;
import java.util.Currency;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every type the agent cannot rewrite, stored in a field of a rewritten object, committed,
 * closed, reopened and compared: equal value, same class (or the documented equivalent).
 */
class TypesRoundTripTest {

    enum Color { RED, GREEN, BLUE }

    /** An enum whose constants have bodies: each constant is an instance of its own subclass. */
    enum Op {
        PLUS { @Override int apply(int a, int b) { return a + b; } },
        TIMES { @Override int apply(int a, int b) { return a * b; } };

        abstract int apply(int a, int b);
    }

    record Point(int x, int y, String label) { }

    record Line(Point from, Point to, List<Integer> weights) { }

    static Stream<Arguments> values() {
        TreeMap<String, Integer> byLength = new TreeMap<>(new ByLength());
        byLength.put("ccc", 3);
        byLength.put("a", 1);
        byLength.put("bb", 2);
        TreeSet<String> reversed = new TreeSet<>(Comparator.reverseOrder());
        reversed.addAll(List.of("x", "z", "y"));
        LinkedHashMap<String, Integer> ordered = new LinkedHashMap<>();
        ordered.put("z", 1);
        ordered.put("a", 2);
        ordered.put("m", 3);
        EnumMap<Color, String> enumMap = new EnumMap<>(Color.class);
        enumMap.put(Color.BLUE, "b");
        enumMap.put(Color.RED, "r");
        return Stream.of(
                Arguments.of("String", "héllo \uD83D\uDE00 wörld"),
                Arguments.of("String with unpaired surrogate", "a\uD800b"),
                Arguments.of("empty String", ""),
                Arguments.of("Integer", Integer.MIN_VALUE),
                Arguments.of("Long", Long.MIN_VALUE),
                Arguments.of("Short", (short) -3),
                Arguments.of("Byte", (byte) 200),
                Arguments.of("Character", 'ß'),
                Arguments.of("Boolean", Boolean.TRUE),
                Arguments.of("Float", 1.5f),
                Arguments.of("Double", Double.NEGATIVE_INFINITY),
                Arguments.of("enum", Color.GREEN),
                Arguments.of("enum with constant bodies", Op.TIMES),
                Arguments.of("JDK enum", DayOfWeek.FRIDAY),
                Arguments.of("BigInteger", new BigInteger("-123456789012345678901234567890")),
                Arguments.of("BigDecimal", new BigDecimal("3.14159265358979323846264338327950288")),
                Arguments.of("UUID", UUID.fromString("123e4567-e89b-12d3-a456-426614174000")),
                Arguments.of("MathContext", new java.math.MathContext(7, java.math.RoundingMode.HALF_DOWN)),
                Arguments.of("Optional", Optional.of("x")),
                Arguments.of("Optional.empty", Optional.empty()),
                Arguments.of("OptionalInt", OptionalInt.of(7)),
                Arguments.of("OptionalInt.empty", OptionalInt.empty()),
                Arguments.of("OptionalLong", OptionalLong.of(-7)),
                Arguments.of("OptionalLong.empty", OptionalLong.empty()),
                Arguments.of("OptionalDouble", OptionalDouble.of(0.5)),
                Arguments.of("OptionalDouble.empty", OptionalDouble.empty()),
                Arguments.of("LocalDate", LocalDate.of(1997, 8, 1)),
                Arguments.of("LocalTime", LocalTime.of(13, 45, 7, 123456789)),
                Arguments.of("LocalDateTime", LocalDateTime.of(2026, 11, 21, 13, 48)),
                Arguments.of("Instant", Instant.ofEpochSecond(-5, 999)),
                Arguments.of("Duration", Duration.ofMillis(-1500)),
                Arguments.of("Period", Period.of(1, -2, 3)),
                Arguments.of("ZoneOffset", ZoneOffset.ofHoursMinutes(-3, -30)),
                Arguments.of("ZoneId", ZoneId.of("Europe/Paris")),
                Arguments.of("OffsetDateTime", OffsetDateTime.of(2020, 1, 2, 3, 4, 5, 6, ZoneOffset.ofHours(9))),
                Arguments.of("ZonedDateTime", ZonedDateTime.of(2021, 10, 31, 2, 30, 0, 0, ZoneId.of("Europe/Berlin"))),
                Arguments.of("OffsetTime", OffsetTime.of(1, 2, 3, 4, ZoneOffset.UTC)),
                Arguments.of("Year", Year.of(-44)),
                Arguments.of("YearMonth", YearMonth.of(1999, Month.DECEMBER)),
                Arguments.of("MonthDay", MonthDay.of(2, 29)),
                Arguments.of("Locale", Locale.forLanguageTag("sr-Latn-RS-u-nu-latn")),
                Arguments.of("Locale, legacy Japanese calendar", legacyLocale("ja", "JP", "JP")),
                Arguments.of("Locale, legacy Norwegian Nynorsk", legacyLocale("no", "NO", "NY")),
                Arguments.of("Locale, ill-formed variant", legacyLocale("en", "US", "a b")),
                Arguments.of("Locale.ROOT", Locale.ROOT),
                Arguments.of("Currency", Currency.getInstance("CHF")),
                Arguments.of("URI", URI.create("https://user@example.org:8443/a%20b/\u00e9?q=1&r#frag")),
                Arguments.of("opaque URI", URI.create("mailto:someone@example.org")),
                Arguments.of("URL", fileUrl("/tmp/x y/é.txt")),
                Arguments.of("Path", Path.of("/tmp", "a b", "é")),
                Arguments.of("relative Path", Path.of("relative", "p")),
                Arguments.of("File", new File("relative/f.txt")),
                Arguments.of("Charset", StandardCharsets.UTF_16LE),
                Arguments.of("Class", String.class),
                Arguments.of("Class of the application", Node.class),
                Arguments.of("Class of a primitive type", int.class),
                Arguments.of("Class void", void.class),
                Arguments.of("Class of an array of the application", Node[][].class),
                Arguments.of("Class of a primitive array", long[].class),
                Arguments.of("record", new Point(1, -2, "p")),
                Arguments.of("nested record", new Line(new Point(0, 0, null), new Point(3, 4, "q"), List.of(1, 2))),
                Arguments.of("ArrayList", new ArrayList<>(List.of(1, "two", 3.0))),
                Arguments.of("LinkedList", new LinkedList<>(List.of("a", "b"))),
                Arguments.of("HashMap", new HashMap<>(Map.of("k", 1, "l", 2))),
                Arguments.of("LinkedHashMap keeps order", ordered),
                Arguments.of("TreeMap with a persistable comparator", byLength),
                Arguments.of("TreeSet reverse order", reversed),
                Arguments.of("HashSet", new HashSet<>(Set.of(1, 2, 3))),
                Arguments.of("LinkedHashSet", new LinkedHashSet<>(List.of("c", "a", "b"))),
                Arguments.of("EnumMap", enumMap),
                Arguments.of("empty EnumMap", new EnumMap<>(Color.class)),
                Arguments.of("EnumSet", EnumSet.of(Color.RED, Color.BLUE)),
                Arguments.of("empty EnumSet", EnumSet.noneOf(Color.class)),
                Arguments.of("List.of", List.of(1, 2, 3)),
                Arguments.of("List.of()", List.of()),
                Arguments.of("Set.of", Set.of("x", "y")),
                Arguments.of("Map.of", Map.of("a", 1, "b", 2)),
                Arguments.of("Collections.unmodifiableList", Collections.unmodifiableList(new ArrayList<>(List.of(1, 2)))),
                Arguments.of("Collections.unmodifiableMap", Collections.unmodifiableMap(new HashMap<>(Map.of("a", 1)))),
                Arguments.of("Collections.unmodifiableSet", Collections.unmodifiableSet(new HashSet<>(Set.of(4)))),
                Arguments.of("Arrays.asList", Arrays.asList("p", "q")),
                Arguments.of("Collections.nCopies", Collections.nCopies(3, "n")),
                Arguments.of("Map.entry", Map.entry("k", List.of(1))),
                Arguments.of("SimpleImmutableEntry with a null", new java.util.AbstractMap.SimpleImmutableEntry<>("k", null)),
                Arguments.of("SimpleEntry", new java.util.AbstractMap.SimpleEntry<>(null, 2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void roundTrips(String what, Object value) {
        Object back = roundTrip(value);
        assertEquals(value, back, what);
        if (value instanceof Enum<?>) {
            assertSame(value, back, "enum identity is kept");
        }
        if (value instanceof Map<?, ?> m && !m.isEmpty() && (value instanceof LinkedHashMap || value instanceof TreeMap)) {
            assertEquals(List.copyOf(m.keySet()), List.copyOf(((Map<?, ?>) back).keySet()), "order is kept");
        }
        if (value instanceof TreeSet<?> s) {
            assertEquals(List.copyOf(s), List.copyOf((TreeSet<?>) back), "order is kept");
        }
        if (value instanceof Map.Entry<?, ?>) {
            assertSame(value.getClass(), back.getClass(), "an entry comes back as its own class");
        }
        if (value instanceof ArrayList || value instanceof HashMap || value instanceof TreeMap
                || value instanceof LinkedList || value instanceof HashSet || value instanceof EnumMap) {
            assertSame(value.getClass(), Containers.storedClass(back), "mutable containers keep their class");
            assertInstanceOf(value.getClass(), back, "a loaded container is an instance of its JDK class");
        }
    }

    /**
     * An empty OptionalInt, OptionalLong or OptionalDouble comes back as itself wherever it is
     * held, not as an empty Optional (format 11 wrote them all as one).
     */
    @Test
    void emptyPrimitiveOptionalsComeBackAsTheirOwnKindInArraysAndCollections() {
        List<Object> empties = List.of(OptionalInt.empty(), OptionalLong.empty(), OptionalDouble.empty(), Optional.empty());
        Object[] back = (Object[]) roundTrip(new Object[] {empties.toArray(), new ArrayList<>(empties), empties});
        assertArrayEquals(empties.toArray(), (Object[]) back[0], "in an Object[]");
        assertEquals(empties, back[1], "in an ArrayList");
        assertEquals(empties, back[2], "in a List.of");
        for (Object o : (List<?>) back[1]) {
            assertTrue(o == OptionalInt.empty() || o == OptionalLong.empty() || o == OptionalDouble.empty()
                    || o == Optional.empty(), o + " is its kind's shared empty value");
        }
    }

    /**
     * Containers names the mutable JDK collections and maps twice, by kind and in the code that
     * makes an empty one to fill: every one it names comes back as its own class with its contents.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("mutableContainers")
    void everyMutableJdkContainerComesBackAsItsOwnClass(String what, Object value) {
        Object back = roundTrip(value);
        assertSame(value.getClass(), Containers.storedClass(back), what);
        if (value instanceof Map<?, ?> m) {
            assertEquals(new TreeMap<>(m), new TreeMap<>((Map<?, ?>) back), what);
        } else {
            assertEquals(((Collection<?>) value).stream().map(String::valueOf).sorted().toList(),
                    ((Collection<?>) back).stream().map(String::valueOf).sorted().toList(), what);
        }
    }

    static Stream<Arguments> mutableContainers() {
        List<String> three = List.of("b", "a", "c");
        Map<String, Integer> two = Map.of("k", 1, "l", 2);
        return Stream.of(new ArrayList<>(three), new LinkedList<>(three), new ArrayDeque<>(three), new HashSet<>(three),
                new LinkedHashSet<>(three), new java.util.Vector<>(three), stack(three),
                new java.util.concurrent.CopyOnWriteArrayList<>(three), new java.util.concurrent.CopyOnWriteArraySet<>(three),
                new java.util.concurrent.ConcurrentLinkedQueue<>(three), new java.util.concurrent.ConcurrentLinkedDeque<>(three),
                new TreeSet<>(three), new java.util.concurrent.ConcurrentSkipListSet<>(three),
                new java.util.PriorityQueue<>(three), new java.util.concurrent.LinkedBlockingQueue<>(three),
                new java.util.concurrent.LinkedBlockingDeque<>(three), new java.util.concurrent.ArrayBlockingQueue<>(4, false, three),
                new java.util.concurrent.PriorityBlockingQueue<>(three), new java.util.concurrent.LinkedTransferQueue<>(three),
                new HashMap<>(two), new LinkedHashMap<>(two),
                new java.util.Hashtable<>(two), new java.util.concurrent.ConcurrentHashMap<>(two),
                new java.util.IdentityHashMap<>(two), new TreeMap<>(two), new java.util.concurrent.ConcurrentSkipListMap<>(two),
                properties(Map.of("k", "1", "l", "2")))
                .map(c -> Arguments.of(c.getClass().getSimpleName(), c));
    }

    /** A bounded queue keeps its capacity; a priority queue its comparator; a delay queue its order. */
    @Test
    void blockingQueuesKeepTheirCapacityAndOrder() throws Exception {
        var bounded = new java.util.concurrent.ArrayBlockingQueue<String>(5, false, List.of("a", "b"));
        var linked = new java.util.concurrent.LinkedBlockingDeque<String>(3);
        linked.add("x");
        var unbounded = new java.util.concurrent.LinkedBlockingQueue<String>(List.of("u"));
        var byPriority = new java.util.concurrent.PriorityBlockingQueue<String>(4, Comparator.reverseOrder());
        byPriority.addAll(List.of("m", "z", "a"));
        var delays = new java.util.concurrent.DelayQueue<Delay>();
        delays.addAll(List.of(new Delay(-5), new Delay(-50)));
        Object[] back = (Object[]) roundTrip(new Object[] {bounded, linked, unbounded, byPriority, delays});
        var boundedBack = (java.util.concurrent.ArrayBlockingQueue<?>) back[0];
        assertEquals(List.of("a", "b"), List.copyOf(boundedBack));
        assertEquals(3, boundedBack.remainingCapacity());
        assertEquals(2, ((java.util.concurrent.LinkedBlockingDeque<?>) back[1]).remainingCapacity());
        assertEquals(Integer.MAX_VALUE - 1, ((java.util.concurrent.LinkedBlockingQueue<?>) back[2]).remainingCapacity());
        var priorityBack = (java.util.concurrent.PriorityBlockingQueue<?>) back[3];
        assertEquals(List.of("z", "m", "a"), List.of(priorityBack.poll(), priorityBack.poll(), priorityBack.poll()));
        var delaysBack = (java.util.concurrent.DelayQueue<?>) back[4];
        assertEquals(-50, ((Delay) delaysBack.poll()).at);
        assertEquals(-5, ((Delay) delaysBack.poll()).at);
    }

    /** A Delayed whose delay is fixed: a record, stored by value. */
    record Delay(long at) implements java.util.concurrent.Delayed {
        @Override
        public long getDelay(java.util.concurrent.TimeUnit unit) {
            return unit.convert(at, java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(java.util.concurrent.Delayed o) {
            return Long.compare(at, ((Delay) o).at);
        }
    }

    /**
     * ConcurrentHashMap's key set views: a set of its own (newKeySet) comes back as one, and a
     * view of a map the program also holds stays a view of that map, adding with its value.
     */
    @Test
    void concurrentKeySetViewsStayViewsOfTheirMap() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Set<String> tags = java.util.concurrent.ConcurrentHashMap.newKeySet();
            tags.addAll(List.of("red", "blue"));
            var counts = new java.util.concurrent.ConcurrentHashMap<String, Integer>(Map.of("a", 1));
            persistHolder(store, new Object[] {tags, counts, counts.keySet(0)});
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("holder", Node.class).any();
            @SuppressWarnings("unchecked") Set<String> tags = (Set<String>) back[0];
            assertInstanceOf(java.util.concurrent.ConcurrentHashMap.KeySetView.class, tags);
            assertEquals(Set.of("red", "blue"), tags);
            @SuppressWarnings("unchecked") var counts = (java.util.concurrent.ConcurrentHashMap<String, Integer>) back[1];
            @SuppressWarnings("unchecked") Set<String> view = (Set<String>) back[2];
            assertSame(counts, ((java.util.concurrent.ConcurrentHashMap.KeySetView<?, ?>) view).getMap());
            store.inTransaction(() -> {
                tags.add("green");
                view.add("b");
            });
            assertEquals(0, counts.get("b"), "the view adds to its map, with its value");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("holder", Node.class).any();
            assertEquals(Set.of("red", "blue", "green"), back[0]);
            assertEquals(Map.of("a", 1, "b", 0), back[1]);
        }
    }

    /** Each Collections.synchronized* wrapper comes back as its own class around what it wrapped. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("synchronizedWrappers")
    void synchronizedWrappersComeBackAsTheirOwnClass(String what, Object wrapper) {
        Object back = roundTrip(wrapper);
        assertSame(wrapper.getClass(), back.getClass(), what);
        assertEquals(wrapper.toString(), back.toString(), what);
    }

    static Stream<Arguments> synchronizedWrappers() {
        List<String> three = List.of("b", "a", "c");
        Map<String, Integer> two = Map.of("k", 1, "l", 2);
        return Stream.of(Collections.synchronizedList(new ArrayList<>(three)),
                Collections.synchronizedList(new LinkedList<>(three)), Collections.synchronizedCollection(new ArrayList<>(three)),
                Collections.synchronizedSet(new LinkedHashSet<>(three)), Collections.synchronizedSortedSet(new TreeSet<>(three)),
                Collections.synchronizedNavigableSet(new TreeSet<>(three)), Collections.synchronizedMap(new LinkedHashMap<>(two)),
                Collections.synchronizedSortedMap(new TreeMap<>(two)), Collections.synchronizedNavigableMap(new TreeMap<>(two)))
                .map(c -> Arguments.of(c.getClass().getSimpleName(), c));
    }

    /**
     * An unmodifiable view held next to the list it shows (a class that hands out a read-only
     * view of its own list) still shows that list after a reload: what is added to the list is in
     * the view. So does a view made later around a list read back from the store (a
     * {@link Tracked} one).
     */
    @Test
    void anUnmodifiableViewStaysAViewOfItsList() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                List<String> items = new ArrayList<>(List.of("a"));
                Node n = new Node("owner");
                n.any(new Object[] {items, Collections.unmodifiableList(items), null});
                store.persist(n, "owner");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("owner", Node.class).any();
            @SuppressWarnings("unchecked") List<String> items = (List<String>) back[0];
            List<?> view = (List<?>) back[1];
            store.inTransaction(() -> {
                items.add("b");
                back[2] = Collections.unmodifiableSet((java.util.Set<?>) new java.util.HashMap<>(Map.of("k", 1)).keySet());
                back[2] = new Object[] {back[2], Collections.unmodifiableList(items)};
            });
            assertEquals(List.of("a", "b"), view, "the view shows its list");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("owner", Node.class).any();
            @SuppressWarnings("unchecked") List<String> items = (List<String>) back[0];
            Object[] later = (Object[]) back[2];
            store.inTransaction(() -> items.add("c"));
            assertEquals(List.of("a", "b", "c"), back[1], "after a reload too");
            assertEquals(List.of("a", "b", "c"), later[1], "a view made around a list read back from the store");
            assertEquals(java.util.Set.of("k"), later[0], "a view of what Perpetua does not store (a key set): a copy");
            assertThrows(UnsupportedOperationException.class, () -> ((java.util.Set<?>) later[0]).clear());
        }
    }

    /**
     * Java 21's {@code Collections.unmodifiableSequenced*} views are stored as the other
     * unmodifiable views are: a reference to what they wrap, which they still show after a
     * reload. (Looked up by name: this test runs on the newest JDK of CI, and is skipped on 17.)
     */
    @Test
    void theSequencedUnmodifiableViewsOfJava21StayViews() throws Throwable {
        java.lang.invoke.MethodHandle collection;
        java.lang.invoke.MethodHandle set;
        java.lang.invoke.MethodHandle map;
        try {
            collection = sequenced("Collection");
            set = sequenced("Set");
            map = sequenced("Map");
        } catch (ClassNotFoundException e) {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "before Java 21");
            return;
        }
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            List<String> items = new ArrayList<>(List.of("a"));
            java.util.LinkedHashSet<String> tags = new java.util.LinkedHashSet<>(List.of("t"));
            java.util.LinkedHashMap<String, Integer> counts = new java.util.LinkedHashMap<>(Map.of("k", 1));
            Object[] views = {items, tags, counts, collection.invoke(items), set.invoke(tags), map.invoke(counts)};
            store.inTransaction(() -> {
                Node n = new Node("owner");
                n.any(views);
                store.persist(n, "owner");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("owner", Node.class).any();
            store.inTransaction(() -> {
                @SuppressWarnings("unchecked") List<String> items = (List<String>) back[0];
                @SuppressWarnings("unchecked") Set<String> tags = (Set<String>) back[1];
                @SuppressWarnings("unchecked") Map<String, Integer> counts = (Map<String, Integer>) back[2];
                items.add("b");
                tags.add("u");
                counts.put("l", 2);
            });
            assertEquals(List.of("a", "b"), new ArrayList<>((java.util.Collection<?>) back[3]));
            assertEquals(Set.of("t", "u"), back[4]);
            assertEquals(Map.of("k", 1, "l", 2), back[5]);
            assertEquals("java.util.Collections$UnmodifiableSequencedMap", back[5].getClass().getName());
            assertThrows(UnsupportedOperationException.class, () -> ((Set<?>) back[4]).clear());
        }
    }

    private static java.lang.invoke.MethodHandle sequenced(String kind) throws Exception {
        Class<?> type = Class.forName("java.util.Sequenced" + kind);
        return java.lang.invoke.MethodHandles.publicLookup().findStatic(Collections.class, "unmodifiableSequenced" + kind,
                java.lang.invoke.MethodType.methodType(type, type));
    }

    /**
     * The key set of a synchronized map is a synchronized set whose lock is the map: only the
     * set's own fields are looked at to find what it wraps (a key set, stored as a copy), not
     * the map, whose values are not serializable.
     */
    @Test
    void aSynchronizedViewLockedByItsMapIsStoredAsACopy() {
        Map<String, Node> map = Collections.synchronizedMap(new HashMap<>(Map.of("k", new Node("not serializable"))));
        Object back = roundTrip(map.keySet());
        assertEquals(Set.of("k"), back);
        assertSame(map.keySet().getClass(), back.getClass());
    }

    /**
     * A wrapper is stored as a reference to what it wraps: held by the program too, the wrapped
     * map is one map after a reload, a change through the wrapper is saved in it, and it keeps
     * its own class and comparator (a TreeMap stays sorted).
     */
    @Test
    void aSynchronizedWrapperSharesWhatItWraps() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                TreeMap<String, Integer> sorted = new TreeMap<>(new ByLength());
                sorted.put("bb", 2);
                Node n = new Node("wrapper");
                n.any(new Object[] {Collections.synchronizedMap(sorted), sorted});
                store.persist(n, "wrapper");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("wrapper", Node.class).any();
            @SuppressWarnings("unchecked") Map<String, Integer> wrapper = (Map<String, Integer>) back[0];
            store.inTransaction(() -> {
                wrapper.put("a", 1);
                wrapper.put("ccc", 3);
            });
            assertEquals(List.of("a", "bb", "ccc"), List.copyOf(((TreeMap<?, ?>) back[1]).keySet()),
                    "the wrapped map is the one the program holds, still sorted by its comparator");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("wrapper", Node.class).any();
            TreeMap<?, ?> sorted = (TreeMap<?, ?>) back[1];
            assertEquals(List.of("a", "bb", "ccc"), List.copyOf(sorted.keySet()), "the changes made through the wrapper were saved");
            assertInstanceOf(ByLength.class, sorted.comparator());
            assertEquals(sorted.toString(), back[0].toString());
        }
    }

    private static java.util.Properties properties(Map<String, String> entries) {
        java.util.Properties p = new java.util.Properties();
        p.putAll(entries);
        return p;
    }

    @Test
    void propertiesChangedInPlaceAreSaved() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            persistHolder(store, properties(Map.of("a", "1")));
            store.inTransaction(() -> ((java.util.Properties) store.fetch("holder", Node.class).any()).setProperty("b", "2"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            java.util.Properties back = (java.util.Properties) store.fetch("holder", Node.class).any();
            assertEquals("1", back.getProperty("a"));
            assertEquals("2", back.getProperty("b"));
        }
    }

    private static java.util.Stack<String> stack(List<String> elements) {
        java.util.Stack<String> s = new java.util.Stack<>();
        s.addAll(elements);
        return s;
    }

    @Test
    void arrayDequeKeepsItsOrderAndClass() {
        ArrayDeque<Object> deque = new ArrayDeque<>(List.of("first", 2, "third"));
        Object back = roundTrip(deque);
        assertInstanceOf(ArrayDeque.class, back);
        assertEquals(List.copyOf(deque), List.copyOf((ArrayDeque<?>) back), "ArrayDeque has no equals: compare in order");
    }

    @Test
    void sortedCollectionsKeepTheirComparator() {
        TreeMap<String, Integer> m = new TreeMap<>(new ByLength());
        m.put("bb", 2);
        @SuppressWarnings("unchecked") TreeMap<String, Integer> back = (TreeMap<String, Integer>) roundTrip(m);
        back.put("a", 1);
        back.put("ccc", 3);
        assertEquals(List.of("a", "bb", "ccc"), List.copyOf(back.keySet()));
        assertInstanceOf(ByLength.class, back.comparator());
    }

    @Test
    void arraysOfEveryKindAndDimension() {
        Object[] arrays = {
            new int[] {1, -2, Integer.MAX_VALUE}, new long[] {Long.MIN_VALUE, 0}, new byte[] {-1, 0, 1},
            new short[] {-5}, new char[] {'a', '\uffff'}, new boolean[] {true, false}, new float[] {1.25f},
            new double[] {Math.PI}, new String[] {"a", null}, new int[][] {{1, 2}, {}, null},
            new Node[] {new Node("n")}, new Object[][][] {{{"deep"}}}, new Color[] {Color.RED}, new int[0],
        };
        String[] nodeName = new String[1];
        Object[] back = (Object[]) roundTrip(arrays, b -> nodeName[0] = ((Node[]) ((Object[]) b)[10])[0].name());
        assertEquals(arrays.length, back.length);
        for (int i = 0; i < arrays.length; i++) {
            assertSame(arrays[i].getClass(), back[i].getClass(), "array class kept at " + i);
        }
        assertArrayEquals(Arrays.copyOf(arrays, 10), Arrays.copyOf(back, 10));
        assertEquals("n", nodeName[0]);
        assertEquals("deep", ((Object[][][]) back[11])[0][0][0]);
        assertSame(Color.RED, ((Color[]) back[12])[0]);
    }

    @Test
    void aPatternKeepsItsExpressionAndFlags() {
        Pattern p = Pattern.compile("^a+ b$", Pattern.CASE_INSENSITIVE | Pattern.MULTILINE | Pattern.COMMENTS);
        Pattern back = (Pattern) roundTrip(p);
        assertEquals(p.pattern(), back.pattern());
        assertEquals(p.flags(), back.flags());
        assertTrue(back.matcher("x\nAAB").find(), "the flags apply: case-insensitive, multi-line, comments");
    }

    @Test
    void aPathOfAnotherFileSystemIsRefusedWithItsPath(@TempDir Path tmp) throws Exception {
        Path zip = tmp.resolve("z.zip");
        try (FileSystem fs = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
            Path inZip = fs.getPath("/inside.txt");
            NotPersistableException e = refusedInHolder(inZip);
            assertEquals("\"holder\".any", e.path());
            assertTrue(e.getMessage().contains("file system other than the default one"), e.getMessage());
        }
    }

    /**
     * A class is stored by name, so one that no other JVM finds by that name is refused at
     * commit, with its path: a hidden class, or one of a class loader the store does not read
     * with (found there as another class, or not at all).
     */
    @Test
    void aClassNotFoundAgainByItsNameIsRefusedWithItsPath() throws Exception {
        Runnable lambda = () -> { };
        Class<?> elsewhere;
        try (java.net.URLClassLoader other = new java.net.URLClassLoader(
                new java.net.URL[] {Point.class.getProtectionDomain().getCodeSource().getLocation()}, null)) {
            elsewhere = other.loadClass(Point.class.getName());
        }
        assertNotSame(Point.class, elsewhere);
        for (Object refused : List.of(lambda.getClass(), elsewhere, java.lang.reflect.Array.newInstance(elsewhere, 0).getClass())) {
            NotPersistableException e = refusedInHolder(List.of(refused));
            assertEquals("\"holder\".any[0]", e.path());
            assertEquals("java.lang.Class", e.className());
            assertTrue(e.reason().contains(((Class<?>) refused).getName()), e.getMessage());
            assertTrue(e.reason().contains(refused == lambda.getClass() ? "hidden class"
                    : "finds another class of that name"), e.getMessage());
        }
    }

    static Stream<Arguments> holders() {
        java.util.BitSet bits = new java.util.BitSet();
        bits.set(0);
        bits.set(64);
        bits.set(1000);
        return Stream.of(new java.util.Date(-1_234_567L), new StringBuilder("héllo \uD83D\uDE00"),
                        new StringBuffer("buffer"), new java.util.concurrent.atomic.AtomicInteger(-7),
                        new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE),
                        new java.util.concurrent.atomic.AtomicBoolean(true), bits, new java.util.BitSet(),
                        timestamp(-1_234_567L, 123_456_789), new java.sql.Date(86_400_000L * 365), new java.sql.Time(45_296_000L),
                        new java.util.concurrent.atomic.AtomicReference<>(List.of("a", 1)))
                .map(h -> Arguments.of(h.getClass().getSimpleName(), h));
    }

    /** What a holder holds, as a string: StringBuilder and the atomic classes do not override equals. */
    private static String held(Object h) {
        if (h instanceof java.sql.Timestamp t) {
            return "timestamp " + t.getTime() + " " + t.getNanos();
        }
        return h instanceof java.util.Date d ? "date " + d.getTime() : h.getClass().getSimpleName() + " " + h;
    }

    private static java.sql.Timestamp timestamp(long millis, int nanos) {
        java.sql.Timestamp t = new java.sql.Timestamp(millis);
        t.setNanos(nanos);
        return t;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("holders")
    void holdersComeBackAsTheirOwnClassWithTheirValue(String what, Object holder) {
        Object back = roundTrip(holder);
        assertSame(holder.getClass(), back.getClass(), what);
        assertEquals(held(holder), held(back), what);
    }

    @Test
    void holdersChangedInPlaceAreSavedAndSharedOnesStayShared() {
        String uri = TestStores.newUri();
        java.util.Date date = new java.util.Date(1000);
        try (PersistentStore store = TestStores.open(uri)) {
            persistHolder(store, new Object[] {date, new StringBuilder("a"), new java.util.concurrent.atomic.AtomicLong(1),
                    new java.util.BitSet(), date});
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Object[] back = (Object[]) store.fetch("holder", Node.class).any();
                ((java.util.Date) back[0]).setTime(2000);
                ((StringBuilder) back[1]).append("b");
                ((java.util.concurrent.atomic.AtomicLong) back[2]).incrementAndGet();
                ((java.util.BitSet) back[3]).set(5);
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("holder", Node.class).any();
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> ((java.util.Date) back[0]).setTime(2000)); // the value it holds already
            assertEquals(written, store.statistics().recordsWritten(), "unchanged holders are not written again");
            assertEquals(2000, ((java.util.Date) back[0]).getTime());
            assertSame(back[0], back[4], "one Date held twice is one Date after a reload");
            assertEquals("ab", back[1].toString());
            assertEquals(2, ((java.util.concurrent.atomic.AtomicLong) back[2]).get());
            assertTrue(((java.util.BitSet) back[3]).get(5));
        }
    }

    /**
     * The locks a class keeps in fields: a plain Object keeps its identity (two objects that
     * synchronized on one lock still do), and a ReentrantLock or ReentrantReadWriteLock keeps
     * its fairness and comes back unlocked, held or not at commit, as Java serialization brings
     * one back.
     */
    @Test
    void locksInFieldsKeepTheirIdentityAndFairnessAndComeBackUnlocked() {
        String uri = TestStores.newUri();
        java.util.concurrent.locks.ReentrantLock held = new java.util.concurrent.locks.ReentrantLock(true);
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Object lock = new Object();
                Node a = new Node("a");
                a.any(lock);
                Node b = new Node("b");
                b.any(lock);
                a.next(b);
                Node c = new Node("c");
                c.any(held);
                b.next(c);
                Node d = new Node("d");
                d.any(new java.util.concurrent.locks.ReentrantReadWriteLock(true));
                c.next(d);
                Node e = new Node("e");
                e.any(new java.util.concurrent.locks.ReentrantLock());
                d.next(e);
                held.lock();
                store.persist(a, "a");
            });
        }
        assertTrue(held.isHeldByCurrentThread());
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            Node b = a.next();
            assertSame(Object.class, a.any().getClass());
            assertSame(a.any(), b.any(), "one lock of two objects is one lock after a reload");
            var c = (java.util.concurrent.locks.ReentrantLock) b.next().any();
            assertTrue(c.isFair());
            assertTrue(!c.isLocked(), "held at commit, unlocked when read");
            var d = (java.util.concurrent.locks.ReentrantReadWriteLock) b.next().next().any();
            assertTrue(d.isFair());
            var e = (java.util.concurrent.locks.ReentrantLock) b.next().next().next().any();
            assertTrue(!e.isFair());
            assertTrue(c.tryLock(), "a lock read back works");
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> a.value(1));
            assertEquals(written + 1, store.statistics().recordsWritten(), "a lock held is not written again");
            c.unlock();
        }
        held.unlock();
    }

    /**
     * A plain Object anywhere but in a field may be another class's marker constant, which
     * would come back as another object: refused, with its path.
     */
    @Test
    void aPlainObjectInACollectionIsRefusedWithItsPath() {
        NotPersistableException e = refusedInHolder(new ArrayList<>(List.of("x", new Object())));
        assertEquals("\"holder\".any[1]", e.path());
        assertEquals("java.lang.Object", e.className());
        assertTrue(e.reason().contains("marker constant"), e.getMessage());
    }

    /** JDK classes stored by their own Java serialization, each with what shows its state. */
    static Stream<Arguments> serialized() throws Exception {
        java.util.Random random = new java.util.Random(42);
        random.nextInt();
        java.util.GregorianCalendar calendar = new java.util.GregorianCalendar(java.util.TimeZone.getTimeZone("Asia/Tokyo"));
        calendar.setTimeInMillis(1_600_000_000_000L);
        java.util.concurrent.atomic.LongAdder adder = new java.util.concurrent.atomic.LongAdder();
        adder.add(5);
        TreeMap<String, Integer> reverseIgnoringCase = new TreeMap<>(Collections.reverseOrder(String.CASE_INSENSITIVE_ORDER));
        reverseIgnoringCase.putAll(Map.of("b", 2, "A", 1, "c", 3));
        return Stream.of(
                Arguments.of(random, (java.util.function.Function<Object, Object>) r -> ((java.util.Random) r).ints(5).boxed().toList()),
                Arguments.of(calendar, java.util.function.Function.identity()),
                Arguments.of(java.util.TimeZone.getTimeZone("Europe/Paris"), java.util.function.Function.identity()),
                Arguments.of(new java.text.SimpleDateFormat("yyyy-MM-dd HH:mm", Locale.FRANCE), java.util.function.Function.identity()),
                Arguments.of(new java.text.DecimalFormat("#,##0.00"), java.util.function.Function.identity()),
                Arguments.of(java.net.InetAddress.getByAddress("db.example.org", new byte[] {10, 0, 0, 7}),
                        (java.util.function.Function<Object, Object>) a -> a.toString()),
                Arguments.of(java.net.InetSocketAddress.createUnresolved("example.org", 8080), java.util.function.Function.identity()),
                Arguments.of(new java.util.concurrent.atomic.AtomicIntegerArray(new int[] {3, 1, 2}),
                        (java.util.function.Function<Object, Object>) a -> a.toString()),
                Arguments.of(adder, (java.util.function.Function<Object, Object>) a -> ((java.util.concurrent.atomic.LongAdder) a).sum()),
                Arguments.of(new java.util.concurrent.Semaphore(3, true),
                        (java.util.function.Function<Object, Object>) s -> ((java.util.concurrent.Semaphore) s).availablePermits()),
                Arguments.of(new IllegalStateException("boom", new java.io.IOException("cause")),
                        (java.util.function.Function<Object, Object>) e -> ((Throwable) e).getMessage() + " / "
                                + ((Throwable) e).getCause().getMessage() + " / " + ((Throwable) e).getStackTrace().length),
                Arguments.of(java.time.Clock.systemUTC(), java.util.function.Function.identity()),
                Arguments.of(reverseIgnoringCase, (java.util.function.Function<Object, Object>) m -> List.copyOf(((Map<?, ?>) m).keySet())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serialized")
    void jdkClassesStoredByTheirSerializationComeBackAsTheyWere(Object value, java.util.function.Function<Object, Object> state) {
        Object expected = state.apply(JdkSerialized.read(JdkSerialized.write(value, "value", null), "copy", null));
        Object back = roundTrip(value);
        assertSame(value.getClass(), Containers.storedClass(back));
        assertEquals(expected, state.apply(back));
    }

    /**
     * A JDK object stored by its serialization keeps its identity (two objects that shared a
     * Random still do), what is changed in it is saved (the sequence goes on where it was), and
     * an object of the application inside one is refused with the path.
     */
    @Test
    void aSerializedJdkObjectKeepsItsIdentityAndItsChangesAndHoldsOnlyJdkObjects() {
        String uri = TestStores.newUri();
        java.util.Random expected = new java.util.Random(7);
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> persistHeldByTwo(store, new java.util.Random(7)));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            assertSame(a.any(), a.next().any(), "one Random of two objects is one Random after a reload");
            java.util.Random r = (java.util.Random) a.any();
            store.inTransaction(() -> assertEquals(expected.nextLong(), r.nextLong()));
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> a.value(1));
            assertEquals(written + 1, store.statistics().recordsWritten(), "an unchanged Random is not written again");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            java.util.Random r = (java.util.Random) store.fetch("a", Node.class).any();
            assertEquals(expected.nextLong(), r.nextLong(), "the sequence goes on where the last commit left it");

            NotPersistableException e = refusedInHolder(store,
                    new java.util.concurrent.atomic.AtomicReferenceArray<>(new Object[] {"x", new Node("inside")}));
            assertEquals("\"holder\".any", e.path());
            assertEquals("java.util.concurrent.atomic.AtomicReferenceArray", e.className());
            assertTrue(e.reason().contains(Node.class.getName()) && e.reason().contains("not the JDK's"), e.getMessage());
        }
    }

    /**
     * What the README says of an abort and a JDK object stored by its serialization: one whose
     * state public methods reach (a Calendar, an atomic array, an adder, a Random) is put back,
     * and the next commit has nothing of the aborted transaction to write.
     */
    @Test
    void anAbortPutsBackSerializedObjectsWhosePublicMethodsReachTheirState() {
        String uri = TestStores.newUri();
        java.util.Random expected = new java.util.Random(4);
        try (PersistentStore store = TestStores.open(uri)) {
            java.util.GregorianCalendar committed = new java.util.GregorianCalendar(java.util.TimeZone.getTimeZone("UTC"));
            committed.setTimeInMillis(1_000_000L);
            java.util.concurrent.atomic.LongAdder sum = new java.util.concurrent.atomic.LongAdder();
            sum.add(7);
            persistHolder(store, new Object[] {new java.util.Random(4), committed,
                    new java.util.concurrent.atomic.AtomicIntegerArray(new int[] {1, 2}), sum});
            Object[] held = (Object[]) store.fetch("holder", Node.class).any();
            java.util.Random r = (java.util.Random) held[0];
            var calendar = (java.util.GregorianCalendar) held[1];
            var array = (java.util.concurrent.atomic.AtomicIntegerArray) held[2];
            var adder = (java.util.concurrent.atomic.LongAdder) held[3];
            store.beginTransaction();
            long first = expected.nextLong();
            assertEquals(first, r.nextLong());
            calendar.setTimeZone(java.util.TimeZone.getTimeZone("Asia/Tokyo"));
            calendar.add(java.util.Calendar.DAY_OF_MONTH, 3);
            array.set(1, 20);
            adder.add(100);
            store.abortTransaction();
            assertEquals(1_000_000L, calendar.getTimeInMillis());
            assertEquals("UTC", calendar.getTimeZone().getID());
            assertEquals("[1, 2]", array.toString());
            assertEquals(7, adder.sum());
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> store.persist(new Node("another"), "another"));
            assertEquals(written + 1, store.statistics().recordsWritten(), "nothing put back is written again");
            assertEquals(first, r.nextLong(), "the abort put the seed back: the aborted draw comes again");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] held = (Object[]) store.fetch("holder", Node.class).any();
            assertEquals(new java.util.Random(4).nextLong(), ((java.util.Random) held[0]).nextLong(),
                    "the store kept the committed seed");
            assertEquals(1_000_000L, ((java.util.Calendar) held[1]).getTimeInMillis());
            assertEquals("UTC", ((java.util.Calendar) held[1]).getTimeZone().getID());
            assertEquals("[1, 2]", held[2].toString());
            assertEquals(7, ((java.util.concurrent.atomic.LongAdder) held[3]).sum());
        }
    }

    /**
     * A Random committed with a second Gaussian value kept, and numbers drawn after it, is put
     * back by an abort with that value kept: it goes on as one that never saw the transaction.
     */
    @Test
    void anAbortPutsBackARandomsKeptGaussianValue() {
        String uri = TestStores.newUri();
        java.util.Random twin = new java.util.Random(99);
        try (PersistentStore store = TestStores.open(uri)) {
            java.util.Random r = new java.util.Random(99);
            for (java.util.Random each : new java.util.Random[] {r, twin}) {
                each.nextGaussian(); // keeps the second value of its pair
                each.nextInt();
                each.nextLong(); // three steps after it
            }
            persistHolder(store, new Object[] {r});
        }
        try (PersistentStore store = TestStores.open(uri)) {
            java.util.Random r = (java.util.Random) ((Object[]) store.fetch("holder", Node.class).any())[0];
            store.beginTransaction();
            for (int i = 0; i < 10; i++) {
                r.nextGaussian();
                r.nextInt(50);
            }
            store.abortTransaction();
            assertEquals(twin.nextGaussian(), r.nextGaussian(), "the kept value");
            for (int i = 0; i < 10; i++) {
                assertEquals(twin.nextGaussian(), r.nextGaussian());
                assertEquals(twin.nextInt(), r.nextInt());
            }
        }
    }

    /**
     * Serialized JDK objects are compared at every commit while resident, but not those that can
     * never change: of an InetSocketAddress, a fixed Clock, a reverse comparator and two Randoms
     * read back in an array, a commit compares the array and the two Randoms only.
     */
    @Test
    void immutableSerializedObjectsAreNotComparedByEachCommit() throws Exception {
        String uri = TestStores.newUri();
        java.util.Random random = new java.util.Random(1);
        Object[] held = {new java.net.InetSocketAddress(java.net.InetAddress.getByAddress(new byte[] {10, 0, 0, 1}), 8080),
                java.time.Clock.fixed(java.time.Instant.EPOCH, java.time.ZoneOffset.UTC),
                Collections.reverseOrder(String.CASE_INSENSITIVE_ORDER), random, new java.util.Random(2)};
        try (PersistentStore store = TestStores.open(uri)) {
            persistHolder(store, held);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node holder = store.fetch("holder", Node.class);
            Object[] read = (Object[]) holder.any();
            assertEquals(held[0], read[0]);
            assertEquals(held[1], read[1]);
            assertEquals(random.nextInt(), ((java.util.Random) read[3]).nextInt()); // resident, and changed
            store.inTransaction(() -> holder.value(1));
            assertEquals(3, store.statistics().comparedContainers(), "the array and the two Randoms, not the immutable three");
            store.inTransaction(() -> holder.value(2)); // the Random changed in place is saved all the same
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] read = (Object[]) store.fetch("holder", Node.class).any();
            assertEquals(random.nextInt(), ((java.util.Random) read[3]).nextInt());
        }
    }

    /** A SecureRandom is stored as its algorithm: read back, it is seeded anew, so two readers never draw alike. */
    @Test
    void aSecureRandomComesBackSeededAnew() throws Exception {
        String uri = TestStores.newUri();
        java.security.SecureRandom random = java.security.SecureRandom.getInstance("SHA1PRNG");
        random.setSeed(1);
        try (PersistentStore store = TestStores.open(uri)) {
            persistHolder(store, random);
        }
        long[] drawn = new long[2];
        for (int i = 0; i < 2; i++) {
            try (PersistentStore store = TestStores.open(uri)) {
                java.security.SecureRandom back = (java.security.SecureRandom) store.fetch("holder", Node.class).any();
                assertEquals("SHA1PRNG", back.getAlgorithm());
                drawn[i] = back.nextLong();
            }
        }
        assertNotEquals(drawn[0], drawn[1], "each reader draws its own numbers");
    }

    /**
     * An abort puts back what a transaction changed in place in a holder or a synchronized
     * wrapper, as in any other container: the program sees the committed value again, and the
     * next commit does not write the aborted change.
     */
    @Test
    void anAbortPutsBackHoldersAndWrappersChangedInPlace() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            persistHolder(store, new Object[] {new java.util.Date(1000), new StringBuilder("a"), new java.util.concurrent.atomic.AtomicInteger(1),
                    new java.util.BitSet(), timestamp(1000, 5), Collections.synchronizedList(new ArrayList<>(List.of("a"))),
                    Collections.synchronizedMap(new HashMap<>(Map.of("k", 1))),
                    new java.util.concurrent.atomic.AtomicReference<>("r")});
            Object[] held = (Object[]) store.fetch("holder", Node.class).any();
            String committed = describe(held);
            store.beginTransaction();
            ((java.util.Date) held[0]).setTime(2000);
            ((StringBuilder) held[1]).append("b");
            ((java.util.concurrent.atomic.AtomicInteger) held[2]).set(2);
            ((java.util.BitSet) held[3]).set(3);
            ((java.sql.Timestamp) held[4]).setNanos(6);
            @SuppressWarnings("unchecked") List<String> list = (List<String>) held[5];
            list.add("b");
            @SuppressWarnings("unchecked") Map<String, Integer> map = (Map<String, Integer>) held[6];
            map.put("l", 2);
            @SuppressWarnings("unchecked") java.util.concurrent.atomic.AtomicReference<String> ref =
                    (java.util.concurrent.atomic.AtomicReference<String>) held[7];
            ref.set("s");
            assertNotEquals(committed, describe(held));
            store.abortTransaction();
            assertEquals(committed, describe(held), "the program sees the committed values again");
            store.inTransaction(() -> store.persist(new Node("another"), "another"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("holder", Node.class).any();
            assertEquals("date 1000|StringBuilder a|AtomicInteger 1|BitSet {}|timestamp 1000 5|SynchronizedRandomAccessList [a]"
                    + "|SynchronizedMap {k=1}|AtomicReference r", describe(back), "nothing aborted was written by the next commit");
        }
    }

    /**
     * An AtomicReference holds a reference: to an object of the store, shared and in a cycle
     * through it, and what set() puts in it is saved.
     */
    @Test
    void anAtomicReferenceHoldsObjectsOfTheStoreAndCycles() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("start");
                java.util.concurrent.atomic.AtomicReference<Object> ref = new java.util.concurrent.atomic.AtomicReference<>(n);
                n.any(new Object[] {ref, ref});
                store.persist(n, "start");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("start", Node.class);
            Object[] refs = (Object[]) n.any();
            assertSame(refs[0], refs[1], "one AtomicReference held twice is one after a reload");
            @SuppressWarnings("unchecked") java.util.concurrent.atomic.AtomicReference<Object> ref =
                    (java.util.concurrent.atomic.AtomicReference<Object>) refs[0];
            assertSame(n, ref.get(), "the cycle through it comes back as a cycle");
            store.inTransaction(() -> ref.set(new Node("set later")));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] refs = (Object[]) store.fetch("start", Node.class).any();
            assertEquals("set later", ((Node) ((java.util.concurrent.atomic.AtomicReference<?>) refs[0]).get()).name());
        }
    }

    /** A SimpleEntry's setValue is saved, and undone by an abort; a Map.entry holds an object of the store. */
    @Test
    void entriesHoldObjectsAndASimpleEntryChangesInPlace() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("entries");
                n.any(new Object[] {new java.util.AbstractMap.SimpleEntry<>("k", 1), Map.entry("node", new Node("in an entry"))});
                store.persist(n, "entries");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("entries", Node.class).any();
            @SuppressWarnings("unchecked") Map.Entry<String, Integer> e = (Map.Entry<String, Integer>) back[0];
            assertEquals(Map.entry("k", 1), e);
            assertEquals("in an entry", ((Node) ((Map.Entry<?, ?>) back[1]).getValue()).name());
            store.beginTransaction();
            e.setValue(3);
            store.abortTransaction();
            assertEquals(1, e.getValue(), "abort puts the value back");
            store.inTransaction(() -> e.setValue(2));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("entries", Node.class).any();
            assertEquals(Map.entry("k", 2), back[0]);
        }
    }

    private static String describe(Object[] holders) {
        return Arrays.stream(holders).map(TypesRoundTripTest::held).collect(java.util.stream.Collectors.joining("|"));
    }

    /**
     * The collector walks every value of a record: those of formats 4 and 5 included, and a node
     * after them, or inside a synchronized wrapper, still reached.
     */
    @Test
    void theCollectorReadsPastTheJdkValueClasses() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("holder");
                n.any(new Object[] {Locale.JAPAN, legacyLocale("en", "US", "a b"), Currency.getInstance("EUR"),
                        URI.create("urn:x"), fileUrl("/tmp/u"), Path.of("/tmp/p"), new File("f"), Pattern.compile("p"),
                        StandardCharsets.UTF_8, properties(Map.of("k", "v")), new java.util.Date(3),
                        new java.util.BitSet(), new Node("after them"), timestamp(4, 5),
                        Collections.synchronizedList(new ArrayList<>(List.of(new Node("in a wrapper")))),
                        Collections.synchronizedSortedMap(new TreeMap<>(Map.of("k", new Node("in a sorted wrapper")))),
                        new java.util.concurrent.atomic.AtomicReference<>(new Node("in a reference")),
                        Collections.synchronizedCollection(new HashMap<>(Map.of("k", new Node("in a copied view"))).values()),
                        Node[].class, new Node("after a class"), new java.util.Random(3), new Node("after a Random"),
                        new java.util.concurrent.LinkedBlockingQueue<>(List.of(new Node("in a bounded queue"))),
                        new java.util.concurrent.ConcurrentHashMap<String, Object>(Map.of("k", new Node("in a viewed map"))).keySet("v")});
                store.persist(n, "holder");
                store.persist(new Node("garbage"), "g");
            });
            store.inTransaction(() -> store.unbind("g"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(1, store.collectGarbage(), "the unbound node only (nothing is resident)");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] back = (Object[]) store.fetch("holder", Node.class).any();
            assertEquals(Locale.JAPAN, back[0]);
            assertEquals("after them", ((Node) back[12]).name());
            assertEquals("in a wrapper", ((Node) ((List<?>) back[14]).get(0)).name());
            assertEquals("in a sorted wrapper", ((Node) ((Map<?, ?>) back[15]).get("k")).name());
            assertEquals("in a reference", ((Node) ((java.util.concurrent.atomic.AtomicReference<?>) back[16]).get()).name());
            assertEquals("in a copied view", ((Node) ((Collection<?>) back[17]).iterator().next()).name());
            assertSame(Node[].class, back[18]);
            assertEquals("after a class", ((Node) back[19]).name());
            assertEquals(new java.util.Random(3).nextInt(), ((java.util.Random) back[20]).nextInt());
            assertEquals("after a Random", ((Node) back[21]).name());
            assertEquals("in a bounded queue", ((Node) ((Collection<?>) back[22]).iterator().next()).name());
            assertEquals("in a viewed map", ((Node) ((java.util.concurrent.ConcurrentHashMap.KeySetView<?, ?>) back[23])
                    .getMap().get("k")).name());
        }
    }

    @Test
    void valuesBoundToANameByThemselves() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                store.persist("just a string", "s");
                store.persist(new Point(1, 2, "p"), "record");
                store.persist(new ArrayList<>(List.of(1, 2)), "list");
                store.persist(Locale.CANADA_FRENCH, "locale");
                store.persist(Path.of("/srv/data"), "path");
                store.persist(new java.util.concurrent.atomic.AtomicLong(5), "counter");
                store.persist(Node.class, "class");
                store.persist(new java.util.Random(9), "random");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("just a string", store.fetch("s"));
            assertEquals(new Point(1, 2, "p"), store.fetch("record"));
            assertEquals(List.of(1, 2), store.fetch("list"));
            assertEquals(Locale.CANADA_FRENCH, store.fetch("locale"));
            assertEquals(Path.of("/srv/data"), store.fetch("path"));
            assertEquals(5, ((java.util.concurrent.atomic.AtomicLong) store.fetch("counter")).get());
            assertSame(Node.class, store.fetch("class"));
            assertEquals(new java.util.Random(9).nextLong(), ((java.util.Random) store.fetch("random")).nextLong());
        }
    }

    /**
     * The Collections class's own immutable lists, sets and maps come back as their own class:
     * one that holds a null, and answers a query for one as before, where List.of's kinds throw.
     * The empty ones come back as the JDK's shared objects ({@code EMPTY_LIST} is
     * {@code emptyList()}, and {@code emptySortedSet()} is {@code emptyNavigableSet()}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("collectionsImmutables")
    void collectionsImmutablesComeBackAsTheirOwnClass(String what, Object value) {
        Object back = roundTrip(value);
        assertSame(value.getClass(), back.getClass(), what);
        assertEquals(value, back, what);
        assertEquals(nullQueries(value), nullQueries(back), what);
        if (List.of(Collections.emptyList(), Collections.emptySet(), Collections.emptyMap(), Collections.emptyNavigableSet(),
                Collections.emptyNavigableMap()).stream().anyMatch(shared -> shared == value)) {
            assertSame(value, back, what);
        }
    }

    static Stream<Arguments> collectionsImmutables() {
        return Stream.of(
                Arguments.of("emptyList", Collections.emptyList()),
                Arguments.of("emptySet", Collections.emptySet()),
                Arguments.of("emptyMap", Collections.emptyMap()),
                Arguments.of("emptySortedSet", Collections.emptySortedSet()),
                Arguments.of("emptySortedMap", Collections.emptySortedMap()),
                Arguments.of("singletonList", Collections.singletonList("a")),
                Arguments.of("singletonList of null", Collections.singletonList(null)),
                Arguments.of("singleton", Collections.singleton("s")),
                Arguments.of("singleton of null", Collections.singleton(null)),
                Arguments.of("singletonMap", Collections.singletonMap("k", "v")),
                Arguments.of("singletonMap of nulls", Collections.singletonMap(null, null)),
                Arguments.of("nCopies", Collections.nCopies(3, "n")),
                Arguments.of("nCopies of null", Collections.nCopies(2, null)),
                Arguments.of("nCopies, none", Collections.nCopies(0, "z")));
    }

    /** @return what a collection or map answers to queries for null: each answer, or the class of what it threw */
    @SuppressWarnings("unchecked")
    private static List<Object> nullQueries(Object container) {
        List<Supplier<Object>> queries = new ArrayList<>();
        if (container instanceof Collection<?> c) {
            queries.add(() -> c.contains(null));
        }
        if (container instanceof List<?> l) {
            queries.add(() -> l.indexOf(null));
            queries.add(() -> l.lastIndexOf(null));
        }
        if (container instanceof Map<?, ?> m) {
            queries.add(() -> m.get(null));
            queries.add(() -> m.containsKey(null));
            queries.add(() -> m.containsValue(null));
            queries.add(() -> ((Map<?, Object>) m).getOrDefault(null, "default"));
        }
        List<Object> answers = new ArrayList<>();
        for (Supplier<Object> q : queries) {
            try {
                answers.add(String.valueOf(q.get()));
            } catch (RuntimeException e) {
                answers.add(e.getClass());
            }
        }
        return answers;
    }

    /**
     * A singletonList holding an object that holds the list is read as a List.of one is: the
     * object is a hollow shell until touched, so the cycle is rebuilt. A cycle through an array
     * that is reached through the list first is reported, as for any immutable collection.
     */
    @Test
    void cyclesThroughASingletonListAreReadAsThroughAnyImmutableList() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node a = new Node("a");
                a.any(Collections.singletonList(a));
                store.persist(a, "a");
                Object[] array = new Object[1];
                List<Object> list = Collections.singletonList(array);
                array[0] = list;
                Node b = new Node("b");
                b.any(new Object[] {list, array});
                store.persist(b, "b");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            assertSame(Collections.singletonList(a).getClass(), a.any().getClass());
            assertSame(a, ((List<?>) a.any()).get(0), "the list holds the object that holds it");
            PersistentStoreException e = assertThrows(PersistentStoreException.class,
                    () -> store.fetch("b", Node.class).any());
            assertTrue(e.getMessage().contains("a cycle runs through an immutable collection"), e.getMessage());
        }
    }

    @Test
    void immutableCollectionsStayImmutable() {
        @SuppressWarnings("unchecked") List<Integer> back = (List<Integer>) roundTrip(List.of(1, 2));
        assertThrows(UnsupportedOperationException.class, () -> back.add(3));
        assertNotSame(null, back);
    }

    @SuppressWarnings("deprecation") // Locale.of is JDK 19+; the legacy constructor is what makes these locales
    private static Locale legacyLocale(String language, String country, String variant) {
        return new Locale(language, country, variant);
    }

    private static java.net.URL fileUrl(String path) {
        try {
            return new File(path).toURI().toURL();
        } catch (java.net.MalformedURLException e) {
            throw new AssertionError(e);
        }
    }

    /** Commits a node named "holder" whose field {@code any} holds {@code value}. */
    /**
     * In the caller's transaction: binds "a" to a node whose field {@code any} holds
     * {@code shared} and whose {@code next}, node "b", holds it too.
     */
    static void persistHeldByTwo(PersistentStore store, Object shared) {
        Node a = new Node("a");
        a.any(shared);
        Node b = new Node("b");
        b.any(shared);
        a.next(b);
        store.persist(a, "a");
    }

    static void persistHolder(PersistentStore store, Object value) {
        store.inTransaction(() -> {
            Node n = new Node("holder");
            n.any(value);
            store.persist(n, "holder");
        });
    }

    /**
     * Makes a node named "holder" whose field {@code any} holds {@code value} persistent and
     * commits, which must fail; aborts, and returns the failure.
     */
    static NotPersistableException refusedInHolder(PersistentStore store, Object value) {
        store.beginTransaction();
        Node n = new Node("holder");
        n.any(value);
        store.persist(n, "holder");
        NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
        store.abortTransaction();
        return e;
    }

    /** {@link #refusedInHolder(PersistentStore, Object)} in a new store. */
    static NotPersistableException refusedInHolder(Object value) {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            return refusedInHolder(store, value);
        }
    }

    /** Stores {@code value} in a node's field, reopens the store, and returns the field. */
    static Object roundTrip(Object value) {
        return roundTrip(value, v -> { });
    }

    /** As {@link #roundTrip(Object)}, running {@code whileOpen} on the result before the store closes. */
    static Object roundTrip(Object value, java.util.function.Consumer<Object> whileOpen) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            persistHolder(store, value);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object back = store.fetch("holder", Node.class).any();
            whileOpen.accept(back);
            return back;
        }
    }
}
