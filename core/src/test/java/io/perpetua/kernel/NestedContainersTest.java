package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Containers that hold containers, thousands deep (an {@code Object[]} holding an
 * {@code Object[]}, a map of maps as a parsed document makes), read back whole. Each is a
 * record of its own, read when its holder is; until session 25 that read recursed once per
 * level and overflowed the stack at about 700 levels, after the commit had stored them.
 */
class NestedContainersTest {

    /** Far deeper than the reads' recursion ever reached. */
    private static final int DEPTH = 3_000;
    /**
     * Deep enough that most of the chain is read in the loop ({@link Kernel#DEFER_DEPTH}); a
     * set hashing a list holding a set recurses through the whole chain in the JDK's own
     * hashCode, so it cannot be thousands deep on a small stack, with or without a store.
     */
    private static final int HASHED_DEPTH = 200;
    /** A chain through records, past {@link Kernel#DEFER_DEPTH}: read by a recursion, on a larger stack. */
    private static final int RECORD_DEPTH = 150;
    /** The reading thread's stack: the old recursion overflowed it within 300 levels. */
    private static final long STACK = 256 * 1024;

    /** A record whose constructor checks its list and may refuse: it must see its components whole. */
    record Checked(ArrayList<Object> items, int level) {
        static volatile int refuse = -1;

        Checked {
            if (level == refuse) {
                throw new IllegalArgumentException("refused at level " + level);
            }
            if (items.size() != 2 || !items.get(1).equals(level)) {
                throw new IllegalArgumentException("level " + level + " got its list before it was filled: " + items.size());
            }
        }
    }

    private static Object chain(String kind, int depth) {
        Object o = "leaf";
        for (int i = 0; i < depth; i++) {
            o = level(kind, i, o);
        }
        return o;
    }

    private static Object level(String kind, int i, Object inner) {
        switch (kind) {
            case "array":
                return new Object[] {inner, i};
            case "ArrayList":
                return new ArrayList<>(List.of(inner, i));
            case "HashMap": {
                Map<String, Object> m = new HashMap<>();
                m.put("child", inner);
                m.put("n", i);
                return m;
            }
            case "TreeMap": {
                TreeMap<Integer, Object> m = new TreeMap<>();
                m.put(i, inner);
                return m;
            }
            case "HashSet": {
                // the set hashes the list by its contents, which hold the rest of the chain
                Set<Object> s = new HashSet<>();
                s.add(new ArrayList<>(List.of(i, inner)));
                return s;
            }
            case "record":
                return new Checked(new ArrayList<>(List.of(inner, i)), i);
            case "mixed":
                return level(switch (i % 5) {
                    case 0 -> "array";
                    case 1 -> "HashMap";
                    case 2 -> "LinkedList";
                    case 3 -> "LinkedHashMap";
                    default -> "ArrayDeque";
                }, i, inner);
            case "LinkedList":
                return new LinkedList<>(List.of(inner, i));
            case "LinkedHashMap": {
                Map<Object, Object> m = new LinkedHashMap<>();
                m.put(List.of("key", i), inner); // a key hashed by its contents
                return m;
            }
            case "ArrayDeque":
                return new ArrayDeque<>(List.of(inner, i));
            case "unmodifiableList": // a view, stored as a reference to the list it wraps
                return Collections.unmodifiableList(new ArrayList<>(List.of(inner, i)));
            case "synchronizedMap":
                return Collections.synchronizedMap((Map<?, ?>) level("HashMap", i, inner));
            default:
                throw new IllegalArgumentException(kind);
        }
    }

