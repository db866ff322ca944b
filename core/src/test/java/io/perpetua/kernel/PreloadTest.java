package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.StoreClosedException;
import io.perpetua.UnknownPersistentName;
import io.perpetua.testmodel.ByLength;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Leaf;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PersistentStore#preload}: every record of the graph read once, nothing left for the
 * program's touches to read, and what is already resident (changed objects included) left as
 * it is.
 */
class PreloadTest {

    /** A value that holds references: preload must look into it. */
    record Pair(Node left, Optional<Node> right) {
    }

    /**
     * A root whose children reach every kind of thing preload walks: a list, a holder whose
     * leaves are satellites in its record, a holder of lazy array fields, a map, a record
     * holding an {@code Optional}, a cycle back to the root, and two sorted sets (one empty)
     * whose comparators are stored objects of their own.
     */
    private static String graph() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root", 0);
                List<Node> children = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    children.add(new Node("c" + i, i));
                }
                root.children(children);
                Leaf[] leaves = {new Leaf("l0", 0), new Leaf("l1", 1), new Leaf("l2", 2)};
                leaves[1].peer(new Node("peer", 9));
                children.get(0).any(new Holder("satellites", leaves));
                children.get(1).any(new Holder("lazy", new Node[] {new Node("n0"), new Node("n1")}, new int[] {4, 5},
                        new String[] {"s"}));
                Map<String, Node> map = new HashMap<>();
                map.put("k", new Node("mapped", 7));
                children.get(2).any(map);
                children.get(3).any(new Pair(new Node("left"), Optional.of(new Node("right"))));
                children.get(4).next(root);
                TreeSet<String> sorted = new TreeSet<>(new ByLength());
                sorted.addAll(List.of("ccc", "a", "bb"));
                root.any(sorted);
                // empty, so decoding it never asks its comparator, which stays hollow until preloaded
                children.get(4).any(new TreeSet<>(new ByLength()));
                store.persist(root, "root");
            });
        }
        return uri;
    }

    /** Reads every object of {@link #graph()} through the program's own getters. */
    @SuppressWarnings("unchecked")
    private static String touchAll(Node root) {
        StringBuilder seen = new StringBuilder(root.name());
        List<Node> children = root.children();
        for (Node c : children) {
            seen.append(' ').append(c.name()).append('=').append(c.value());
        }
        Holder satellites = (Holder) children.get(0).any();
        for (Leaf l : satellites.leaves()) {
            seen.append(' ').append(l.label()).append(l.peer() == null ? "" : "/" + l.peer().name());
        }
        Holder lazy = (Holder) children.get(1).any();
        seen.append(' ').append(lazy.label()).append(lazy.nodes()[1].name()).append(lazy.numbers()[1])
                .append(lazy.labels()[0]);
        seen.append(' ').append(((Map<String, Node>) children.get(2).any()).get("k").name());
        Pair pair = (Pair) children.get(3).any();
        seen.append(' ').append(pair.left().name()).append(pair.right().orElseThrow().name());
        seen.append(' ').append(children.get(4).next().name());
        TreeSet<String> sorted = (TreeSet<String>) root.any();
        seen.append(' ').append(sorted).append(sorted.contains("bb")); // contains asks the comparator
        ((ByLength) ((TreeSet<String>) children.get(4).any()).comparator()).compare("x", "y"); // fills it if hollow
        return seen.toString();
    }

    private static final String ALL =
            "root c0=0 c1=1 c2=2 c3=3 c4=4 l0 l1/peer l2 lazyn15s mapped leftright root [a, bb, ccc]true";

    @Test
    void readsEveryRecordOnceAndLeavesNothingForTheProgramToRead() {
        String uri = graph();
        try (PersistentStore store = TestStores.open(uri)) {
            long records = store.statistics().objects();
            long read = store.preload("root");
            assertEquals(records, read, "each record once: satellites are filled from their home's record");
            assertEquals(read, store.statistics().recordsRead());

            long resident = store.statistics().residentObjects();
            Node root = store.fetch("root", Node.class);
            assertEquals(ALL, touchAll(root));
            assertEquals(read, store.statistics().recordsRead(), "the touches read nothing");
            assertEquals(resident, store.statistics().residentObjects(), "and made nothing new resident");
            assertTrue(((Holder) root.children().get(1).any()).allDecoded(), "the lazy array fields were decoded");

            assertEquals(0, store.preload("root"), "a second preload has nothing to read");
        }
    }

    @Test
    void whatIsAlreadyResidentIsKeptChangedObjectsIncluded() {
        String uri = graph();
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Node c2 = root.children().get(2);
            store.beginTransaction();
            c2.value(42);
            c2.name("changed");
            long read = store.preload("root");
            assertTrue(read > 0 && read < store.statistics().objects(), "the root and its children were read already");
            assertSame(c2, root.children().get(2));
            assertEquals(42, c2.value(), "the change is kept");
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            store.preload("root");
            String all = touchAll(store.fetch("root", Node.class));
            assertEquals(ALL.replace("c2=2", "changed=42"), all);
        }
    }

    @Test
    void anUnknownNameOrAClosedStoreIsAnError() {
        String uri = graph();
        PersistentStore store = TestStores.open(uri);
        UnknownPersistentName unknown = assertThrows(UnknownPersistentName.class, () -> store.preload("nothing"));
        assertEquals("nothing", unknown.name());
        store.close();
        assertThrows(StoreClosedException.class, () -> store.preload("root"));
    }
}
