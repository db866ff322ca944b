package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.runtime.ObjectState;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copies made by {@code Object.clone()} of persistent objects: the copy holds the original's
 * state and handle, and must become a new object, never pass for the original (its changes
 * would be written over the original's record, and a name bound to it would name the original).
 * {@link Holder#copy} is what the agent's hook does after a {@code clone()} call;
 * {@link Holder#copyUnhooked} is a copy made where no hook runs (a library's super-class), which
 * the kernel finds when the copy is first written, persisted, referred to or read.
 */
class ClonesTest {

    /** Stores holder "h" (two nodes, three numbers, two labels) and node "n" referring to it. */
    private static String stored() {
        String uri = LazyArrayFieldsTest.holder();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node n = new Node("n");
                n.any(store.fetch("h"));
                store.persist(n, "n");
            });
        }
        return uri;
    }

    private static void assertOriginalUnchanged(String uri) {
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("first", h.label());
            assertArrayEquals(new int[] {1, 2, 3}, h.numbers());
            assertEquals(List.of("a", "b"), List.of(h.nodes()[0].name(), h.nodes()[1].name()));
            assertSame(h, store.fetch("n", Node.class).any());
        }
    }

    @Test
    void aHookedCopyIsANewObjectWithTheOriginalsUndecodedArrays() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            assertEquals("first", h.label());
            assertSame(Holder.$perpetua$lazy$numbers, h.rawNumbers(), "the original's arrays are not decoded yet");
            Holder c = h.copy();
            assertNull(c.$perpetua$handle());
            assertEquals(ObjectState.TRANSIENT, c.$perpetua$state());
            assertFalse(store.isPersistent(c));
            assertTrue(store.isPersistent(h));
            assertSame(h.rawNumbers(), c.rawNumbers(), "the copy shares the original's arrays, decoded for both");
            assertSame(h.nodes(), c.nodes());
            store.inTransaction(() -> {
                c.label("copy");
                c.numbers(new int[] {7});
                store.persist(c, "c");
            });
            assertEquals("first", h.label());
        }
        assertOriginalUnchanged(uri);
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            Holder c = store.fetch("c", Holder.class);
            assertNotSame(h, c);
            assertEquals("copy", c.label());
            assertArrayEquals(new int[] {7}, c.numbers());
            assertSame(h.nodes(), c.nodes(), "the array both refer to is still one array");
        }
    }

    @Test
    void anUnhookedCopyIsDetachedWhenFirstWritten() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            h.label();
            Holder c = h.copyUnhooked();
            assertSame(h.$perpetua$handle(), c.$perpetua$handle(), "Object.clone() copied the handle");
            store.inTransaction(() -> {
                c.label("copy"); // the write check's slow path finds the copy
                assertNull(c.$perpetua$handle());
                assertEquals(ObjectState.CLEAN, h.$perpetua$state(), "the original is not marked");
                assertArrayEquals(new int[] {1, 2, 3}, c.numbers(), "its arrays, undecoded when copied, are the original's");
                store.fetch("n", Node.class).next(new Node("holder of the copy"));
                store.fetch("n", Node.class).next().any(c);
            });
            assertEquals("first", h.label());
        }
        assertOriginalUnchanged(uri);
        try (PersistentStore store = TestStores.open(uri)) {
            Holder c = (Holder) store.fetch("n", Node.class).next().any();
            assertNotSame(store.fetch("h"), c);
            assertEquals("copy", c.label());
            assertArrayEquals(new int[] {1, 2, 3}, c.numbers());
        }
    }

    @Test
    void anUnhookedCopyIsDetachedWhenPersistedOrReferredTo() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            h.label();
            Holder named = h.copyUnhooked();
            Holder referred = h.copyUnhooked();
            assertFalse(store.isPersistent(named), "a copy is not the persistent object");
            store.inTransaction(() -> {
                store.persist(named, "named");
                store.fetch("n", Node.class).next(new Node("holder of the copy"));
                store.fetch("n", Node.class).next().any(referred); // found by the commit's encoder
            });
            assertNotSame(h.$perpetua$handle(), named.$perpetua$handle());
            assertNotSame(h.$perpetua$handle(), referred.$perpetua$handle());
            assertTrue(store.isPersistent(referred));
        }
        assertOriginalUnchanged(uri);
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = store.fetch("h", Holder.class);
            Holder named = store.fetch("named", Holder.class);
            Holder referred = (Holder) store.fetch("n", Node.class).next().any();
            assertEquals(3, List.of(h, named, referred).stream().distinct().count(), "three objects");
            for (Holder x : List.of(named, referred)) {
                assertEquals("first", x.label());
                assertArrayEquals(new int[] {1, 2, 3}, x.numbers());
                assertEquals("a", x.nodes()[0].name());
            }
        }
    }

    @Test
    void anUnhookedCopyOfAHollowObjectIsFilledFromTheOriginalWhenFirstRead() {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder h = (Holder) store.fetch("n", Node.class).any();
            assertEquals(ObjectState.HOLLOW, h.$perpetua$state());
            Holder c = h.copyUnhooked();
            assertEquals("first", c.label()); // the read check's slow path finds the copy
            assertEquals(ObjectState.TRANSIENT, c.$perpetua$state());
            assertArrayEquals(new int[] {1, 2, 3}, c.numbers());
            assertSame(h.nodes(), c.nodes());
            assertFalse(store.isPersistent(c));
            assertTrue(store.isPersistent(h));
        }
        assertOriginalUnchanged(uri);
    }

    @Test
    void aCopyOfAnObjectTheProgramLetGoTakesItsArraysFromTheStore() throws Exception {
        String uri = stored();
        try (PersistentStore store = TestStores.open(uri)) {
            Holder c = copyOfAFreshFetch(store);
            TestStores.awaitCollected(c.$perpetua$handle()); // the handle refers to the original weakly
            assertNull(c.$perpetua$handle().get(), "the original was collected");
            store.inTransaction(() -> {
                c.label("copy"); // its arrays are read back from the original's record
                store.persist(c, "c");
            });
            assertArrayEquals(new int[] {1, 2, 3}, c.numbers());
            assertEquals("a", c.nodes()[0].name());
        }
        assertOriginalUnchanged(uri);
    }

    private static Holder copyOfAFreshFetch(PersistentStore store) {
        Holder h = store.fetch("h", Holder.class);
        h.label();
        return h.copyUnhooked();
    }
}