    /** Walks a chain of {@code levels} down to its leaf, checking every level; @return how many levels it has */
    @SuppressWarnings("unchecked")
    private static int walk(Object o, int levels) {
        int depth = 0;
        while (!"leaf".equals(o)) {
            int expected = levels - 1 - depth;
            if (o instanceof Object[] a) {
                assertEquals(expected, a[1]);
                o = a[0];
            } else if (o instanceof TreeMap<?, ?> m) {
                assertEquals(expected, m.firstKey());
                o = m.firstEntry().getValue();
            } else if (o instanceof Map<?, ?> m && m.containsKey("child")) {
                assertEquals(expected, m.get("n"));
                o = m.get("child");
            } else if (o instanceof Map<?, ?> m) {
                Map.Entry<?, ?> e = m.entrySet().iterator().next();
                assertEquals(List.of("key", expected), e.getKey());
                assertEquals(e.getValue(), m.get(List.of("key", expected)), "the key hashes where the map put it");
                o = e.getValue();
            } else if (o instanceof Set<?> s) {
                List<Object> l = (List<Object>) s.iterator().next();
                assertTrue(s.contains(l), "the list hashes where the set put it, at level " + depth);
                assertEquals(expected, l.get(0));
                o = l.get(1);
            } else if (o instanceof Checked r) {
                assertEquals(expected, r.level());
                o = r.items().get(0);
            } else if (o instanceof Iterable<?> c) {
                List<Object> l = new ArrayList<>();
                c.forEach(l::add);
                assertEquals(expected, l.get(1));
                o = l.get(0);
            } else {
                throw new AssertionError("level " + depth + " holds " + o);
            }
            depth++;
        }
        return depth;
    }

