package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel loads ArrayList, HashMap, HashSet, ArrayDeque, TreeMap and TreeSet as tracked
 * subclasses and skips untouched ones at commit. A missed mutation path would lose changes
 * silently, so this test checks, on the JDK it runs on, that every public method of each class
 * is either overridden (and notes a touch) or known not to change the container.
 */
class TrackedCollectionsTest {

    /**
     * Methods that cannot change the container, or that change it only by calling methods the
     * tracked classes override (the JDK's reversed and sequenced views call the base object's
     * public mutators; sorted collections throw on addFirst/addLast/putFirst/putLast).
     */
    private static final Set<String> READ_ONLY = Set.of("get", "size", "isEmpty", "contains", "containsAll",
            "indexOf", "lastIndexOf", "toArray", "equals", "hashCode", "toString", "clone", "getClass", "notify",
            "notifyAll", "wait", "forEach", "stream", "parallelStream", "spliterator", "trimToSize",
            "ensureCapacity", "getOrDefault", "containsKey", "containsValue", "comparator", "first", "last",
            "firstKey", "lastKey", "floor", "ceiling", "higher", "lower", "floorKey", "ceilingKey", "higherKey",
            "lowerKey", "floorEntry", "ceilingEntry", "higherEntry", "lowerEntry", "firstEntry", "lastEntry",
            "peek", "peekFirst", "peekLast", "element", "getFirst", "getLast", "$perpetua$touched",
            "$perpetua$untouch", "reversed", "putFirst", "putLast", "removeFirst", "removeLast", "addFirst",
            "addLast", "sequencedKeySet", "sequencedValues", "sequencedEntrySet", "newHashMap", "newHashSet");

    static Stream<Arguments> trackedClasses() {
        return Stream.of(
                Arguments.of(TrackedArrayList.class), Arguments.of(TrackedHashMap.class), Arguments.of(TrackedHashSet.class),
                Arguments.of(TrackedArrayDeque.class), Arguments.of(TrackedTreeMap.class), Arguments.of(TrackedTreeSet.class));
    }

