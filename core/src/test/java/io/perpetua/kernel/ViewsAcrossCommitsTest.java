package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A view or iterator of a collection read from a store, asked for in one transaction and used
 * to change the collection in a later one, is seen by the commit after the change: the
 * collection wraps what it hands out. Until session 41 asking for the view noted a change for
 * the next commit only, and the change made after it was lost.
 */
class ViewsAcrossCommitsTest {

    @Test
    void changesThroughViewsAndIteratorsKeptAcrossACommitAreSaved() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = new Node("root");
            root.any(new Object[] {
                    new HashMap<>(Map.of("a", 1, "b", 2)),
                    new HashMap<>(Map.of("a", 1)),
                    new HashSet<>(Set.of("a", "b")),
                    new TreeMap<>(Map.of("a", 1, "b", 2)),
                    new TreeSet<>(Set.of("a", "b")),
                    new ArrayDeque<>(List.of("a", "b")),
                    new TreeMap<>(Map.of("a", 1, "b", 2)),
                    new TreeSet<>(Set.of("a", "b", "c", "d"))});
            store.inTransaction(() -> store.persist(root, "root"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] c = (Object[]) store.fetch("root", Node.class).any();
            store.beginTransaction();
            Set<String> keys = map(c[0]).keySet();
            Iterator<Map.Entry<String, Integer>> entries = map(c[1]).entrySet().iterator();
            Iterator<?> setElements = ((Set<?>) c[2]).iterator();
            NavigableSet<String> sortedKeys = ((TreeMap<String, Integer>) map(c[3])).navigableKeySet();
            Iterator<?> sortedElements = ((TreeSet<?>) c[4]).descendingIterator();
            Iterator<?> queued = ((ArrayDeque<?>) c[5]).iterator();
            NavigableSet<String> descendingKeys = ((TreeMap<String, Integer>) map(c[6])).descendingKeySet();
            @SuppressWarnings("unchecked") TreeSet<String> sorted = (TreeSet<String>) c[7];
            java.util.SortedSet<String> head = sorted.headSet("b");
            NavigableSet<String> descending = sorted.descendingSet();
            store.commitTransaction();
            for (Object container : java.util.Arrays.copyOf(c, 6)) { // the last two: asking for their views notes them
                assertFalse(((Tracked) container).$perpetua$touched(), "asking for a view changes nothing: "
                        + container.getClass().getSimpleName());
            }
            store.beginTransaction();
            keys.remove("a");
            entries.next().setValue(7);
            setElements.next();
            setElements.remove();
            sortedKeys.pollFirst();
            sortedElements.next();
            sortedElements.remove();
            queued.next();
            queued.remove();
            store.commitTransaction();
            store.beginTransaction(); // a second commit: one after asking for the view no longer sees it
            descendingKeys.pollFirst();
            head.clear();
            descending.pollFirst();
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] c = (Object[]) store.fetch("root", Node.class).any();
            assertEquals(Map.of("b", 2), c[0]);
            assertEquals(Map.of("a", 7), c[1]);
            assertEquals(1, ((Set<?>) c[2]).size());
            assertEquals(Map.of("b", 2), c[3]);
            assertEquals(Set.of("a"), c[4]);
            assertEquals(List.of("b"), List.copyOf((ArrayDeque<?>) c[5]));
            assertEquals(Map.of("a", 1), c[6]);
            assertEquals(Set.of("b", "c"), c[7]);
        }
    }

    @Test
    void aWrappedViewStoredInAFieldIsRefusedAsAView() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = new Node("root");
            root.any(new HashMap<>(Map.of("a", 1)));
            store.inTransaction(() -> store.persist(root, "root"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Node holder = new Node("holder");
            store.beginTransaction();
            holder.any(map(root.any()).keySet());
            root.next(holder);
            io.perpetua.NotPersistableException e = org.junit.jupiter.api.Assertions.assertThrows(
                    io.perpetua.NotPersistableException.class, store::commitTransaction);
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("it is a view or iterator of a collection or map"),
                    e.getMessage());
            store.abortTransaction();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Integer> map(Object o) {
        return (Map<String, Integer>) o;
    }
}