    private static String stored(String kind, int depth) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(chain(kind, depth));
                store.persist(root, "root");
            });
        }
        return uri;
    }

    /** Runs {@code read} on a thread with a small stack; @return what it returned, or rethrows what it threw */
    private static <T> T onSmallStack(Supplier<T> read) throws InterruptedException {
        return onStack(STACK, read);
    }

    private static <T> T onStack(long stackSize, Supplier<T> read) throws InterruptedException {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                result.set(read.get());
            } catch (Throwable e) {
                result.set(e);
            }
        }, "stack-" + stackSize, stackSize);
        t.start();
        t.join();
        if (result.get() instanceof RuntimeException e) {
            throw e;
        }
        if (result.get() instanceof Throwable e) {
            throw new AssertionError(e);
        }
        @SuppressWarnings("unchecked")
        T value = (T) result.get();
        return value;
    }

    @ParameterizedTest
    @ValueSource(strings = {"array", "ArrayList", "HashMap", "TreeMap", "mixed", "unmodifiableList", "synchronizedMap"})
    void aChainThousandsDeepIsReadWhole(String kind) throws InterruptedException {
        String uri = stored(kind, DEPTH);
        try (PersistentStore store = TestStores.open(uri)) {
            int depth = onSmallStack(() -> walk(store.fetch("root", Node.class).any(), DEPTH));
            assertEquals(DEPTH, depth);
        }
    }

    /**
     * Below {@link Kernel#DEFER_DEPTH} the sets wait for their lists, and the lists for the
     * sets they hold: each set hashes its list once everything under it is filled.
     */
    @Test
    void setsHashTheirElementsOnceEverythingUnderThemIsFilled() throws InterruptedException {
        String uri = stored("HashSet", HASHED_DEPTH);
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(HASHED_DEPTH, (int) onSmallStack(() -> walk(store.fetch("root", Node.class).any(), HASHED_DEPTH)));
        }
    }

    /**
     * A record is made with its components, so a chain that runs through records is read by a
     * recursion: past {@link Kernel#DEFER_DEPTH} each record's list is filled before the
     * record's constructor sees it; past {@link Kernel#MAX_READ_DEPTH} the read fails, before
     * the stack overflows, with an error that says why, and fails the same way again: nothing
     * was left half read.
     */
    @Test
    void recordsGetTheirComponentsFilledAndAChainOfThemTooDeepIsReportedClearly() throws InterruptedException {
        String shallow = stored("record", RECORD_DEPTH);
        try (PersistentStore store = TestStores.open(shallow)) {
            assertEquals(RECORD_DEPTH, (int) onStack(4L << 20, () -> walk(store.fetch("root", Node.class).any(), RECORD_DEPTH)));
        }
        String deep = stored("record", DEPTH);
        try (PersistentStore store = TestStores.open(deep)) {
            for (int attempt = 0; attempt < 2; attempt++) {
                PersistentStoreException e = assertThrows(PersistentStoreException.class,
                        () -> onStack(1L << 20, () -> store.fetch("root", Node.class)));
                assertTrue(e.getMessage().contains("nests more than " + Kernel.MAX_READ_DEPTH + " reads deep"), e.getMessage());
            }
            assertEquals(1, store.statistics().residentObjects(), "the failed reads left the root's hollow shell, nothing else");
        }
    }

    private static Object builtChain(String kind, int depth) {
        Object o = "leaf";
        for (int i = 0; i < depth; i++) {
            o = switch (kind) {
                case "List.of" -> List.of(o, i);
                case "singletonList" -> Collections.singletonList(o);
                case "Map.entry" -> Map.entry(i, o);
                case "unmodifiableView" -> Collections.unmodifiableCollection(Collections.singleton(o));
                default -> throw new IllegalArgumentException(kind);
            };
        }
        return o;
    }

    /**
     * A chain of immutable collections, views or entries is read by a recursion, which fails
     * past {@link Kernel#MAX_READ_DEPTH}: the commit refuses a chain the read could not read
     * back, and stores nothing; one as deep as it accepts reads back whole.
     */
    @ParameterizedTest
    @ValueSource(strings = {"List.of", "singletonList", "Map.entry", "unmodifiableView"})
    void aChainOfImmutableCollectionsTooDeepToReadIsRefusedByTheCommit(String kind) throws InterruptedException {
        // a view over a set is two of them a level
        int accepted = kind.equals("unmodifiableView") ? Kernel.MAX_BUILT_CHAIN / 2 : Kernel.MAX_BUILT_CHAIN;
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            NotPersistableException e = assertThrows(NotPersistableException.class, () -> store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(builtChain(kind, DEPTH));
                store.persist(root, "root");
            }));
            assertTrue(e.getMessage().contains("nest more than " + Kernel.MAX_BUILT_CHAIN + " deep"), e.getMessage());
            assertTrue(e.path().startsWith("\"root\".any"), e.path());
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(builtChain(kind, accepted));
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object o = onStack(8L << 20, () -> store.fetch("root", Node.class).any());
            int depth = 0;
            while (!"leaf".equals(o)) {
                o = o instanceof Map.Entry<?, ?> entry ? entry.getValue() : ((Collection<?>) o).iterator().next();
                depth++;
            }
            assertEquals(accepted, depth);
        }
    }

    /** A record whose constructor reads an object, which is hollow until then. */
    record Touching(Node node) {
        Touching {
            if (!(node.any() instanceof Set<?> set) || set.size() != 3 || !set.contains("b")) {
                throw new IllegalArgumentException("the constructor saw " + node.any());
            }
        }
    }

    /**
     * A record deep in a chain, read while the chain's containers wait to be filled, reads an
     * object in its constructor: that read is one of its own, and fills the object's set before
     * it returns.
     */
    @Test
    void aReadThatARecordStartsMidChainReturnsWhole() throws InterruptedException {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node holder = new Node("holder");
                holder.any(new HashSet<>(List.of("a", "b", "c")));
                Object o = new Touching(holder);
                for (int i = 0; i < HASHED_DEPTH; i++) {
                    o = new ArrayList<>(List.of(o));
                }
                Node root = new Node("root");
                root.any(o);
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object o = onSmallStack(() -> store.fetch("root", Node.class).any());
            int depth = 0;
            while (o instanceof List<?> l) {
                o = l.get(0);
                depth++;
            }
            assertEquals(HASHED_DEPTH, depth);
            assertEquals(Set.of("a", "b", "c"), ((Touching) o).node().any());
        }
    }

    /** A shallow chain is read as before: each container as it is met, all resident at once. */
    @Test
    void aShallowChainIsReadWhole() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(chain("mixed", 20));
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object top = store.fetch("root", Node.class).any();
            assertEquals(20, walk(top, 20));
            assertInstanceOf(ArrayDeque.class, top);
        }
    }

    /**
     * A read that fails deep in a chain (a record's constructor refuses its components) leaves
     * nothing half read: the same read fails again, and reads whole once the refusal stops.
     */
    @Test
    void aReadThatFailsDeepInAChainLeavesNothingHalfRead() throws InterruptedException {
        String uri = stored("record", RECORD_DEPTH);
        try (PersistentStore store = TestStores.open(uri)) {
            Checked.refuse = 7; // near the leaf, far below DEFER_DEPTH
            try {
                for (int attempt = 0; attempt < 2; attempt++) {
                    PersistentStoreException e = assertThrows(PersistentStoreException.class,
                            () -> onStack(4L << 20, () -> store.fetch("root", Node.class)));
                    assertTrue(e.getMessage().contains("refused at level 7"), e.getMessage());
                }
            } finally {
                Checked.refuse = -1;
            }
            assertEquals(RECORD_DEPTH, (int) onStack(4L << 20, () -> walk(store.fetch("root", Node.class).any(), RECORD_DEPTH)));
        }
    }
}
