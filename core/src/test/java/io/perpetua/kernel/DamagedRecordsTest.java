package io.perpetua.kernel;

import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.ForwardingBackend;
import io.perpetua.spi.WriteSet;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.Arguments;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Records and class descriptors damaged between the store and the kernel (bytes flipped, cut
 * short, grown), then the whole graph fetched and read: the only outcomes allowed are the
 * store's own exceptions or a graph read. Never another exception (a {@code ClassCastException}
 * from a tag that names the wrong kind, a {@code NegativeArraySizeException} from a length, an
 * {@code OutOfMemoryError} from a huge one), never a hang. The graph holds every kind of value
 * the record format has a tag for, so that each decoder meets damage.
 *
 * <p>The backends' own checksums catch damage on disk before a record reaches the kernel; this
 * is the kernel's own line of defence, against a record a faulty writer or a foreign tool put
 * there with a valid checksum.
 */
class DamagedRecordsTest {
    /**
     * Cases per run: 4,000 take about 5 s. Session 33 ran 30,000 with each of six seeds; the one
     * wrong failure they found (an OutOfMemoryError from a serialized form's array length) is
     * fixed and has a test of its own in JdkSerializedFilterTest.
     */
    private static final int CASES = 4_000;

    /**
     * Cases longer runs found wrong, kept so that each run tries them: descriptor or record,
     * its id, the damage's seed. Session 34, 30,000 cases with seed 0x5EED2: a sorted wrapper's
     * copy with a null among its elements made TreeSet throw a NullPointerException.
     */
    private static final long[][] FOUND = {
            {0, 15, 6088678502417017506L},
    };

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void damagedRecordsGiveTheStoresOwnExceptionsOrAGraph() throws Exception {
        String uri = TestStores.storeWithRootHolding(everything().toArray());
        long[] ids;
        Integer[] descriptorIds;
        try (Backend backend = Backends.open(URI.create(uri))) {
            ids = backend.recordIds();
            descriptorIds = backend.classDescriptors().keySet().toArray(new Integer[0]);
        }
        Random random = new Random(0xDA11A6EL);
        Map<String, String> wrong = new TreeMap<>();
        int refused = 0;
        int read = 0;
        for (int i = 0; i < CASES + FOUND.length; i++) {
            boolean descriptor;
            long victim;
            long seed;
            if (i < FOUND.length) {
                descriptor = FOUND[i][0] == 1;
                victim = FOUND[i][1];
                seed = FOUND[i][2];
            } else {
                descriptor = random.nextInt(5) == 0;
                victim = descriptor ? descriptorIds[random.nextInt(descriptorIds.length)] : ids[random.nextInt(ids.length)];
                seed = random.nextLong();
            }
            try {
                if (readAndCommit(uri, descriptor, victim, seed)) {
                    read++;
                } else {
                    refused++;
                }
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                StackTraceElement at = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
                wrong.putIfAbsent(e.getClass().getName() + " at " + at,
                        (descriptor ? "descriptor " : "record ") + victim + ", seed " + seed + ": " + e);
            }
        }
        if (!wrong.isEmpty()) {
            StringBuilder report = new StringBuilder(wrong.size() + " kinds of wrong failure:\n");
            wrong.forEach((k, v) -> report.append(k).append("\n    ").append(v).append('\n'));
            fail(report.toString());
        }
        assertTrue(refused > CASES / 4 && read > 0, refused + " refused, " + read + " read");
    }

    /** The case FOUND holds still damages what it damaged when found: a sorted set's copy, whose read is refused. */
    @Test
    void theCasesFoundStillDamageWhatTheyDamaged() throws Exception {
        String uri = TestStores.storeWithRootHolding(everything().toArray());
        assertFalse(readAndCommit(uri, FOUND[0][0] == 1, FOUND[0][1], FOUND[0][2]), "refused");
    }

    /**
     * Opens the store with one record or descriptor damaged, reads the whole graph and commits a
     * change (what was read is written back whole: its arrays compared, its holders too).
     *
     * @return true if all of it was read and committed, false if the store refused it with its
     *         own exception; any other failure is thrown
     */
    private static boolean readAndCommit(String uri, boolean descriptor, long victim, long seed) {
        Backend damaged = new Damaging(Backends.open(URI.create(uri)), descriptor, victim, seed);
        try (PersistentStore store = new Kernel(damaged)) {
            Node root = store.fetch("root", Node.class);
            touch(root, Collections.newSetFromMap(new IdentityHashMap<>()));
            store.inTransaction(() -> root.value(root.value() + 1));
            return true;
        } catch (PersistentStoreException expected) {
            return false;
        }
    }

