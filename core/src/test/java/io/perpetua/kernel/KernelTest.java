package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreStatistics;
import io.perpetua.TransactionStateException;
import io.perpetua.UnexpectedTypeException;
import io.perpetua.UnknownPersistentName;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.Primitives;
import io.perpetua.testmodel.SpecialNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store's API end to end on the in-memory backend: persist, commit, close, reopen, fetch. */
class KernelTest {

    @Test
    void graphSurvivesCloseAndReopen() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            Node a = new Node("a", 1);
            Node b = new Node("b", 2);
            a.next(b);
            b.next(a); // a cycle
            a.any(a);  // a self-reference
            a.children(new ArrayList<>(List.of(b, new Node("c", 3))));
            store.persist(a, "root");
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("root", Node.class);
            assertEquals("a", a.name());
            assertEquals(1, a.value());
            Node b = a.next();
            assertEquals("b", b.name());
            assertSame(a, b.next(), "a cycle comes back as the same object");
            assertSame(a, a.any(), "a self-reference comes back as the same object");
            assertSame(b, a.children().get(0), "one stored object is one Java object however it is reached");
            assertEquals("c", a.children().get(1).name());
            assertEquals(3, a.children().get(1).value());
        }
    }

    @Test
    void fieldsOfEveryLevelAndPrimitiveTypeRoundTrip() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Primitives p = new Primitives();
                p.z = true;
                p.b = -7;
                p.c = '\u20ac';
                p.s = Short.MIN_VALUE;
                p.i = Integer.MIN_VALUE;
                p.j = Long.MAX_VALUE;
                p.f = Float.NaN;
                p.d = -0.0;
                store.persist(p, "p");
                store.persist(new SpecialNode("s", 5, 1L << 40, "extra"), "s");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("true,-7,8364,-32768,-2147483648,9223372036854775807,NaN,-0.0",
                    store.fetch("p", Primitives.class).describe());
            SpecialNode s = store.fetch("s", SpecialNode.class);
            assertEquals(5, s.value(), "the super-class's field named value");
            assertEquals(1L << 40, s.ownValue(), "the sub-class's own field named value");
            assertEquals("extra", s.extra());
            assertEquals("s", s.name());
        }
    }

    @Test
    void staticAndTransientFieldsAreNotStored() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("n"), "n"));
        }
        int createdBefore = Node.created;
        try (PersistentStore store = TestStores.open(uri)) {
            Node n = store.fetch("n", Node.class);
            assertEquals(0, n.cache(), "a transient field reads as its default after a fetch");
            assertEquals(createdBefore, Node.created, "fetching runs no constructor and writes no static");
        }
    }

    @Test
    void namesBindRebindUnbindAndList() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                store.persist(new Node("x"), "x");
                store.persist(new Node("y"), "y");
                store.persist(new Node("z"), "z");
            });
            store.inTransaction(() -> {
                store.unbind("y");
                assertFalse(store.isBound("y"));
                store.persist(new Node("x2"), "x");
                assertEquals(List.of("x", "z"), store.names());
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("x", "z"), store.names());
            assertEquals("x2", store.fetch("x", Node.class).name());
            UnknownPersistentName e = assertThrows(UnknownPersistentName.class, () -> store.fetch("y"));
            assertEquals("y", e.name());
            store.beginTransaction();
            assertThrows(UnknownPersistentName.class, () -> store.unbind("nope"));
            store.abortTransaction();
        }
    }

    /** A name is stored as UTF-8: one with an unpaired surrogate has no UTF-8 form, so it is refused, never stored as another. */
    @Test
    void aNameWithAnUnpairedSurrogateIsRefusedAndNeverBound() {
        String bad = "key\uD800";
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.persist(new Node("n"), bad));
            assertTrue(e.getMessage().contains("unpaired surrogate at index 3 (\\uD800)"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.persist(new Node("n"), "\uDC00key"));
            store.persist(new Node("pair"), "\uD83C\uDF70"); // a surrogate pair is a character: fine
            store.commitTransaction();
            assertFalse(store.isBound(bad));
            assertEquals(bad, assertThrows(UnknownPersistentName.class, () -> store.fetch(bad)).name());
            store.inTransaction(() -> assertThrows(UnknownPersistentName.class, () -> store.unbind(bad)));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("\uD83C\uDF70"), store.names());
            assertEquals("pair", store.fetch("\uD83C\uDF70", Node.class).name());
        }
    }

    @Test
    void typedFetchChecksTheType() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.inTransaction(() -> store.persist(new Node("n"), "n"));
            UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class, () -> store.fetch("n", Primitives.class));
            assertEquals("n", e.name());
            assertEquals(Primitives.class.getName(), e.expected());
            assertEquals(Node.class.getName(), e.actual());
        }
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                store.persist(new java.util.ArrayList<>(List.of(1)), "list");
                store.persist(new int[] {1}, "numbers");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) { // read back: a tracked list, named as the program's class
            UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class,
                    () -> store.fetch("list", java.util.LinkedList.class));
            assertEquals("java.util.ArrayList", e.actual());
            e = assertThrows(UnexpectedTypeException.class, () -> store.fetch("numbers", long[].class));
            assertEquals("long[]", e.expected());
            assertEquals("int[]", e.actual());
            assertEquals("the object named \"numbers\" is an int[], not a long[]", e.getMessage());
        }
        assertEquals("the object named \"o\" is a Shop, not an Order", // "an" before a vowel
                new UnexpectedTypeException("o", "Order", "Shop").getMessage());
        assertEquals("the object named \"s\" is an Order, not a Shop", new UnexpectedTypeException("s", "Shop", "Order").getMessage());
    }

    /**
     * Asked for a class of the stored object's name from another class loader (a plug-in
     * redeployed in a new loader while the store stayed open), the error names both loaders
     * and what to do, not "a com.acme.Item, not a com.acme.Item".
     */
    @Test
    void typedFetchOfAClassOfTheSameNameFromAnotherLoaderNamesBothLoaders() throws Exception {
        java.net.URL[] classes = {Node.class.getProtectionDomain().getCodeSource().getLocation(),
                PersistentStore.class.getProtectionDomain().getCodeSource().getLocation()};
        try (PersistentStore store = TestStores.open(TestStores.newUri());
             java.net.URLClassLoader redeployed = new java.net.URLClassLoader(classes, ClassLoader.getPlatformClassLoader())) {
            store.inTransaction(() -> store.persist(new Node("n"), "n"));
            Class<?> other = Class.forName(Node.class.getName(), false, redeployed);
            UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class, () -> store.fetch("n", other));
            assertEquals(Node.class.getName(), e.expected());
            assertEquals(Node.class.getName(), e.actual());
            assertTrue(e.getMessage().startsWith("the object named \"n\" is an " + Node.class.getName() + " of the class loader "
                    + Node.class.getClassLoader() + ", not the class of that name asked for, of the class loader " + redeployed
                    + ": a store reads its classes through the thread's context class loader of when it was opened; open"
                    + " it again with the loader of the class asked for"), e.getMessage());
            e = assertThrows(UnexpectedTypeException.class, () -> store.fetch("n", Primitives.class));
            assertEquals("the object named \"n\" is an " + Node.class.getName() + ", not an " + Primitives.class.getName(),
                    e.getMessage(), "classes of two names: no loaders");
        }
    }

    /** A block that ends its own transaction, and an inTransaction inside another's block, are told what went wrong. */
    @Test
    void transactionMisuseSaysWhatToDoInstead() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            TransactionStateException e = assertThrows(TransactionStateException.class,
                    () -> store.inTransaction(store::abortTransaction));
            assertTrue(e.getMessage().contains("throw from the block to cancel"), e.getMessage());
            assertFalse(store.inTransaction());
            e = assertThrows(TransactionStateException.class,
                    () -> store.inTransaction(() -> store.inTransaction(() -> { })));
            assertTrue(e.getMessage().contains("transactions do not nest"), e.getMessage());
            assertFalse(store.inTransaction(), "the outer one was aborted");
        }
    }

    @Test
    void unnamedPersistKeepsIdentityAndIsWritten() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            Node loose = new Node("loose");
            store.persist(loose);
            assertTrue(store.isPersistent(loose));
            store.commitTransaction();
            assertEquals(1, store.statistics().objects());
        }
    }

    @Test
    void transactionStateIsChecked() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            assertThrows(TransactionStateException.class, store::commitTransaction);
            assertThrows(TransactionStateException.class, store::abortTransaction);
            assertThrows(TransactionStateException.class, () -> store.persist(new Node("n"), "n"));
            store.beginTransaction();
            assertThrows(TransactionStateException.class, store::beginTransaction);
            store.abortTransaction();
            assertFalse(store.inTransaction());
        }
    }

    @Test
    void inTransactionCommitsOrAbortsOnException() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            String result = store.inTransaction(() -> {
                store.persist(new Node("kept"), "kept");
                return "done";
            });
            assertEquals("done", result);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.inTransaction(() -> {
                store.persist(new Node("lost"), "lost");
                throw new IllegalStateException("boom");
            }));
            assertEquals("boom", e.getMessage());
            assertFalse(store.inTransaction());
            assertEquals(List.of("kept"), store.names());
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of("kept"), store.names());
        }
    }

    @Test
    void onlyNewAndChangedObjectsAreWritten() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node a = new Node("a");
                a.next(new Node("b"));
                a.next().next(new Node("c"));
                store.persist(a, "a");
            });
            assertEquals(3, store.statistics().recordsWritten());
            store.inTransaction(() -> store.fetch("a", Node.class).next().value(99));
            assertEquals(4, store.statistics().recordsWritten(), "one changed object, one record");
            store.inTransaction(() -> store.fetch("a", Node.class).name());
            assertEquals(4, store.statistics().recordsWritten(), "reading writes nothing");
            assertEquals(2, store.statistics().commits());
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(99, store.fetch("a", Node.class).next().value());
        }
    }

    /**
     * After close, as the Javadoc says: the location still names the store, inTransaction says
     * false (close aborted the transaction), and every other method throws (isPersistent
     * answered, true for an object and false for a list of the closed store).
     */
    @Test
    void closedStoreRefusesEverythingButCloseLocationAndInTransaction() {
        String uri = TestStores.newUri();
        PersistentStore store = TestStores.open(uri);
        Node n = new Node("n");
        List<String> list = new java.util.ArrayList<>(List.of("x"));
        store.inTransaction(() -> {
            store.persist(n, "n");
            store.persist(list, "list");
        });
        store.beginTransaction();
        store.close();
        store.close(); // idempotent
        assertEquals(uri, store.location());
        assertFalse(store.inTransaction());
        java.util.Map<String, org.junit.jupiter.api.function.Executable> calls = new java.util.LinkedHashMap<>();
        calls.put("beginTransaction", store::beginTransaction);
        calls.put("commitTransaction", store::commitTransaction);
        calls.put("abortTransaction", store::abortTransaction);
        calls.put("inTransaction(Runnable)", () -> store.inTransaction(() -> { }));
        calls.put("inTransaction(Supplier)", () -> store.inTransaction(() -> 1));
        calls.put("persist(Object, String)", () -> store.persist(new Node("m"), "m"));
        calls.put("persist(Object)", () -> store.persist(new Node("m")));
        calls.put("fetch(String)", () -> store.fetch("n"));
        calls.put("fetch(String, Class)", () -> store.fetch("n", Node.class));
        calls.put("preload", () -> store.preload("n"));
        calls.put("unbind", () -> store.unbind("n"));
        calls.put("isBound", () -> store.isBound("n"));
        calls.put("names", store::names);
        calls.put("collectGarbage", store::collectGarbage);
        calls.put("copyTo", () -> store.copyTo(TestStores.newUri()));
        calls.put("isPersistent(object)", () -> store.isPersistent(n));
        calls.put("isPersistent(list)", () -> store.isPersistent(list));
        calls.put("isPersistent(null)", () -> store.isPersistent(null));
        calls.put("statistics", store::statistics);
        calls.forEach((name, call) -> {
            StoreClosedException e = assertThrows(StoreClosedException.class, call, name + " after close");
            assertTrue(e.getMessage().contains(uri), e.getMessage());
        });
    }

    @Test
    void hollowObjectsOfAClosedStoreCannotBeFilled() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node a = new Node("a");
                a.next(new Node("b"));
                store.persist(a, "a");
            });
        }
        PersistentStore store = TestStores.open(uri);
        Node b = store.fetch("a", Node.class).next(); // hollow
        store.close();
        assertThrows(StoreClosedException.class, b::name);
    }

    @Test
    void closeAbortsAnActiveTransaction() {
        String uri = TestStores.newUri();
        Node n = new Node("n");
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            store.persist(n, "n");
        }
        assertFalse(n.$perpetua$state != 0, "the object is transient again");
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of(), store.names());
        }
    }

    @Test
    void openFindsBackendsByScheme() {
        PersistentStoreException unknown = assertThrows(PersistentStoreException.class,
                () -> PersistentStore.open("nosuch:/x"));
        assertTrue(unknown.getMessage().contains("nosuch"), unknown.getMessage());
        // core alone has no RocksDB: a bare path names the embedded default and says what to add
        PersistentStoreException missing = assertThrows(PersistentStoreException.class,
                () -> PersistentStore.open(Path.of("target", "no-rocksdb-here")));
        assertTrue(missing.getMessage().contains("perpetua-store-rocksdb"), missing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PersistentStore.open("memory:?bogus=1"));
        try (PersistentStore anonymous = PersistentStore.open("memory:")) {
            assertEquals(List.of(), anonymous.names(), "memory: alone opens a fresh anonymous store");
        }
    }

    @Test
    void statisticsCountObjectsNamesAndReads() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node a = new Node("a");
                a.next(new Node("b"));
                store.persist(a, "a");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            StoreStatistics s = store.statistics();
            assertEquals(2, s.objects());
            assertEquals(1, s.names());
            assertEquals(0, s.recordsRead());
            store.fetch("a", Node.class).next().name();
            assertEquals(2, store.statistics().recordsRead());
            assertNull(store.fetch("a", Node.class).next().next());
        }
    }
}
