package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.PersistentStore;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreLockedException;
import io.perpetua.StoreNotEmptyException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.SpecialNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PersistentStore#copyTo}: the copy is the store as committed, and a store of its own. */
class StoreCopyTest {

    /** A root reaching a node through every kind of stored reference, a shared list, a named list. */
    private static int fill(PersistentStore store) {
        List<Object> ways = GarbageCollectionTest.everyWayToHoldANode();
        int reached = GarbageCollectionTest.touchEverything(ways, new HashSet<>());
        store.inTransaction(() -> {
            Node root = new Node("root");
            root.any(ways.toArray());
            List<Node> shared = new ArrayList<>(List.of(new Node("shared list")));
            ((Node) ways.get(0)).children(shared);
            root.children(shared);
            store.persist(root, "root");
            store.persist(new ArrayList<>(List.of(new Node("a named list"))), "list");
        });
        return reached + 3;
    }

    private static int touchAll(PersistentStore store) {
        Set<Object> seen = new HashSet<>();
        return GarbageCollectionTest.touchEverything(store.fetch("root"), seen)
                + GarbageCollectionTest.touchEverything(store.fetch("list"), seen);
    }

    /** Every record of a backend, by id. */
    private static Map<Long, byte[]> records(String uri) {
        try (Backend b = Backends.open(uri)) {
            long[] ids = b.recordIds();
            Arrays.sort(ids);
            byte[][] records = b.readMany(ids);
            Map<Long, byte[]> out = new TreeMap<>();
            for (int i = 0; i < ids.length; i++) {
                out.put(ids[i], records[i]);
            }
            return out;
        }
    }

    /** A filled store and its copy: the stores' URIs, the objects a walk meets, the records. */
    private record Copied(String source, String copy, int objects, long stored) { }

    private static Copied fillAndCopy() {
        String source = TestStores.newUri();
        String copy = TestStores.newUri();
        try (PersistentStore store = TestStores.open(source)) {
            int objects = fill(store);
            long stored = store.statistics().objects();
            assertEquals(stored, store.copyTo(copy), "one per record");
            return new Copied(source, copy, objects, stored);
        }
    }

    @Test
    void theCopyHoldsEveryRecordNameAndDescriptorAndReadsBackWhole() {
        Copied c = fillAndCopy();
        String source = c.source();
        String copy = c.copy();
        Map<Long, byte[]> original = records(source);
        Map<Long, byte[]> copied = records(copy);
        assertEquals(original.keySet(), copied.keySet());
        original.forEach((id, bytes) -> assertArrayEquals(bytes, copied.get(id), "record " + id));
        try (Backend a = Backends.open(source); Backend b = Backends.open(copy)) {
            assertEquals(a.names(), b.names());
            assertEquals(a.classDescriptors().keySet(), b.classDescriptors().keySet());
            a.classDescriptors().forEach((k, v) -> assertArrayEquals(v, b.classDescriptors().get(k)));
        }
        try (PersistentStore store = TestStores.open(copy)) {
            assertEquals(List.of("list", "root"), store.names());
            assertEquals(c.objects(), touchAll(store), "every object, through every kind of reference");
            Node root = store.fetch("root", Node.class);
            Node holder = (Node) ((Object[]) root.any())[0];
            assertSame(root.children(), holder.children(), "a shared list is still shared");
        }
    }

    @Test
    void theCopyGoesOnAsAStoreOfItsOwnWithFreshIds() {
        Copied c = fillAndCopy();
        long stored = c.stored();
        try (PersistentStore store = TestStores.open(c.copy())) {
            store.inTransaction(() -> {
                Node root = store.fetch("root", Node.class);
                Node added = new Node("added in the copy");
                root.next(added);
                store.persist(new Node("named in the copy"), "new");
                store.persist(new SpecialNode("of a class new to the store", 1, 2L, "x"), "special");
            });
            assertEquals(stored + 3, store.statistics().objects(), "three new records: no copied id was handed out again");
        }
        try (PersistentStore store = TestStores.open(c.copy())) {
            assertEquals("added in the copy", store.fetch("root", Node.class).next().name());
            assertEquals("named in the copy", store.fetch("new", Node.class).name());
            assertEquals("x", store.fetch("special", SpecialNode.class).extra(),
                    "a new class descriptor, numbered after the copied ones");
            assertEquals(c.objects() + 1, touchAll(store), "what was copied, and the node added to the copy");
        }
        try (PersistentStore store = TestStores.open(c.source())) {
            assertEquals(stored, store.statistics().objects(), "the source did not change");
            assertNull(store.fetch("root", Node.class).next());
            assertFalse(store.isBound("new"));
        }
    }

