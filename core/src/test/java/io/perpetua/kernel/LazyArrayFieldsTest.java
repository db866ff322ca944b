package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Leaf;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Array fields a fill leaves undecoded until their getter asks (see {@link LazyFields}): what
 * is read when, and that nothing is lost or changed by an array the program never read.
 */
class LazyArrayFieldsTest {

    /** Stores a holder of two nodes, three numbers and two labels under "h"; returns the store's URI. */
    static String holder() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Holder("first",
                    new Node[] {new Node("a", 1), new Node("b", 2)}, new int[] {1, 2, 3}, new String[] {"x", "y"}), "h"));
        }
        return uri;
    }

    @Test
    void anArrayFieldIsDecodedOnlyWhenItsGetterAsks() {
        try (PersistentStore store = TestStores.open(holder())) {
            Holder h = store.fetch("h", Holder.class);
            long before = store.statistics().residentObjects();
            assertEquals("first", h.label());
            assertSame(Holder.$perpetua$lazy$nodes, h.rawNodes(), "the fill left the array field lazy");
            assertSame(Holder.$perpetua$lazy$numbers, h.rawNumbers());
            assertEquals(before, store.statistics().residentObjects(), "no shells for the elements yet");

            Node[] nodes = h.nodes();
            assertEquals(2, nodes.length);
            assertEquals(before + 3, store.statistics().residentObjects(), "the array and its two elements' shells");
            assertEquals("a", nodes[0].name());
            assertEquals("b", nodes[1].name());
            assertSame(nodes, h.nodes(), "decoded once: the same array every time");
            assertSame(Holder.$perpetua$lazy$numbers, h.rawNumbers(), "the other array fields stay lazy");
            assertArrayEquals(new int[] {1, 2, 3}, h.numbers());
            assertArrayEquals(new String[] {"x", "y"}, h.labels());
            assertTrue(h.allDecoded());
        }
    }

    @Test
    void writingAnotherFieldKeepsTheArraysTheProgramNeverRead() {
        String uri = holder();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            store.inTransaction(() -> h.label("second"));
            assertSame(Holder.$perpetua$lazy$nodes, h.rawNodes(), "the commit copied the stored arrays, undecoded");
            assertSame(Holder.$perpetua$lazy$numbers, h.rawNumbers());
            assertEquals("a", h.nodes()[0].name(), "decoded after that commit, from the record the fill had");
            assertArrayEquals(new int[] {1, 2, 3}, h.numbers());
            store.inTransaction(() -> h.numbers()[2] = 4);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("second", h.label());
            assertEquals("a", h.nodes()[0].name());
            assertEquals("b", h.nodes()[1].name());
            assertArrayEquals(new int[] {1, 2, 4}, h.numbers());
            assertArrayEquals(new String[] {"x", "y"}, h.labels());
        }
    }

    @Test
    void anUnreadArrayOfSatellitesIsCopiedWithThemWhenItsHomeIsWritten() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Holder("home", new Leaf[] {new Leaf("p", 1), new Leaf("q", 2)}), "h"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            long resident = store.statistics().residentObjects();
            store.inTransaction(() -> h.label("once"));
            store.inTransaction(() -> h.label("twice"));
            assertSame(Holder.$perpetua$lazy$leaves, h.rawLeaves(), "two commits wrote the home, neither decoded its array");
            assertEquals(resident, store.statistics().residentObjects(), "nor made its satellites' shells");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("twice", h.label());
            Leaf[] leaves = h.leaves();
            assertEquals(List.of("p", "q"), List.of(leaves[0].label(), leaves[1].label()), "the satellites were kept");
            store.inTransaction(() -> {
                leaves[1].weight(7);
                h.label("thrice");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("thrice", h.label());
            assertEquals(List.of(1, 7), List.of(h.leaves()[0].weight(), h.leaves()[1].weight()));
        }
    }

    @Test
    void anAbortAfterAWriteThatCopiedTheArraysBringsThemBack() {
        String uri = holder();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            store.inTransaction(() -> h.label("second"));
            store.beginTransaction();
            h.label("third");
            h.nodes(new Node[0]);
            store.abortTransaction();
            assertEquals("second", h.label());
            assertEquals(List.of("a", "b"), List.of(h.nodes()[0].name(), h.nodes()[1].name()));
            assertArrayEquals(new int[] {1, 2, 3}, h.numbers());
        }
    }

    @Test
    void aChangeMadeInPlaceToADecodedArrayIsCommitted() {
        String uri = holder();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            store.inTransaction(() -> {
                h.numbers()[0] = 9;
                h.nodes()[1] = new Node("c", 3);
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertArrayEquals(new int[] {9, 2, 3}, h.numbers());
            assertEquals("c", h.nodes()[1].name());
            assertArrayEquals(new String[] {"x", "y"}, h.labels(), "the array not read is as it was");
        }
    }

    @Test
    void anAbortBringsBackTheStoredArrays() {
        try (PersistentStore store = TestStores.open(holder())) {
            Holder h = store.fetch("h", Holder.class);
            int[] numbers = h.numbers();
            store.beginTransaction();
            numbers[1] = 7;
            h.label("changed");
            store.abortTransaction();
            assertEquals("first", h.label());
            assertSame(numbers, h.numbers(), "the array the program holds is still the field's");
            assertArrayEquals(new int[] {1, 2, 3}, numbers);
            assertEquals("a", h.nodes()[0].name());
        }
    }

    @Test
    void anArrayWithARecordOfItsOwnIsReadWhenAsked() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] shared = {new Node("s", 5)};
            store.inTransaction(() -> {
                store.persist(new Holder("one", shared, null, null), "one");
                store.persist(new Holder("two", shared, null, null), "two");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder one = store.fetch("one", Holder.class);
            Holder two = store.fetch("two", Holder.class);
            assertEquals("one", one.label());
            assertEquals("two", two.label());
            long read = store.statistics().recordsRead();
            assertSame(Holder.$perpetua$lazy$nodes, one.rawNodes(), "a shared array is left lazy too");
            Node[] nodes = one.nodes();
            assertEquals(read + 1, store.statistics().recordsRead(), "its record is read when the getter asks");
            assertSame(nodes, two.nodes(), "both holders see the one array");
            assertEquals(read + 1, store.statistics().recordsRead());
            assertEquals("s", nodes[0].name());
            assertNull(one.numbers(), "a null array field is null");
        }
    }

    @Test
    void aCommitThatChangesNothingInALazyObjectWritesNothing() {
        try (PersistentStore store = TestStores.open(holder())) {
            Holder h = store.fetch("h", Holder.class);
            h.label();
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> h.numbers());
            assertEquals(written, store.statistics().recordsWritten(), "reading an array is not a change");
            assertFalse(h.rawNodes() instanceof Node[] n && n.length == 2, "and decodes nothing else");
        }
    }

    @Test
    void theElementsOfAnUnreadArrayCostNoShells() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] many = new Node[500];
            for (int i = 0; i < many.length; i++) {
                many[i] = new Node("n" + i, i);
            }
            store.inTransaction(() -> store.persist(new Holder("big", many, null, null), "big"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("big", Holder.class);
            long before = store.statistics().residentObjects();
            assertEquals("big", h.label());
            assertEquals(before, store.statistics().residentObjects(), "no shell for any of the 500 elements");
            assertEquals(List.of("n0", "n499"), List.of(h.nodes()[0].name(), h.nodes()[499].name()));
        }
    }
}
