package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.runtime.ObjectState;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hollow shells, fault-in on first touch, the weak object table, and concurrent faults. */
class FaultInTest {

    /** Stores a chain of {@code n} nodes under "chain" and returns the store's URI. */
    private static String chain(int n) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node head = new Node("n0", 0);
                Node tail = head;
                for (int i = 1; i < n; i++) {
                    Node next = new Node("n" + i, i);
                    tail.next(next);
                    tail = next;
                }
                store.persist(head, "chain");
            });
        }
        return uri;
    }

    @Test
    void nothingIsReadThatTheProgramDoesNotTouch() {
        try (PersistentStore store = TestStores.open(chain(10))) {
            Node head = store.fetch("chain", Node.class);
            assertEquals(1, store.statistics().recordsRead(), "fetch reads the root only");
            Node second = head.next();
            assertEquals(ObjectState.HOLLOW, second.$perpetua$state, "a referenced object is a hollow shell");
            assertEquals(1, store.statistics().recordsRead(), "holding a reference reads nothing");
            assertEquals("n1", second.name());
            assertEquals(2, store.statistics().recordsRead(), "the first touch reads it");
            assertEquals(1, second.value());
            assertEquals(2, store.statistics().recordsRead(), "once");
            assertSame(head, store.fetch("chain"), "fetching again gives the same object");
            assertEquals(2, store.statistics().recordsRead(), "without reading again");
        }
    }

    @Test
    void writingAHollowObjectFillsItFirst() {
        String uri = chain(3);
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.fetch("chain", Node.class).next().value(100));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node second = store.fetch("chain", Node.class).next();
            assertEquals(100, second.value());
            assertEquals("n1", second.name(), "fields not written kept their stored values");
            assertEquals("n2", second.next().name());
        }
    }

    @Test
    void cleanObjectsTheProgramDropsAreCollected() throws Exception {
        try (PersistentStore store = TestStores.open(chain(2000))) {
            Node head = store.fetch("chain", Node.class);
            for (Node n = head; n != null; n = n.next()) {
                n.value(); // fill every node
            }
            WeakReference<Node> probe = new WeakReference<>(head.next().next());
            long resident = store.statistics().residentObjects();
            assertEquals(2000, resident);
            head = null; // the program keeps nothing; the store must not keep it either
            TestStores.awaitCollected(probe);
            assertNull(probe.get(), "a clean persistent object is held weakly");
            // its handle reaches the table's queue a little after the object is cleared (the JVM's
            // reference handler thread), later still on a loaded machine
            for (int i = 0; i < 100 && store.statistics().residentObjects() >= resident; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertTrue(store.statistics().residentObjects() < resident, "and its table entry goes");
            assertEquals("n0", store.fetch("chain", Node.class).name(), "it can be read again");
        }
    }

    /** Arrays of up to 4 elements are remembered in their handle, longer ones in an array: both. */
    @ParameterizedTest
    @ValueSource(ints = {1, 6})
    void objectsWhoseArraysReachBackToThemAreCollectedToo(int length) throws Exception {
        // what the kernel remembers of an array to find changes in place must not pin it:
        // owner -> array -> child -> owner is the shape of every OO1 part and its connections
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                Node owner = new Node("owner");
                Node[] children = new Node[length];
                for (int i = 0; i < length; i++) {
                    children[i] = new Node("child" + i);
                    children[i].next(owner);
                }
                owner.any(children);
                root.next(owner);
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Node[] array = (Node[]) root.next().any();
            assertEquals("owner", array[length - 1].next().name());
            WeakReference<Node> owner = new WeakReference<>(root.next());
            WeakReference<Node[]> probe = new WeakReference<>(array);
            root = null;
            array = null;
            TestStores.awaitCollected(probe, owner);
            assertNull(owner.get(), "a clean object whose array reaches back to it is held weakly");
            assertNull(probe.get(), "and so is its array");
            assertEquals("child" + (length - 1),
                    ((Node[]) store.fetch("root", Node.class).next().any())[length - 1].name(),
                    "they can be read again");
        }
    }

    @Test
    void dirtyObjectsAreHeldUntilCommitEvenIfTheProgramDropsThem() throws Exception {
        String uri = chain(3);
        try (PersistentStore store = TestStores.open(uri)) {
            store.beginTransaction();
            Node last = store.fetch("chain", Node.class).next().next();
            last.name("changed");
            WeakReference<Node> probe = new WeakReference<>(last);
            last = null;
            for (int i = 0; i < 20; i++) {
                System.gc();
            }
            assertTrue(probe.get() != null, "a dirty object is held strongly");
            store.commitTransaction();
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("changed", store.fetch("chain", Node.class).next().next().name());
        }
    }

    @Test
    void threadsFaultingTheSameObjectsGetOneFilledObjectEach() throws Exception {
        int count = 2000;
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node root = new Node("root");
                List<Node> kids = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    kids.add(new Node("k" + i, i));
                }
                root.children(kids);
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            List<Node> kids = store.fetch("root", Node.class).children();
            long before = store.statistics().recordsRead(); // the root and its list
            int threads = 4;
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Long>> sums = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                sums.add(pool.submit(() -> {
                    start.await();
                    long sum = 0;
                    for (Node k : kids) {
                        assertEquals("k" + k.value(), k.name());
                        sum += k.value();
                    }
                    return sum;
                }));
            }
            for (Future<Long> f : sums) {
                assertEquals((long) count * (count - 1) / 2, f.get(60, TimeUnit.SECONDS));
            }
            pool.shutdown();
            assertEquals(before + count, store.statistics().recordsRead(), "each object was read exactly once");
        }
    }
}