    @ParameterizedTest
    @MethodSource("trackedClasses")
    void everyPublicMethodIsOverriddenOrReadOnly(Class<?> tracked) {
        List<String> missed = new ArrayList<>();
        for (Method m : tracked.getSuperclass().getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || READ_ONLY.contains(m.getName())) {
                continue;
            }
            try {
                tracked.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missed.add(m.toString());
            }
        }
        assertEquals(List.of(), missed, "methods of " + tracked.getSuperclass().getName()
                + " that may change it but are not tracked on JDK " + Runtime.version().feature());
    }

    static Stream<Arguments> mutations() {
        return Stream.of(
                Arguments.of("list.add", (Consumer<Node>) n -> list(n).add("x")),
                Arguments.of("list.iterator().remove", (Consumer<Node>) n -> {
                    Iterator<Object> i = list(n).iterator();
                    i.next();
                    i.remove();
                }),
                Arguments.of("list.subList().clear", (Consumer<Node>) n -> list(n).subList(0, 1).clear()),
                Arguments.of("list.removeIf", (Consumer<Node>) n -> list(n).removeIf("a"::equals)),
                Arguments.of("list.listIterator().set", (Consumer<Node>) n -> {
                    var i = list(n).listIterator();
                    i.next();
                    i.set("z");
                }),
                Arguments.of("list.sort", (Consumer<Node>) n -> list(n).sort((a, b) -> -((String) a).compareTo((String) b))),
                Arguments.of("map.entrySet().setValue", (Consumer<Node>) n -> map(n).entrySet().iterator().next().setValue(9)),
                Arguments.of("map.keySet().remove", (Consumer<Node>) n -> map(n).keySet().remove("k")),
                Arguments.of("map.values().clear", (Consumer<Node>) n -> map(n).values().clear()),
                Arguments.of("map.merge", (Consumer<Node>) n -> map(n).merge("k", 5, (a, b) -> 7)),
                Arguments.of("tree.headMap().clear", (Consumer<Node>) n -> tree(n).headMap("m").clear()),
                Arguments.of("tree.descendingMap().put", (Consumer<Node>) n -> tree(n).descendingMap().put("q", 1)),
                Arguments.of("tree.pollFirstEntry", (Consumer<Node>) n -> tree(n).pollFirstEntry()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mutations")
    void aChangeThroughAnyPathIsSaved(String what, Consumer<Node> change) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                TreeMap<String, Integer> tree = new TreeMap<>(Map.of("a", 1, "b", 2, "z", 26));
                n.any(new Object[] {new ArrayList<>(List.of("a", "b")), new HashMap<>(Map.of("k", 1)), tree});
                store.persist(n, "n");
            });
        }
        Object[] expected;
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("n", Node.class);
            Object[] parts = (Object[]) n.any();
            assertTrue(parts[0] instanceof Tracked && parts[1] instanceof Tracked && parts[2] instanceof Tracked);
            assertFalse(((Tracked) parts[0]).$perpetua$touched(), "freshly loaded containers are untouched");
            store.inTransaction(() -> change.accept(n));
            expected = new Object[] {new ArrayList<>((List<?>) parts[0]), new HashMap<>((Map<?, ?>) parts[1]),
                new TreeMap<>((Map<?, ?>) parts[2])};
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] parts = (Object[]) store.fetch("n", Node.class).any();
            assertEquals(expected[0], parts[0], what);
            assertEquals(expected[1], parts[1], what);
            assertEquals(expected[2], parts[2], what);
        }
    }

    @Test
    void reversedViewsOfNewerJdksAreTracked() throws Exception {
        Method reversed;
        try {
            reversed = List.class.getMethod("reversed");
        } catch (NoSuchMethodException e) {
            return; // JDK 17: no sequenced collections, nothing to check
        }
        TrackedArrayList<Object> list = new TrackedArrayList<>();
        @SuppressWarnings("unchecked") List<Object> view = (List<Object>) reversed.invoke(list);
        view.add("x");
        assertTrue(list.$perpetua$touched(), "a change through reversed() touches the list");
        TrackedArrayDeque<Object> deque = new TrackedArrayDeque<>();
        @SuppressWarnings("unchecked") java.util.Deque<Object> dview =
                (java.util.Deque<Object>) java.util.Deque.class.getMethod("reversed").invoke(deque);
        dview.addFirst("x");
        assertTrue(deque.$perpetua$touched(), "a change through reversed() touches the deque");
        TrackedTreeMap<String, Integer> tree = new TrackedTreeMap<>(null);
        tree.put("a", 1);
        tree.$perpetua$untouch();
        Object keys = java.util.SortedMap.class.getMethod("sequencedKeySet").invoke(tree);
        ((java.util.Collection<?>) keys).remove("a");
        assertTrue(tree.$perpetua$touched(), "a change through sequencedKeySet() touches the map");
    }

    @Test
    void untouchedContainersAreNotComparedAtCommit() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.children(new ArrayList<>(List.of(new Node("c"))));
                store.persist(n, "n");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("n", Node.class);
            List<Node> kids = n.children();
            kids.get(0); // a read that cannot change the list
            assertFalse(((Tracked) kids).$perpetua$touched());
            for (Node k : kids) { // a loop reads: its iterator notes only a removal made through it
                k.name();
            }
            assertFalse(((Tracked) kids).$perpetua$touched());
            kids.set(0, kids.get(0)); // a change that changes nothing: noted, compared, found unchanged
            assertTrue(((Tracked) kids).$perpetua$touched());
            store.inTransaction(() -> n.value(1));
            assertFalse(((Tracked) kids).$perpetua$touched(), "a commit forgets the note");
            assertEquals(2, store.statistics().recordsRead(), "the root (its list embedded in it) and the child");
        }
    }

    private static List<Object> list(Node n) {
        @SuppressWarnings("unchecked") List<Object> l = (List<Object>) ((Object[]) n.any())[0];
        return l;
    }

    private static Map<String, Integer> map(Node n) {
        @SuppressWarnings("unchecked") Map<String, Integer> m = (Map<String, Integer>) ((Object[]) n.any())[1];
        return m;
    }

    private static TreeMap<String, Integer> tree(Node n) {
        @SuppressWarnings("unchecked") TreeMap<String, Integer> m = (TreeMap<String, Integer>) ((Object[]) n.any())[2];
        return m;
    }
}