    /** A copy into an anonymous memory store would be gone as it ends: refused, not reported done. */
    @Test
    void aCopyIntoAnAnonymousMemoryStoreIsRefused() {
        try (PersistentStore store = TestStores.open(TestStores.newUri())) {
            store.inTransaction(() -> store.persist(new Node("n"), "n"));
            for (String target : new String[] {"memory:", "memory:?"}) {
                IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> store.copyTo(target));
                org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("memory:backup"), e.getMessage());
            }
        }
    }

    @Test
    void onlyWhatWasCommittedIsCopiedAndTheTransactionGoesOn() {
        String source = TestStores.newUri();
        String copy = TestStores.newUri();
        try (PersistentStore store = TestStores.open(source)) {
            store.inTransaction(() -> store.persist(new Node("root", 1), "root"));
            store.beginTransaction();
            Node root = store.fetch("root", Node.class);
            root.value(2);
            store.persist(new Node("uncommitted"), "uncommitted");
            assertEquals(1, store.copyTo(copy));
            store.commitTransaction();
            assertEquals(2, store.fetch("root", Node.class).value());
        }
        try (PersistentStore store = TestStores.open(copy)) {
            assertEquals(1, store.fetch("root", Node.class).value());
            assertEquals(List.of("root"), store.names());
        }
    }

    @Test
    void aTargetThatIsNotEmptyIsRefusedAndLeftAsItWas() {
        String source = TestStores.newUri();
        String target = TestStores.newUri();
        try (PersistentStore store = TestStores.open(target)) {
            store.inTransaction(() -> store.persist(new Node("already there"), "there"));
        }
        Map<Long, byte[]> before = records(target);
        try (PersistentStore store = TestStores.open(source)) {
            fill(store);
            StoreNotEmptyException e = assertThrows(StoreNotEmptyException.class, () -> store.copyTo(target));
            assertEquals(1, e.records());
            assertEquals(1, e.names());
            assertTrue(e.location().contains(target.substring("memory:".length())), e.location());
            assertThrows(StoreLockedException.class, () -> store.copyTo(source), "itself: open");
        }
        assertEquals(before.keySet(), records(target).keySet());
        try (PersistentStore store = TestStores.open(target)) {
            assertEquals(List.of("there"), store.names());
            assertEquals("already there", store.fetch("there", Node.class).name());
        }
    }

    @Test
    void aClosedStoreCannotBeCopied() {
        PersistentStore store = TestStores.open(TestStores.newUri());
        store.close();
        assertThrows(StoreClosedException.class, () -> store.copyTo(TestStores.newUri()));
    }

    /** A store of about 6 MiB: more than one commit's worth of records for the copier. */
    private static String bigStore(int nodes) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                List<Node> all = new ArrayList<>();
                for (int i = 0; i < nodes; i++) {
                    Node n = new Node("n" + i, i);
                    byte[] payload = new byte[20_000];
                    Arrays.fill(payload, (byte) i);
                    n.any(payload);
                    all.add(n);
                }
                Node root = new Node("root");
                root.children(all);
                store.persist(root, "root");
            });
        }
        return uri;
    }

    @Test
    void aLargeStoreIsCopiedInSeveralCommits() {
        String source = bigStore(300);
        String copy = TestStores.newUri();
        CountingBackend target = new CountingBackend(Backends.open(copy), Integer.MAX_VALUE);
        try (Backend from = Backends.open(source); target) {
            assertEquals(from.recordIds().length, new StoreCopier(from, target).copy());
        }
        assertTrue(target.commits >= 3, "at least two batches of records and the names: " + target.commits);
        try (PersistentStore store = TestStores.open(copy)) {
            List<Node> all = store.fetch("root", Node.class).children();
            assertEquals(300, all.size());
            for (int i = 0; i < 300; i++) {
                byte[] payload = (byte[]) all.get(i).any();
                assertEquals(20_000, payload.length);
                assertEquals((byte) i, payload[19_999]);
                assertEquals(i, all.get(i).value());
            }
        }
    }

    @Test
    void aCopyThatFailsLeavesTheTargetWithoutRecordsOrNames() {
        String source = bigStore(300);
        long stored;
        try (Backend from = Backends.open(source)) {
            stored = from.recordIds().length;
        }
        for (int failAt = 1; failAt <= 3; failAt++) {
            String copy = TestStores.newUri();
            CountingBackend target = new CountingBackend(Backends.open(copy), failAt);
            try (Backend from = Backends.open(source); target) {
                StorageException e = assertThrows(StorageException.class,
                        () -> new StoreCopier(from, target).copy(), "failing at commit " + failAt);
                assertEquals("injected failure", e.getMessage());
            }
            try (Backend left = Backends.open(copy)) {
                assertEquals(0, left.recordIds().length, "the records written before the failure were deleted");
                assertTrue(left.names().isEmpty());
            }
            try (PersistentStore store = TestStores.open(source)) {
                assertEquals(stored, store.copyTo(copy), "the same target takes a copy afterwards");
            }
            try (PersistentStore store = TestStores.open(copy)) {
                assertEquals(300, store.fetch("root", Node.class).children().size());
            }
        }
    }

    @Test
    void aRecordTheSourceListsButCannotReadIsAnErrorNotAHole() {
        String source = bigStore(3);
        String copy = TestStores.newUri();
        try (Backend from = Backends.open(source); Backend to = Backends.open(copy)) {
            Backend holey = new CommitFailureTest.FailingBackend(from) {
                @Override
                public byte[][] readMany(long[] ids) {
                    byte[][] records = super.readMany(ids);
                    records[records.length - 1] = null;
                    return records;
                }
            };
            CorruptStoreException e = assertThrows(CorruptStoreException.class,
                    () -> new StoreCopier(holey, to).copy());
            assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
            assertEquals(0, to.recordIds().length);
            assertTrue(to.names().isEmpty());
        }
    }

    /** Counts commits, and fails the one numbered {@code failAt} (1 is the first). */
    private static final class CountingBackend extends CommitFailureTest.FailingBackend {
        private final int failAt;
        int commits;

        CountingBackend(Backend inner, int failAt) {
            super(inner);
            this.failAt = failAt;
        }

        @Override
        public void commit(WriteSet writes) {
            if (++commits == failAt) {
                throw new StorageException("injected failure", null);
            }
            super.commit(writes);
        }
    }
}
