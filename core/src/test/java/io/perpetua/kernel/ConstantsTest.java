package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.Suit;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Objects that are the value of a static final field of their class come back as themselves,
 * not as copies: Scala's {@code Nil}, a Kotlin {@code object}, a type-safe enum's constants.
 */
class ConstantsTest {

    /** @return a new store whose "root" node holds {@code value} in its {@code any} field */
    private static String rootHolding(Object value) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = new Node("root");
            root.any(value);
            store.inTransaction(() -> store.persist(root, "root"));
        }
        return uri;
    }

    /** A Kotlin companion object is held by a static final field of the class it is nested in. */
    @Test
    void aCompanionHeldByTheClassItIsNestedInComesBackAsItself() {
        String uri = rootHolding(Suit.COMPANION);
        try (PersistentStore store = TestStores.open(uri)) {
            assertFalse(store.isPersistent(Suit.COMPANION), "a constant is no object of the store");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object companion = store.fetch("root", Node.class).any();
            assertSame(Suit.COMPANION, companion);
            assertSame(Suit.HEARTS, ((Suit.Companion) companion).hearts());
        }
    }

    @Test
    void constantsComeBackAsThemselvesAndOtherInstancesAsObjects() {
        String uri = TestStores.newUri();
        Suit joker = new Suit("joker");
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = new Node("root");
            root.any(new ArrayList<>(List.of(Suit.HEARTS, Suit.spades(), joker, Suit.DEFAULT)));
            root.next(new Node("next"));
            root.next().any(new Object[] {Suit.spades()});
            store.inTransaction(() -> store.persist(root, "root"));
            assertFalse(store.isPersistent(Suit.HEARTS), "a constant is no object of the store");
            assertFalse(store.isPersistent(Suit.spades()));
            assertTrue(store.isPersistent(joker));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            List<?> suits = (List<?>) root.any();
            assertSame(Suit.HEARTS, suits.get(0));
            assertSame(Suit.spades(), suits.get(1), "a constant in a private field");
            assertEquals("joker", ((Suit) suits.get(2)).label());
            assertNotSame(joker, suits.get(2), "an instance that is no constant is stored as an object");
            assertSame(Suit.HEARTS, suits.get(3), "an alias names the same object");
            Object[] array = (Object[]) root.next().any();
            assertSame(Suit.spades(), array[0]);

            // changed in place, an array of constants is written again, and read back as changed
            store.beginTransaction();
            array[0] = Suit.HEARTS;
            root.next().any(array);
            store.commitTransaction();
            assertTrue(store.collectGarbage() >= 0);
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] array = (Object[]) store.fetch("root", Node.class).next().any();
            assertSame(Suit.HEARTS, array[0]);
        }
    }

    /** Its fields are class state, not stored: what the JVM's constant holds now is what is seen. */
    @Test
    void aConstantsOwnFieldsAreNotStored() {
        String uri = rootHolding(Suit.HEARTS);
        long before = objects(uri);
        try (PersistentStore store = TestStores.open(uri)) {
            assertSame(Suit.HEARTS, store.fetch("root", Node.class).any());
            assertEquals("hearts", Suit.HEARTS.label());
        }
        assertEquals(1, before, "the root alone: the constant is no record");
    }

    @Test
    void aConstantCannotBeARoot() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.beginTransaction();
            NotPersistableException e = assertThrows(NotPersistableException.class, () -> store.persist(Suit.HEARTS, "h"));
            assertEquals("\"h\"", e.path());
            assertTrue(e.reason().startsWith("it is the constant io.perpetua.testmodel.Suit.HEARTS"), e::getMessage);
            store.abortTransaction();
        }
    }

    @Test
    void aConstantThatIsGoneIsAClearError() {
        IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                () -> Constants.value(Suit.class, "old.Suit", "CLUBS"));
        assertEquals("old.Suit", e.className());
        assertTrue(e.getMessage().contains("the field is gone"), e::getMessage);
        assertThrows(IncompatibleClassChangeException.class, () -> Constants.value(Suit.class, "old.Suit", "label"));
        assertSame(Suit.HEARTS, Constants.value(Suit.class, "old.Suit", "HEARTS"));
    }

    private static long objects(String uri) {
        try (PersistentStore store = TestStores.open(uri)) {
            return store.statistics().objects();
        }
    }
}
