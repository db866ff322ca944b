package io.perpetua.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wrapped iterators and views of a class extending a JDK collection or map: each way of
 * changing the owner through them marks it (the write check's slow path runs once), and each way
 * of reading through them marks nothing. The owner is a clean object whose handle counts the
 * write checks that reach it.
 */
class InheritedViewsTest {

    /** A clean persistent object whose handle counts the writes it is told of. */
    private static final class Owner implements Persistent {
        byte state = ObjectState.CLEAN;
        int writes;
        private final ObjectHandle handle = new ObjectHandle(this, 1, null) {
            @Override
            protected void load(Persistent object) {
                throw new AssertionError("a clean object is not loaded");
            }

            @Override
            protected void beforeWrite(Persistent object) {
                writes++;
                state = ObjectState.DIRTY;
            }

            @Override
            protected void materialize(Persistent object, Object marker) {
            }
        };

        /** Back to clean, as after a commit. */
        void committed() {
            state = ObjectState.CLEAN;
        }

        @Override public byte $perpetua$state() { return state; }
        @Override public void $perpetua$state(byte s) { state = s; }
        @Override public ObjectHandle $perpetua$handle() { return handle; }
        @Override public void $perpetua$handle(ObjectHandle h) { }
        @Override public void $perpetua$write(RecordWriter out) { }
        @Override public void $perpetua$read(RecordReader in) { }
    }

    private static Map<String, Integer> map() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("a", 1);
        m.put("b", 2);
        m.put("c", 3);
        return m;
    }

    /** Runs {@code use} on a fresh owner's view of a fresh map; returns how many writes reached the owner. */
    private static int writes(Consumer<Map<String, Integer>> use) {
        Owner o = new Owner();
        Map<String, Integer> m = map();
        Map<String, Integer> viewed = new java.util.AbstractMap<>() {
            @Override
            public Set<Entry<String, Integer>> entrySet() {
                return InheritedViews.entrySet(o, m.entrySet());
            }

            @Override
            public Set<String> keySet() {
                return InheritedViews.set(o, m.keySet());
            }

            @Override
            public Collection<Integer> values() {
                return InheritedViews.collection(o, m.values());
            }
        };
        use.accept(viewed);
        return o.writes;
    }

    @Test
    void readingThroughTheViewsMarksNothing() {
        List<Consumer<Map<String, Integer>>> reads = List.of(
                m -> m.keySet().forEach(k -> { }),
                m -> m.entrySet().iterator().forEachRemaining(e -> e.getValue()),
                m -> m.entrySet().forEach(Map.Entry::getKey),
                m -> m.values().stream().mapToInt(Integer::intValue).sum(),
                m -> assertEquals(Set.of("a", "b", "c"), m.keySet()),
                m -> assertEquals(map().entrySet(), m.entrySet()),
                m -> assertEquals(map().entrySet().hashCode(), m.entrySet().hashCode()),
                m -> assertEquals("[a, b, c]", m.keySet().toString()),
                m -> assertTrue(m.entrySet().contains(Map.entry("a", 1))),
                m -> m.values().toArray(new Integer[0]),
                m -> m.entrySet().toArray(),
                m -> { for (Map.Entry<String, Integer> e : m.entrySet()) { e.getKey(); } });
        for (int i = 0; i < reads.size(); i++) {
            assertEquals(0, writes(reads.get(i)), "read " + i);
        }
    }

    @Test
    void everyChangeThroughTheViewsMarksTheOwner() {
        List<Consumer<Map<String, Integer>>> changes = List.of(
                m -> m.keySet().remove("a"),
                m -> m.keySet().removeIf(k -> k.equals("b")),
                m -> m.keySet().retainAll(Set.of("a")),
                m -> m.keySet().removeAll(Set.of("a")),
                m -> m.keySet().clear(),
                m -> m.values().remove(2),
                m -> m.entrySet().remove(Map.entry("a", 1)),
                m -> { Iterator<String> it = m.keySet().iterator(); it.next(); it.remove(); },
                m -> { Iterator<Map.Entry<String, Integer>> it = m.entrySet().iterator(); it.next(); it.remove(); },
                m -> m.entrySet().iterator().next().setValue(9),
                m -> m.entrySet().forEach(e -> e.setValue(e.getValue() + 1)),
                m -> m.entrySet().iterator().forEachRemaining(e -> e.setValue(0)),
                m -> ((Map.Entry<String, Integer>) m.entrySet().toArray(new Map.Entry[0])[1]).setValue(5));
        for (int i = 0; i < changes.size(); i++) {
            assertEquals(1, writes(changes.get(i)), "change " + i); // once: the owner is dirty after the first
        }
    }

    @Test
    void aNavigableSetAndTheViewsItGivesMarkTheOwnerOnChangesOnly() {
        java.util.TreeSet<String> set = new java.util.TreeSet<>(List.of("a", "b", "c", "d"));
        Owner o = new Owner();
        java.util.NavigableSet<String> view = InheritedViews.navigableSet(o, set);
        assertEquals("b", view.higher("a"));
        assertEquals("[d, c, b, a]", view.descendingSet().toString());
        assertEquals("[b, c]", view.subSet("b", true, "c", true).toString());
        assertEquals("[a, b]", view.headSet("c").toString());
        view.tailSet("c").forEach(s -> { });
        view.descendingIterator().next();
        assertEquals(0, o.writes, "reads mark nothing");
        assertEquals("a", view.pollFirst());
        assertEquals(1, o.writes);
        for (Consumer<java.util.NavigableSet<String>> change : List.<Consumer<java.util.NavigableSet<String>>>of(
                v -> v.pollLast(), v -> v.headSet("c", true).clear(), v -> v.descendingSet().remove("c"),
                v -> { Iterator<String> it = v.descendingIterator(); it.next(); it.remove(); },
                v -> v.tailSet("b").iterator().remove())) {
            o.committed();
            set.addAll(List.of("a", "b", "c", "d"));
            int before = o.writes;
            try {
                change.accept(view);
            } catch (IllegalStateException e) {
                // an iterator's remove before next: the mark comes first, as a write check does
            }
            assertEquals(before + 1, o.writes);
        }
    }

    @Test
    void aListIteratorMarksTheOwnerOnRemoveSetAndAdd() {
        List<String> list = new ArrayList<>(List.of("a", "b"));
        Owner o = new Owner();
        ListIterator<String> it = InheritedViews.listIterator(o, list.listIterator());
        assertEquals("a", it.next());
        assertTrue(it.hasPrevious());
        assertEquals(0, o.writes, "reads mark nothing");
        it.set("A");
        assertEquals(1, o.writes);
        o.committed();
        it.add("x");
        assertEquals(2, o.writes);
        o.committed();
        it.next();
        it.remove();
        assertEquals(3, o.writes);
        assertEquals(List.of("A", "x"), list);
        Iterator<String> plain = InheritedViews.iterator(o, list.iterator());
        plain.forEachRemaining(s -> { });
        assertEquals(3, o.writes, "reading marks nothing");
    }

    @Test
    void aSortedMapViewAndTheViewsItGivesMarkTheOwnerOnChangesOnly() {
        java.util.TreeMap<String, Integer> map = new java.util.TreeMap<>(map());
        Owner o = new Owner();
        java.util.NavigableMap<String, Integer> view = InheritedViews.navigableMap(o, map.headMap("c", true));
        assertEquals(map.headMap("c", true), view);
        assertEquals(map.headMap("c", true).hashCode(), view.hashCode());
        assertEquals("{c=3, b=2, a=1}", view.descendingMap().toString());
        assertEquals("b", view.higherKey("a"));
        assertEquals(Map.entry("a", 1), view.firstEntry());
        assertEquals("[a, b]", view.headMap("c").keySet().toString());
        view.tailMap("b", true).values().forEach(v -> { });
        view.descendingKeySet().iterator().next();
        view.entrySet().iterator().next().getValue();
        assertEquals(0, o.writes, "reads mark nothing");
        assertTrue(view == InheritedViews.navigableMap(o, view), "a view wrapped for its owner is not wrapped again");
        assertTrue(InheritedViews.sortedMap(o, map.tailMap("b")) instanceof java.util.NavigableMap<?, ?>);
        for (Consumer<java.util.NavigableMap<String, Integer>> change : List.<Consumer<java.util.NavigableMap<String, Integer>>>of(
                v -> v.put("b", 7), v -> v.remove("a"), v -> v.pollFirstEntry(), v -> v.pollLastEntry(),
                v -> v.merge("a", 1, Integer::sum), v -> v.compute("b", (k, x) -> 0), v -> v.replaceAll((k, x) -> x),
                v -> v.descendingMap().clear(), v -> v.headMap("b", true).remove("a"),
                v -> v.subMap("a", "c").entrySet().iterator().next().setValue(0),
                v -> v.navigableKeySet().pollFirst(), v -> v.descendingKeySet().remove("c"),
                v -> v.values().remove(2), v -> { Iterator<String> it = v.keySet().iterator(); it.next(); it.remove(); })) {
            o.committed();
            map.putAll(map());
            int before = o.writes;
            change.accept(view);
            assertEquals(before + 1, o.writes);
        }
    }

    @Test
    void aSubListMarksTheOwnerOnChangesOnly() {
        List<String> list = new ArrayList<>(List.of("a", "b", "c", "d"));
        Owner o = new Owner();
        List<String> view = InheritedViews.list(o, list.subList(1, 4));
        assertTrue(view instanceof java.util.RandomAccess);
        assertEquals(List.of("b", "c", "d"), view);
        assertEquals(List.of("b", "c", "d").hashCode(), view.hashCode());
        assertEquals(1, view.indexOf("c"));
        view.subList(0, 2).listIterator().next();
        view.forEach(s -> { });
        assertEquals(0, o.writes, "reads mark nothing");
        for (Consumer<List<String>> change : List.<Consumer<List<String>>>of(
                v -> v.set(0, "B"), v -> v.add(1, "x"), v -> v.remove(0), v -> v.sort(null),
                v -> v.replaceAll(String::toUpperCase), v -> v.subList(0, 1).clear(),
                v -> v.listIterator(1).add("y"), v -> v.addAll(0, List.of("z")))) {
            o.committed();
            int before = o.writes;
            change.accept(InheritedViews.list(o, list.subList(1, list.size())));
            assertEquals(before + 1, o.writes);
        }
    }
}