    /** The values of every kind the round-trip tests store, and every way to hold a node. */
    private static List<Object> everything() throws Exception {
        List<Object> all = new ArrayList<>(GarbageCollectionTest.everyWayToHoldANode());
        for (Stream<Arguments> s : List.of(TypesRoundTripTest.values(), TypesRoundTripTest.mutableContainers(),
                TypesRoundTripTest.synchronizedWrappers(), TypesRoundTripTest.holders(), TypesRoundTripTest.serialized())) {
            s.forEach(a -> all.add(a.get()[0]));
        }
        all.add(new Class<?>[] {String.class, Node.class, int[][].class});
        all.add(new io.perpetua.testmodel.Pairs("k", new Node("in a replaced object"), "l", new ArrayList<>(List.of(1))));
        Map<Object, Object> shared = new HashMap<>();
        shared.put("self", shared);
        all.add(shared);
        return all;
    }

    /**
     * Reads everything an object reaches: fields of nodes, elements of arrays, collections and
     * maps. Values are not asked for their string: the kernel read them, but a JDK class stored
     * by its own serialization checks its state only as far as its {@code readObject} does (a
     * time zone with a damaged rule reads, and fails in its {@code toString}).
     */
    private static void touch(Object o, Set<Object> seen) {
        if (o == null || !seen.add(o)) {
            return;
        }
        if (o instanceof Node n) {
            n.name();
            n.value();
            touch(n.next(), seen);
            touch(n.any(), seen);
            touch(n.children(), seen);
        } else if (o instanceof Object[] a) {
            for (Object e : a) {
                touch(e, seen);
            }
        } else if (o instanceof java.util.Collection<?> it) {
            for (Object e : it) {
                touch(e, seen);
            }
        } else if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                touch(e.getKey(), seen);
                touch(e.getValue(), seen);
            }
        }
    }

    /** Hands the kernel one record or class descriptor damaged; commits nothing. */
    private static final class Damaging extends ForwardingBackend {
        private final boolean descriptor;
        private final long victim;
        private final long seed;

        Damaging(Backend inner, boolean descriptor, long victim, long seed) {
            super(inner);
            this.descriptor = descriptor;
            this.victim = victim;
            this.seed = seed;
        }

        @Override
        public byte[] read(long id) {
            byte[] record = super.read(id);
            return !descriptor && id == victim && record != null ? damage(record, new Random(seed)) : record;
        }

        @Override
        public byte[][] readMany(long[] many) {
            byte[][] records = super.readMany(many);
            for (int k = 0; k < many.length; k++) {
                if (!descriptor && many[k] == victim && records[k] != null) {
                    records[k] = damage(records[k], new Random(seed));
                }
            }
            return records;
        }

        @Override
        public Map<Integer, byte[]> classDescriptors() {
            Map<Integer, byte[]> all = new HashMap<>(super.classDescriptors());
            if (descriptor) {
                all.computeIfPresent((int) victim, (k, bytes) -> damage(bytes, new Random(seed)));
            }
            return all;
        }

        @Override
        public void commit(WriteSet writes) {
        }
    }

    /** Flips 1 to 3 bytes, cuts the bytes short, or inserts bytes, at random. */
    static byte[] damage(byte[] bytes, Random random) {
        switch (random.nextInt(3)) {
            case 0 -> {
                return Arrays.copyOf(bytes, random.nextInt(bytes.length));
            }
            case 1 -> {
                int at = random.nextInt(bytes.length + 1);
                byte[] inserted = new byte[1 + random.nextInt(4)];
                random.nextBytes(inserted);
                byte[] grown = new byte[bytes.length + inserted.length];
                System.arraycopy(bytes, 0, grown, 0, at);
                System.arraycopy(inserted, 0, grown, at, inserted.length);
                System.arraycopy(bytes, at, grown, at + inserted.length, bytes.length - at);
                return grown;
            }
            default -> {
                byte[] flipped = bytes.clone();
                for (int n = 1 + random.nextInt(3); n > 0; n--) {
                    flipped[random.nextInt(flipped.length)] ^= (byte) (1 + random.nextInt(255));
                }
                return flipped;
            }
        }
    }
}
