package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.runtime.ObjectState;
import io.perpetua.testmodel.Jobs;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.Plain;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An object that cannot persist, reached at commit: a clear error naming its class and the
 * path from the root, and nothing written.
 */
class NotPersistableTest {

    @Test
    void aThreadDeepInTheGraphNamesItsPath() throws Exception {
        assertRejected(new Thread(() -> { }), Thread.class.getName(), "\"root\".next.children[1].any");
    }

    @Test
    void aStreamASocketAClassLoaderAndALambdaAreRejected() throws Exception {
        assertRejected(new ByteArrayInputStream(new byte[0]), ByteArrayInputStream.class.getName(), "\"root\".next.children[1].any");
        try (Socket socket = new Socket()) {
            assertRejected(socket, Socket.class.getName(), "\"root\".next.children[1].any");
        }
        assertRejected(new java.net.URLClassLoader(new java.net.URL[0]), java.net.URLClassLoader.class.getName(),
                "\"root\".next.children[1].any");
        Supplier<String> lambda = () -> "x";
        NotPersistableException e = assertRejected(lambda, lambda.getClass().getName(), "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("lambda"), e.getMessage());
    }

    /**
     * A persistent class's object whose persistence protocol methods are intercepted, as those of
     * an inline Mockito mock of a rewritten class are: they keep nothing and answer null and 0.
     */
    static final class Intercepted extends Node {
        static {
            io.perpetua.runtime.PersistentClasses.register(Intercepted.class, () -> new Intercepted());
        }

        Intercepted() {
            super("mock");
        }

        @Override
        public io.perpetua.runtime.ObjectHandle $perpetua$handle() {
            return null;
        }

        @Override
        public void $perpetua$handle(io.perpetua.runtime.ObjectHandle handle) {
        }

        @Override
        public byte $perpetua$state() {
            return 0;
        }

        @Override
        public void $perpetua$state(byte state) {
        }
    }

    /**
     * An object whose protocol methods are intercepted (a mock) is refused, naming its class and
     * path, reached from a field or persisted by name; it was an internal NullPointerException.
     */
    @Test
    void anObjectWhoseProtocolMethodsAreInterceptedIsRefused() throws Exception {
        NotPersistableException e = assertRejected(new Intercepted(), Intercepted.class.getName(),
                "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("mock or proxy"), e.getMessage());
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.beginTransaction();
            e = assertThrows(NotPersistableException.class, () -> store.persist(new Intercepted(), "mock"));
            assertEquals("\"mock\"", e.path());
            assertEquals(Intercepted.class.getName(), e.className());
            store.abortTransaction();
        }
    }

    private static Object optionals(int depth) {
        Object o = "leaf";
        for (int i = 0; i < depth; i++) {
            o = Optional.of(o);
        }
        return o;
    }

    /**
     * Optionals holding Optionals are written by a recursion, as records are: a chain too deep
     * is refused as a chain of records is, with the path, not by the commit's stack overflowing;
     * nothing is written, and one as deep as the commit accepts reads back whole.
     */
    @Test
    void optionalsNestedTooDeepAreRefusedClearly() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("root"), "root"));
            long objects = store.statistics().objects();
            NotPersistableException e = assertThrows(NotPersistableException.class, () -> store.inTransaction(() -> {
                store.fetch("root", Node.class).any(optionals(100_000));
            }));
            assertEquals(Optional.class.getName(), e.className());
            assertTrue(e.path().startsWith("\"root\"."), e.path());
            assertTrue(e.reason().contains("nest deeper than 512 levels"), e.reason());
            assertEquals(objects, store.statistics().objects(), "nothing was written");
            store.inTransaction(() -> store.fetch("root", Node.class).any(optionals(512)));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Object o = store.fetch("root", Node.class).any();
            int depth = 0;
            while (o instanceof Optional<?> optional) {
                o = optional.get();
                depth++;
            }
            assertEquals(512, depth);
            assertEquals("leaf", o);
        }
    }

    /** A record of this test, stored as a value. */
    public record Line(String sku, int n) {
    }

    /**
     * A record refused (here: its class comes from a loader the store does not read with, as a
     * plug-in's) names the path to it, in a field and in a list, as every other refusal does.
     */
    @Test
    void aRefusedRecordNamesItsPath() throws Exception {
        java.net.URL classes = Line.class.getProtectionDomain().getCodeSource().getLocation();
        try (java.net.URLClassLoader plugIn = new java.net.URLClassLoader(new java.net.URL[] {classes},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> other = plugIn.loadClass(Line.class.getName());
            assertTrue(other != Line.class && other.isRecord());
            Object line = other.getDeclaredConstructors()[0].newInstance("tea", 3);
            NotPersistableException e = assertRejected(line, Line.class.getName(), "\"root\".next.children[1].any");
            assertTrue(e.reason().contains("comes from the class loader"), e.reason());
            assertRejected(new ArrayList<>(List.of("first", line)), Line.class.getName(),
                    "\"root\".next.children[1].any[1]");
        }
    }

    /**
     * A bad object put into a graph read back from the store: the commit starts from the stored
     * object that changed, and the path still runs from the root, as the program reached it.
     */
    /**
     * A view of a sorted set is a set of the same class, which a stored copy would no longer be
     * (it would not see the set's later changes, nor keep its range): refused, as the views of a
     * map are; a whole set, of either order, is stored.
     */
    @Test
    void viewsOfSortedSetsAndMapsAreRefusedAndSaySo() {
        java.util.TreeSet<Integer> numbers = new java.util.TreeSet<>(List.of(10, 20, 30));
        java.util.concurrent.ConcurrentSkipListSet<Integer> concurrent = new java.util.concurrent.ConcurrentSkipListSet<>(
                List.of(1, 2, 3));
        for (java.util.Set<Integer> view : List.of(numbers.descendingSet(), numbers.headSet(25), numbers.tailSet(15),
                numbers.subSet(10, 30), numbers.descendingSet().descendingSet(), concurrent.descendingSet(),
                concurrent.headSet(2))) {
            NotPersistableException e = assertRejected(view, view.getClass().getName(), "\"root\".next.children[1].any");
            assertTrue(e.reason().startsWith("it is a view of another sorted set"), e.reason());
        }
        java.util.TreeMap<String, Integer> map = new java.util.TreeMap<>(java.util.Map.of("a", 1, "b", 2));
        NotPersistableException e = assertRejected(map.headMap("b"), map.headMap("b").getClass().getName(),
                "\"root\".next.children[1].any");
        assertTrue(e.reason().contains("view of another one"), e.reason());

        String uri = TestStores.newUri();
        java.util.TreeSet<Integer> reversed = new java.util.TreeSet<>(java.util.Comparator.reverseOrder());
        reversed.addAll(List.of(1, 3, 2));
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                root.any(new ArrayList<>(List.of(numbers, concurrent, reversed)));
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(List.of(numbers, concurrent, reversed), store.fetch("root", Node.class).any());
            assertEquals(List.of(3, 2, 1), new ArrayList<>((java.util.Set<?>) ((List<?>) store.fetch("root", Node.class)
                    .any()).get(2)));
        }
    }

    /**
     * An anonymous class's name is its place among its outer class's anonymous classes, which
     * another one added before it in a later version would take, with its stored objects.
     */
    @Test
    void anAnonymousClassIsRefusedWithTheWayOut() {
        Node anonymous = new Node("anonymous") { };
        NotPersistableException e = assertRejected(anonymous, anonymous.getClass().getName(),
                "\"root\".next.children[1].any");
        assertTrue(e.reason().startsWith("it is an anonymous class"), e.reason());
        assertTrue(e.reason().contains(anonymous.getClass().getName() + " = <the named class>"), e.reason());
    }

    /** A store reached at commit (an inner class's outer object holding it, say) is named as Perpetua's own. */
    @Test
    void aStoreReachedAtCommitIsNamedAsPerpetuasOwn() {
        try (PersistentStore other = TestStores.open(TestStores.newUri())) {
            NotPersistableException e = assertRejected(other, Kernel.class.getName(), "\"root\".next.children[1].any");
            assertTrue(e.reason().startsWith("it is part of Perpetua (a store, or what serves one)"), e.reason());
            assertFalse(e.reason().contains("-javaagent"), e.reason());
        }
    }

    @Test
    void aBadObjectHungOffStoredObjectsNamesThePathFromTheRoot() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                Node deep = new Node("deep");
                deep.next(new Node("deeper"));
                root.children(new ArrayList<>(List.of(new Node("a"), new Node("b"), deep)));
                java.util.Map<String, Object> extras = new java.util.HashMap<>();
                extras.put("printer", new Node("printer"));
                root.any(extras);
                store.persist(root, "root");
                store.persist(new Node("other"), "other");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            store.beginTransaction();
            root.children().get(2).next().any(new Thread()); // a field of a stored object
            assertEquals("\"root\".children[2].next.any", assertThrows(NotPersistableException.class, store::commitTransaction).path());
            root.children().get(2).next().any(null);
            @SuppressWarnings("unchecked")
            java.util.Map<String, Object> extras = (java.util.Map<String, Object>) root.any();
            ((Node) extras.get("printer")).any(new Thread()); // reached through a stored map
            assertEquals("\"root\".any[\"printer\"].any", assertThrows(NotPersistableException.class, store::commitTransaction).path());
            ((Node) extras.get("printer")).any(null);
            extras.put("socket", new Thread()); // a value of a stored map: its key names the step
            assertEquals("\"root\".any[\"socket\"]", assertThrows(NotPersistableException.class, store::commitTransaction).path());
            extras.remove("socket");
            Node added = new Node("added");
            added.any(new Thread());
            root.children().add(added); // a new object in a stored list
            assertEquals("\"root\".children[3].any", assertThrows(NotPersistableException.class, store::commitTransaction).path());
            root.children().remove(added);
            store.commitTransaction();
        }
    }

    /**
     * A class of the program extending PriorityQueue, given a comparator by PriorityQueue(Collection)
     * (it takes the comparator of the queue it copies): refused, since one read back would sort by
     * natural order; without a comparator it is stored.
     */
    @Test
    void aQueueOfTheProgramWithAComparatorIsRefusedWhateverGaveItOne() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            java.util.PriorityQueue<Integer> reversed = new java.util.PriorityQueue<>(java.util.Comparator.reverseOrder());
            reversed.addAll(List.of(1, 5, 3));
            Jobs jobs = new Jobs(reversed);
            assertEquals(5, jobs.peek(), "the queue took the comparator");
            store.beginTransaction();
            store.persist(jobs, "jobs");
            NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertEquals("\"jobs\"", e.path());
            assertTrue(e.reason().startsWith("it has a comparator ("), e.reason());
            store.abortTransaction();
            store.inTransaction(() -> store.persist(new Jobs(List.of(4, 2)), "natural"));
            assertEquals(List.of("natural"), store.names());
        }
    }

    /** An object read before a close, reached again after the store was opened again: refused, saying what to do. */
    @Test
    void anObjectOfAnEarlierOpeningOfTheStoreIsRejectedWithWhatToDo() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("n"), "n"));
        }
        Node earlier;
        try (PersistentStore store = TestStores.open(uri)) {
            earlier = store.fetch("n", Node.class);
        }
        assertEquals("n", earlier.name(), "a resident object stays readable after the close");
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            Node root = new Node("root");
            root.next(earlier);
            store.persist(root, "root");
            NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertEquals("\"root\".next", e.path());
            assertTrue(e.reason().contains("an earlier opening of this store, closed since")
                    && e.reason().contains("fetch it again"), e.reason());
            root.next(store.fetch("n", Node.class)); // as the message says
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("n", store.fetch("root", Node.class).next().name());
            assertTrue(store.fetch("root", Node.class).next() == store.fetch("n"), "one object, under its two paths");
        }
    }

    @Test
    void aJdkClassPerpetuaDoesNotStoreIsRejectedWithWhatToStoreInstead() {
        NotPersistableException e = assertRejected(java.nio.CharBuffer.wrap("s"), java.nio.CharBuffer.wrap("s").getClass().getName(),
                "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("store a String"), e.getMessage());
    }

    /**
     * A lock's condition, or a read-write lock's read lock, is serializable, but a stored copy
     * would come back working on a lock of its own: refused, saying what to store instead, as is
     * a map's key set held by itself.
     */
    @Test
    void aConditionOrAReadLockIsRejectedForTheLockItBelongsTo() {
        java.util.concurrent.locks.Condition condition = new java.util.concurrent.locks.ReentrantLock().newCondition();
        NotPersistableException e = assertRejected(condition, condition.getClass().getName(), "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("belongs to the object that made it"), e.getMessage());
        java.util.concurrent.locks.Lock read = new java.util.concurrent.locks.ReentrantReadWriteLock().readLock();
        e = assertRejected(read, read.getClass().getName(), "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("belongs to the object that made it"), e.getMessage());
        java.util.Set<String> keys = new java.util.HashMap<String, Integer>(java.util.Map.of("k", 1)).keySet();
        e = assertRejected(keys, keys.getClass().getName(), "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("a map's key set"), e.getMessage());
    }

    /** A user interface component is serializable, but would come back as a copy on no screen. */
    @Test
    void aUserInterfaceComponentIsRejected() {
        NotPersistableException e = assertRejected(new javax.swing.JLabel("l"), javax.swing.JLabel.class.getName(),
                "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("user interface component"), e.getMessage());
    }

    /**
     * The JDK's serializable classes are stored by their serialization, but not a collection
     * the kernel does not know: its elements may be objects of the store, which a serialized
     * form cannot refer to.
     */
    @Test
    void aSerializableJdkCollectionPerpetuaDoesNotKnowIsRejected() {
        List<String> checked = java.util.Collections.checkedList(new ArrayList<>(List.of("a")), String.class);
        NotPersistableException e = assertRejected(checked, checked.getClass().getName(), "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("Perpetua does not store this JDK class"), e.getMessage());
    }

    @Test
    void propertiesWithDefaultsAreRejectedRatherThanStoredWithoutThem() {
        java.util.Properties defaults = new java.util.Properties();
        defaults.setProperty("colour", "blue");
        java.util.Properties withDefaults = new java.util.Properties(defaults);
        withDefaults.setProperty("size", "9");
        NotPersistableException e = assertRejected(withDefaults, java.util.Properties.class.getName(),
                "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("defaults (property \"colour\")"), e.getMessage());
    }

    @Test
    void aClassTheAgentDidNotRewriteIsRejectedWithAHint() throws Exception {
        NotPersistableException e = assertRejected(new Plain(), Plain.class.getName(), "\"root\".next.children[1].any");
        assertTrue(e.getMessage().contains("-javaagent"), e.getMessage());
    }

    /** A record with an Optional component, stored as values. */
    record Pair(String name, java.util.Optional<Object> maybe) {
    }

    /**
     * The path through an Optional names the field (or record component) that holds it, then
     * its value: it named the value as if it were the holder's field ({@code ...any} became
     * {@code ...value}).
     */
    @Test
    void thePathThroughAnOptionalNamesTheFieldThatHoldsIt() throws Exception {
        assertRejected(java.util.Optional.of(new Thread()), Thread.class.getName(), "\"root\".next.children[1].any.value");
        assertRejected(java.util.Optional.of(java.util.Optional.of(new Thread())), Thread.class.getName(),
                "\"root\".next.children[1].any.value.value");
        assertRejected(new Object[] {new Pair("p", java.util.Optional.of(new Thread()))}, Thread.class.getName(),
                "\"root\".next.children[1].any[0].maybe.value");
    }

    @Test
    void persistOfAnUnstorableObjectFailsAtOnce() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.beginTransaction();
            NotPersistableException e = assertThrows(NotPersistableException.class, () -> store.persist(new Thread(), "t"));
            assertEquals("\"t\"", e.path());
            store.abortTransaction();
        }
    }

    /** Builds root → next → children[1] → any = bad, commits, and checks nothing was written. */
    private static NotPersistableException assertRejected(Object bad, String className, String path) {
        String uri = TestStores.newUri();
        NotPersistableException e;
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(new Node("root"), "root"));
            long objects = store.statistics().objects();
            Node root = store.fetch("root", Node.class);
            store.beginTransaction();
            Node next = new Node("next");
            Node culprit = new Node("culprit");
            culprit.any(bad);
            next.children(new ArrayList<>(List.of(new Node("fine"), culprit)));
            root.next(next);
            e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertEquals(className, e.className());
            assertEquals(path, e.path());
            assertEquals(objects, store.statistics().objects(), "nothing was written");
            assertTrue(store.inTransaction(), "a failed commit leaves the transaction active");
            assertFalse(store.isPersistent(next), "what the failed commit reached is transient again");
            assertEquals(ObjectState.TRANSIENT, culprit.$perpetua$state);
            culprit.any(null); // fix the graph: the retried commit succeeds
            store.commitTransaction();
            assertTrue(store.isPersistent(culprit));
        }
        try (PersistentStore store = TestStores.open(uri)) { // not in a finally: it would hide a failed assertion
            Node culprit = store.fetch("root", Node.class).next().children().get(1);
            assertEquals("culprit", culprit.name());
            assertNull(culprit.any());
        }
        return e;
    }
}
