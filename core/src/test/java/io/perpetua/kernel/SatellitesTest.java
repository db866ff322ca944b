package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.runtime.ObjectState;
import io.perpetua.spi.Backends;
import io.perpetua.testmodel.Leaf;
import io.perpetua.testmodel.Memo;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Small leaf objects stored in the record of the object whose embedded container holds them. */
class SatellitesTest {

    /** A node whose {@code any} is an array of {@code n} leaves (weights 0..n-1), bound to "home". */
    private static String homeWithLeaves(int n) {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node home = new Node("home");
                Leaf[] leaves = new Leaf[n];
                for (int i = 0; i < n; i++) {
                    leaves[i] = new Leaf("leaf" + i, i);
                }
                home.any(leaves);
                store.persist(home, "home");
            });
        }
        return uri;
    }

    @Test
    void leavesInAnEmbeddedArrayAreStoredInTheirHomesRecordAndReadWithIt() {
        String uri = homeWithLeaves(3);
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(1, store.statistics().objects(), "one record: the home, its array and its three leaves");
            Node home = store.fetch("home", Node.class);
            Leaf[] leaves = (Leaf[]) home.any();
            assertEquals(1, store.statistics().recordsRead());
            for (int i = 0; i < 3; i++) {
                assertEquals(ObjectState.HOLLOW, leaves[i].$perpetua$state, "filled when touched, not before");
            }
            for (int i = 0; i < 3; i++) {
                assertEquals("leaf" + i, leaves[i].label());
                assertEquals(i, leaves[i].weight());
            }
            assertEquals(1, store.statistics().recordsRead(), "touching them reads nothing more: the home's record");
        }
    }

    /**
     * OO1's insert in small: a new node reached through a changed index array holds a new leaf in
     * its array, and the leaf is also added to an old node's array. The leaf belongs with the new
     * node, the one that made it, whatever order the commit meets them in.
     */
    @Test
    void aNewLeafReachedByANewAndAnOldObjectLivesWithTheNewOne() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                store.persist(new Object[1], "index");
                Node old = new Node("old");
                old.any(new Leaf[0]);
                store.persist(old, "old");
            });
        }
        long leafId;
        try (PersistentStore store = TestStores.open(uri)) {
            Object[] index = store.fetch("index", Object[].class);
            Node old = store.fetch("old", Node.class);
            Leaf leaf = new Leaf("made by young", 7);
            Node young = new Node("young");
            store.inTransaction(() -> {
                young.any(new Leaf[] {leaf});
                index[0] = young;                 // reached through a changed array
                old.any(new Leaf[] {leaf});       // and through a dirty object
            });
            leafId = leaf.$perpetua$handle().id();
            assertTrue(Satellites.isSatellite(leafId));
            assertEquals(young.$perpetua$handle().id(), Satellites.home(leafId), "the leaf lives in the record of the node that made it");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf viaOld = ((Leaf[]) store.fetch("old", Node.class).any())[0];
            Leaf viaYoung = ((Leaf[]) ((Node) store.fetch("index", Object[].class)[0]).any())[0];
            assertSame(viaOld, viaYoung);
            assertEquals(7, viaOld.weight());
            assertEquals(leafId, viaOld.$perpetua$handle().id());
        }
    }

    @Test
    void aChangedLeafRewritesItsHomeAndOnlyThat() {
        String uri = homeWithLeaves(3);
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf[] leaves = (Leaf[]) store.fetch("home", Node.class).any();
            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> leaves[1].weight(100));
            assertEquals(written + 1, store.statistics().recordsWritten(), "the home's record, with its leaves");
            assertEquals(1, store.statistics().objects());
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf[] leaves = (Leaf[]) store.fetch("home", Node.class).any();
            assertEquals(0, leaves[0].weight());
            assertEquals(100, leaves[1].weight());
            assertEquals(2, leaves[2].weight());
        }
    }

    /**
     * A satellite changed only inside a holder it keeps (a StringBuilder appended to, a Date set):
     * the commit finds the change in its scan, after it listed the homes of changed satellites,
     * and its home's record must encode it anew, each time, not copy its stored bytes.
     */
    @Test
    void aSatelliteChangedOnlyInsideItsHoldersIsWrittenEveryTime() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node home = new Node("home");
                home.any(new Memo[] {new Memo("x", 0), new Memo("y", 0)});
                store.persist(home, "home");
            });
        }
        for (int round = 1; round <= 3; round++) {
            try (PersistentStore store = TestStores.open(uri)) {
                Memo memo = ((Memo[]) store.fetch("home", Node.class).any())[0];
                store.inTransaction(() -> {
                    memo.body().append('!');
                    memo.when().setTime(memo.when().getTime() + 1000);
                });
                long written = store.statistics().recordsWritten();
                store.inTransaction(() -> memo.body().length()); // read only
                assertEquals(written, store.statistics().recordsWritten(), "a read-only commit writes nothing");
            }
            try (PersistentStore store = TestStores.open(uri)) {
                Memo[] memos = (Memo[]) store.fetch("home", Node.class).any();
                assertEquals("x" + "!".repeat(round), memos[0].body().toString());
                assertEquals(1000L * round, memos[0].when().getTime());
                assertEquals("y", memos[1].body().toString());
            }
        }
    }

    /**
     * The holders a satellite keeps in its record are the satellite's, not its home's: after an
     * abort refills the satellite, or after the JVM collected it, it finds the holder the program
     * still has, rather than making a new one and leaving the program's changes to the old one
     * unsaved. Both were lost for a satellite made in the same session.
     */
    @Test
    void aSatellitesHolderKeepsItsIdentityAcrossAnAbortAndACollection() throws Exception {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            List<Object> made = satelliteThroughAnAbort(store);
            StringBuilder body = (StringBuilder) made.get(0);
            @SuppressWarnings("unchecked")
            WeakReference<Memo> collected = (WeakReference<Memo>) made.get(1);
            TestStores.awaitCollected(collected); // nothing holds the satellite or its home now, only its holder
            assertNull(collected.get());
            store.inTransaction(() -> body.append('z'));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Memo memo = ((Memo[]) store.fetch("home", Node.class).any())[0];
            assertEquals("ayz", memo.body().toString());
            assertEquals(0, memo.count());
        }
    }

    /** @return the holder of a satellite made now, and a weak reference to the satellite, which nothing else holds */
    private static List<Object> satelliteThroughAnAbort(PersistentStore store) {
        Memo memo = new Memo("a", 0);
        Node home = new Node("home");
        home.any(new Memo[] {memo});
        store.inTransaction(() -> store.persist(home, "home"));
        StringBuilder body = memo.body();
        store.beginTransaction();
        memo.count(5);
        body.append('x');
        store.abortTransaction();
        assertSame(body, memo.body(), "refilled by the abort, the satellite has the program's holder");
        assertEquals("a", body.toString(), "and the abort put it back");
        store.inTransaction(() -> body.append('y'));
        return List.of(body, new WeakReference<>(memo));
    }

    @Test
    void aLeafReachedFirstByAnotherPathIsReadFromItsHomesRecordWhichComesAlong() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node home = new Node("home");
                Leaf leaf = new Leaf("shared", 7);
                home.any(new Leaf[] {leaf});
                Node other = new Node("other");
                other.any(leaf); // a direct field: this reference does not make it a satellite of other
                Node root = new Node("root");
                root.children(new ArrayList<>(List.of(home, other)));
                store.persist(root, "root");
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node root = store.fetch("root", Node.class);
            Node other = root.children().get(1);
            long reads = store.statistics().recordsRead();
            Leaf leaf = (Leaf) other.any();
            assertEquals(reads + 1, store.statistics().recordsRead(), "other's record");
            assertEquals(7, leaf.weight());
            assertEquals(reads + 2, store.statistics().recordsRead(), "one read: the home's record");
            Node home = root.children().get(0);
            assertEquals("home", home.name(), "the home came in with it");
            assertSame(leaf, ((Leaf[]) home.any())[0], "one object, whichever path reached it");
            assertEquals(reads + 2, store.statistics().recordsRead());
        }
    }

    @Test
    void aNamedLeafIsFetchedThroughItsHome() {
        String uri = homeWithLeaves(2);
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf leaf = ((Leaf[]) store.fetch("home", Node.class).any())[1];
            store.inTransaction(() -> store.persist(leaf, "second"));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf leaf = store.fetch("second", Leaf.class);
            assertEquals("leaf1", leaf.label());
            assertSame(leaf, ((Leaf[]) store.fetch("home", Node.class).any())[1]);
        }
    }

    @Test
    void aHomeHoldsAtMostMaxSatellites() {
        String uri = homeWithLeaves(20);
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals(1 + 20 - Satellites.MAX, store.statistics().objects(), "the home, and the leaves beyond the most it holds on their own");
            Leaf[] leaves = (Leaf[]) store.fetch("home", Node.class).any();
            for (int i = 0; i < 20; i++) {
                assertEquals(i, leaves[i].weight());
            }
        }
    }

    @Test
    void objectsThatCanHoldContainersAreNeverSatellites() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                Node home = new Node("home");
                home.any(new Node[] {new Node("a"), new Node("b")});
                store.persist(home, "home");
            });
            assertEquals(3, store.statistics().objects());
        }
    }

    @Test
    void aHomeRewrittenAfterItsLeafWasCollectedKeepsTheLeaf() throws Exception {
        String uri = homeWithLeaves(2);
        try (PersistentStore store = TestStores.open(uri)) {
            Node home = store.fetch("home", Node.class);
            WeakReference<Leaf> probe = nameFirstAndDropIt(store, home);
            for (int i = 0; i < 100 && probe.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
                store.fetch("home"); // lets the store drop handles of what was collected
            }
            assertNull(probe.get(), "a clean leaf nothing refers to is collected");
            store.inTransaction(() -> home.name("home, renamed")); // rewrites the home without leaf 0 resident
        }
        try (PersistentStore store = TestStores.open(uri)) {
            assertEquals("leaf0", store.fetch("first", Leaf.class).label(), "taken from the stored record");
            assertEquals("home, renamed", store.fetch("home", Node.class).name());
        }
    }

    /** Binds leaf 0 to "first" and takes it out of the home's array: then only the name reaches it. */
    private static WeakReference<Leaf> nameFirstAndDropIt(PersistentStore store, Node home) {
        Leaf first = ((Leaf[]) home.any())[0];
        Leaf second = ((Leaf[]) home.any())[1];
        store.inTransaction(() -> store.persist(first, "first"));
        store.inTransaction(() -> home.any(new Leaf[] {second}));
        return new WeakReference<>(first);
    }

    @Test
    void aFailedCommitGivesBackTheSatellitesItMade() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node home = new Node("home");
            home.any(new Leaf[] {new Leaf("a", 1), new Leaf("b", 2)});
            Node bad = new Node("bad");
            bad.any(new Thread());
            home.next(bad);
            store.beginTransaction();
            store.persist(home, "home");
            assertThrows(NotPersistableException.class, store::commitTransaction);
            Leaf[] leaves = (Leaf[]) home.any();
            assertEquals(ObjectState.TRANSIENT, leaves[0].$perpetua$state, "not persistent after the failure");
            bad.any(null);
            store.commitTransaction();
            assertTrue(store.isPersistent(leaves[1]));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf[] leaves = (Leaf[]) store.fetch("home", Node.class).any();
            assertEquals(2, leaves.length);
            assertEquals("a", leaves[0].label());
            assertEquals(2, leaves[1].weight());
            assertEquals(2, store.statistics().objects(), "home (with a and b) and bad");
        }
    }

    @Test
    void aHomeRecordThatLostItsSatellitesIsACorruptStoreNotASilentGap() {
        String uri = homeWithLeaves(2);
        long homeId;
        try (PersistentStore store = TestStores.open(uri)) {
            homeId = ((Handle) store.fetch("home", Node.class).$perpetua$handle).id();
        }
        // the home's record as a damaged store might hold it: the body without the satellites
        CommitFailureTest.FailingBackend cut = new CommitFailureTest.FailingBackend(Backends.open(URI.create(uri))) {
            @Override
            public byte[] read(long id) {
                byte[] record = super.read(id);
                return id == homeId ? Arrays.copyOf(record, Satellites.bodyEnd(record)) : record;
            }
        };
        try (PersistentStore store = new Kernel(cut)) {
            Node home = store.fetch("home", Node.class);
            Leaf[] leaves = (Leaf[]) home.any();
            CorruptStoreException e = assertThrows(CorruptStoreException.class, leaves[0]::label);
            assertTrue(e.getMessage().contains("#" + homeId), e.getMessage());
        }
    }

    /**
     * A store where {@code other} refers to leaf 2 of {@code home}: {@code other}'s record, and
     * where in it the reference starts.
     */
    private record LeafReference(String uri, long homeId, long leafId, long otherId, byte[] record, int at, int length) {
        static LeafReference make() {
            String uri = homeWithLeaves(2);
            long[] ids = new long[3];
            try (PersistentStore store = TestStores.open(uri)) {
                Node home = store.fetch("home", Node.class);
                Leaf leaf = ((Leaf[]) home.any())[1];
                Node other = new Node("other");
                other.any(leaf);
                store.inTransaction(() -> store.persist(other, "other"));
                ids[0] = ((Handle) home.$perpetua$handle).id();
                ids[1] = ((Handle) leaf.$perpetua$handle).id();
                ids[2] = ((Handle) other.$perpetua$handle).id();
            }
            assertEquals(Satellites.id(ids[0], 2), ids[1]);
            byte[] stored;
            try (var backend = Backends.open(URI.create(uri))) {
                stored = backend.read(ids[2]);
            }
            // the reference: the tag, the leaf's class (one byte here), its home, its index
            ByteOut tail = new ByteOut(16);
            tail.writeVarLong(ids[0]);
            tail.writeVarInt(2);
            byte[] homeAndIndex = tail.toByteArray();
            for (int i = 0; i + 2 + homeAndIndex.length <= stored.length; i++) {
                if (stored[i] == Tag.SATELLITE
                        && Arrays.equals(stored, i + 2, i + 2 + homeAndIndex.length, homeAndIndex, 0, homeAndIndex.length)) {
                    return new LeafReference(uri, ids[0], ids[1], ids[2], stored, i, 2 + homeAndIndex.length);
                }
            }
            throw new AssertionError("no reference to satellite 2 of #" + ids[0] + " as home and index in other's record");
        }

        /** @return other's record with its reference to the leaf replaced by {@code reference} */
        byte[] with(byte[] reference) {
            byte[] b = new byte[record.length - length + reference.length];
            System.arraycopy(record, 0, b, 0, at);
            System.arraycopy(reference, 0, b, at, reference.length);
            System.arraycopy(record, at + length, b, at + reference.length, record.length - at - length);
            return b;
        }

        /** @return the store, with {@code served} read as other's record */
        PersistentStore open(byte[] served) {
            return new Kernel(new CommitFailureTest.FailingBackend(Backends.open(URI.create(uri))) {
                @Override
                public byte[] read(long id) {
                    return id == otherId ? served.clone() : super.read(id);
                }

                @Override
                public byte[][] readMany(long[] many) {
                    byte[][] records = super.readMany(many);
                    for (int i = 0; i < many.length; i++) {
                        if (many[i] == otherId) {
                            records[i] = served.clone();
                        }
                    }
                    return records;
                }
            });
        }
    }

    /**
     * A reference to a satellite is written as its home's id and its index ({@link Tag#SATELLITE}),
     * not as one long id (six or more bytes as a varlong); records that still hold the long
     * form ({@link Tag#OBJECT}, what the encoder wrote before) read the same, and the collector
     * follows both.
     */
    @Test
    void aReferenceToASatelliteIsWrittenAsItsHomeAndIndexAndTheLongFormStillReads() {
        for (boolean longForm : new boolean[] {false, true}) {
            LeafReference r = LeafReference.make();
            ByteOut whole = new ByteOut(16);
            whole.writeByte(Tag.OBJECT);
            whole.writeByte(r.record[r.at + 1]);
            whole.writeVarLong(r.leafId);
            byte[] oldForm = whole.toByteArray();
            assertTrue(oldForm.length - r.length >= 4, oldForm.length + " bytes against " + r.length);
            byte[] served = longForm ? r.with(oldForm) : r.record;
            try (PersistentStore store = r.open(served)) {
                Leaf leaf = (Leaf) store.fetch("other", Node.class).any();
                assertEquals("leaf1", leaf.label());
                assertSame(leaf, ((Leaf[]) store.fetch("home", Node.class).any())[1], "one leaf, however it is reached");
                store.inTransaction(() -> store.unbind("home"));
                assertEquals(0, store.collectGarbage(), "the home holds other's leaf: nothing to collect");
                assertEquals(2, store.statistics().objects());
            }
            try (PersistentStore store = TestStores.open(r.uri)) {
                assertEquals("leaf1", ((Leaf) store.fetch("other", Node.class).any()).label());
            }
        }
    }

    /**
     * A reference to a satellite index no home can hold, or to home 0, is a corrupt store; so is
     * one to such an index of the record's own home. The collector deletes nothing.
     */
    @Test
    void aReferenceToASatelliteThatCannotExistIsACorruptStore() {
        // home (-1: the leaf's home, -2: a reference local to the record), index
        for (int[] homeAndIndex : new int[][] {{-1, Satellites.MAX + 1}, {-1, 0}, {0, 1}, {-2, Satellites.MAX + 1}}) {
            LeafReference r = LeafReference.make();
            ByteOut bad = new ByteOut(16);
            bad.writeByte(homeAndIndex[0] == -2 ? Tag.LOCAL : Tag.SATELLITE);
            bad.writeByte(r.record[r.at + 1]);
            if (homeAndIndex[0] != -2) {
                bad.writeVarLong(homeAndIndex[0] == -1 ? r.homeId : homeAndIndex[0]);
            }
            bad.writeVarInt(homeAndIndex[1]);
            try (PersistentStore store = r.open(r.with(bad.toByteArray()))) {
                CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> store.fetch("other", Node.class));
                assertTrue(e.getMessage().contains("#" + r.otherId) && e.getMessage().contains("satellite " + homeAndIndex[1]),
                        e.getMessage());
                store.inTransaction(() -> store.unbind("home"));
                long before = store.statistics().objects();
                assertThrows(CorruptStoreException.class, store::collectGarbage);
                assertEquals(before, store.statistics().objects(), "nothing deleted");
            }
        }
    }

    /**
     * A home's record refers to its own satellites, and a satellite to its home, by index in the
     * record ({@link Tag#LOCAL}); so do the bytes of a list embedded in the home, which the
     * kernel keeps to find changes made in place and to put the list back on abort: both read
     * them as the home's.
     */
    @Test
    void anEmbeddedListOfLeavesRefersToThemByIndexAndComesBackWhole() {
        String uri = TestStores.newUri();
        long homeId;
        try (PersistentStore store = TestStores.open(uri)) {
            Node created = new Node("home");
            store.inTransaction(() -> {
                Leaf a = new Leaf("a", 1);
                a.peer(created);
                created.any(new ArrayList<>(List.of(a, new Leaf("b", 2))));
                store.persist(created, "home");
            });
            homeId = ((Handle) created.$perpetua$handle).id();
        }
        byte[] record;
        try (var backend = Backends.open(URI.create(uri))) {
            record = backend.read(homeId);
        }
        byte leafClass = record[Satellites.entry(record, 1).from()]; // a satellite's body starts with its class
        int body = Satellites.bodyEnd(record);
        for (int k = 1; k <= 2; k++) {
            byte[] local = {Tag.LOCAL, leafClass, (byte) k};
            assertTrue(indexOf(record, 0, body, local) >= 0, "the list's reference to leaf " + k + ", by index");
        }
        byte[] toHome = {Tag.LOCAL, record[0], 0};
        assertTrue(indexOf(record, body, record.length, toHome) >= 0, "a leaf's reference to its home, by index");

        try (PersistentStore store = TestStores.open(uri)) {
            Node home = store.fetch("home", Node.class);
            @SuppressWarnings("unchecked")
            List<Leaf> list = (List<Leaf>) home.any();
            Leaf a = list.get(0);
            Leaf b = list.get(1);
            assertEquals(Satellites.id(homeId, 1), ((Handle) a.$perpetua$handle).id());
            assertSame(home, a.peer());

            store.beginTransaction();
            list.remove(0);
            list.add(new Leaf("c", 3));
            store.abortTransaction();
            assertEquals(2, list.size());
            assertSame(a, list.get(0));
            assertSame(b, list.get(1));
            assertEquals("a", a.label());

            long written = store.statistics().recordsWritten();
            store.inTransaction(() -> list.set(0, a)); // touched, not changed
            assertEquals(written, store.statistics().recordsWritten(), "the list is what it was: nothing to write");
            store.inTransaction(() -> list.set(0, b));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            @SuppressWarnings("unchecked")
            List<Leaf> list = (List<Leaf>) store.fetch("home", Node.class).any();
            assertEquals("b", list.get(0).label());
            assertSame(list.get(0), list.get(1));
        }
    }

    /** @return where {@code part} first occurs in {@code whole[from, to)}, or -1 */
    private static int indexOf(byte[] whole, int from, int to, byte[] part) {
        for (int i = from; i + part.length <= to; i++) {
            if (Arrays.equals(whole, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void anAbortedChangeToALeafIsReadAgainFromItsHome() {
        String uri = homeWithLeaves(2);
        try (PersistentStore store = TestStores.open(uri)) {
            Leaf[] leaves = (Leaf[]) store.fetch("home", Node.class).any();
            store.beginTransaction();
            leaves[0].weight(50);
            store.abortTransaction();
            assertEquals(0, leaves[0].weight(), "the committed value, from the home's record");
        }
    }

    /**
     * Homes whose records the kernel's cache of recent records (4,096 slots, direct-mapped) no
     * longer holds, rewritten: with every satellite filled, the satellites are encoded from the
     * objects and no record is read back; with satellites still hollow, the record is read back
     * and they are copied from it. Either way every satellite survives, changed or not.
     */
    @Test
    void homesOutOfTheRecentRecordsKeepTheirSatellitesWhetherFilledOrHollow() {
        int homes = 20_000;
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] all = new Node[homes];
            store.inTransaction(() -> {
                for (int i = 0; i < homes; i++) {
                    all[i] = new Node("n" + i);
                    all[i].any(new Leaf[] {new Leaf("a" + i, i), new Leaf("b" + i, -i)});
                }
                Node root = new Node("root");
                root.any(all);
                store.persist(root, "root");
            });
            long read = store.statistics().recordsRead();
            store.inTransaction(() -> {
                for (Node n : all) {
                    n.name(n.name() + "!");
                }
                ((Leaf[]) all[7].any())[1].weight(70); // one changed leaf among filled ones
            });
            assertEquals(read, store.statistics().recordsRead(), "filled satellites: no home's record read back");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] all = (Node[]) store.fetch("root", Node.class).any();
            long read = store.statistics().recordsRead();
            store.inTransaction(() -> {
                for (Node n : all) {
                    n.name(n.name() + "?"); // fills each home; its leaves stay hollow
                }
            });
            assertEquals(ObjectState.HOLLOW, ((Leaf[]) all[0].any())[0].$perpetua$state);
            assertTrue(store.statistics().recordsRead() - read > homes,
                    "hollow satellites: some homes' records read back at commit, after the " + homes + " fault-ins");
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node[] all = (Node[]) store.fetch("root", Node.class).any();
            for (int i = 0; i < homes; i++) {
                Leaf[] leaves = (Leaf[]) all[i].any();
                assertEquals("n" + i + "!?", all[i].name());
                assertEquals("a" + i, leaves[0].label());
                assertEquals(i, leaves[0].weight());
                assertEquals("b" + i, leaves[1].label());
                assertEquals(i == 7 ? 70 : -i, leaves[1].weight());
            }
        }
    }
}
