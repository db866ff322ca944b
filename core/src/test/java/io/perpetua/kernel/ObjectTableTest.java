package io.perpetua.kernel;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The object table against a plain map, over random puts, replacements and removals of object
 * and container handles: enough of them that the slots grow several times and removals move
 * handles within the dense arrays, with ids close together (a home and its satellites) and
 * far apart. Every handle's object is held strongly here, so none is collected.
 */
class ObjectTableTest {
    private static final ClassDescriptor INT_ARRAY =
            new ClassDescriptor(1, ClassDescriptor.Kind.ARRAY, "[I", List.of());

    private final ObjectTable table = new ObjectTable();
    private final Map<Long, Handle> byId = new HashMap<>();
    private final Map<Object, ContainerHandle> byContainer = new IdentityHashMap<>();
    private final List<Object> keepAlive = new ArrayList<>();

    @Test
    void findsEveryHandleItHoldsAndNoneItDoesNot() {
        SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 60_000; step++) {
            int op = random.nextInt(10);
            if (op < 5 || byId.isEmpty()) {
                put(randomId(random), random.nextBoolean());
            } else if (op < 8) {
                remove(random);
            } else {
                Handle replaced = byId.get(anyId(random));
                if (!(replaced instanceof ContainerHandle)) {
                    put(replaced.id(), false); // a new object for an id whose object was collected
                }
            }
            if (step % 5_000 == 0) {
                checkAll(random);
            }
        }
        checkAll(random);
    }

    /**
     * Ids whose slots carry the same 32-bit hash (the table tells them apart by the handle's
     * own id), here a run of them: {@link ObjectTable#spread} takes an id shifted right by three
     * to {@link ObjectTable#mix}, and the keys {@code base + k * inverse}, for the inverse of
     * mix's multiplier, have products that differ by {@code k} in their low bits only. The ids
     * are those keys (the ones below 2^61) shifted left by three.
     */
    @Test
    void tellsApartIdsOfTheSameHash() {
        long inverse = inverse(0x9E3779B97F4A7C15L);
        long base = 1L << 40;
        List<Long> ids = new ArrayList<>();
        for (long k = 0; ids.size() < 12; k++) {
            long key = base + k * inverse;
            if (key >>> 61 == 0) {
                long id = key << 3;
                assertEquals(ObjectTable.spread(base << 3), ObjectTable.spread(id), "same hash for id " + id);
                put(id, ids.size() % 3 == 0);
                ids.add(id);
            }
        }
        SplittableRandom random = new SplittableRandom(3);
        checkAll(random);
        for (int k = 0; k < 12; k += 2) {
            Handle h = byId.remove(ids.get(k));
            table.remove(h);
            if (h instanceof ContainerHandle c) {
                byContainer.remove(c.get());
            }
            checkAll(random);
        }
        put(ids.get(4), false);
        put(ids.get(1), false); // replaces, as for an id whose object was collected
        checkAll(random);
    }

    /**
     * Ids as a store hands them out, in a row, each home with satellites (an OO1 part and its
     * connections): their slots run in blocks of eight, and the runs grow long. Every handle is
     * found, no other id is, and after a third are removed (which shifts the runs back) the
     * rest still are.
     */
    @Test
    void findsIdsHandedOutInARow() {
        SplittableRandom random = new SplittableRandom(5);
        for (long home = 1; home <= 20_000; home++) {
            put(home, home % 5 == 0);
            for (int k = 1; k <= 3; k++) {
                put(Satellites.id(home, k), false);
            }
        }
        checkAll(random);
        for (long id : new ArrayList<>(byId.keySet())) {
            if (random.nextInt(3) == 0) {
                Handle h = byId.remove(id);
                table.remove(h);
                if (h instanceof ContainerHandle c) {
                    byContainer.remove(c.get());
                }
            }
        }
        checkAll(random);
        for (long home = 20_001; home <= 30_000; home++) {
            put(home, false);
        }
        checkAll(random);
        for (long home = 1; home <= 20_000; home++) {
            assertNull(table.get(Satellites.id(home, 4)), "satellite 4 of " + home);
        }
    }

    /** @return the inverse of an odd number modulo 2^64 (Newton's iteration) */
    private static long inverse(long odd) {
        long x = odd;
        for (int i = 0; i < 6; i++) {
            x *= 2 - odd * x;
        }
        assertEquals(1L, odd * x);
        return x;
    }

    private long randomId(SplittableRandom random) {
        long home = 1 + random.nextLong(random.nextBoolean() ? 64 : 1L << 30);
        return random.nextInt(4) == 0 ? Satellites.id(home, 1 + random.nextInt(Satellites.MAX)) : home;
    }

    private long anyId(SplittableRandom random) {
        return new ArrayList<>(byId.keySet()).get(random.nextInt(byId.size()));
    }

    private void put(long id, boolean container) {
        if (byId.get(id) instanceof ContainerHandle) {
            return; // a container's id is never reused while it is resident
        }
        Handle h;
        if (container) {
            int[] array = new int[1];
            ContainerHandle c = new ContainerHandle(null, array, id, table.queue());
            c.descriptor = INT_ARRAY;
            byContainer.put(array, c);
            keepAlive.add(array);
            h = c;
        } else {
            Object object = new Object();
            keepAlive.add(object);
            h = new Handle(null, object, id, table.queue());
        }
        table.put(h);
        byId.put(id, h);
    }

    private void remove(SplittableRandom random) {
        Handle h = byId.remove(anyId(random));
        table.remove(h);
        if (h instanceof ContainerHandle c) {
            byContainer.remove(c.get());
        }
    }

    private void checkAll(SplittableRandom random) {
        assertEquals(byId.size(), table.size());
        for (Map.Entry<Long, Handle> e : byId.entrySet()) {
            assertSame(e.getValue(), table.get(e.getKey()), "id " + e.getKey());
        }
        for (Map.Entry<Object, ContainerHandle> e : byContainer.entrySet()) {
            assertSame(e.getValue(), table.container(e.getKey()));
        }
        for (int i = 0; i < 1_000; i++) {
            long id = randomId(random);
            if (!byId.containsKey(id)) {
                assertNull(table.get(id), "id " + id);
            }
        }
        assertNull(table.container(new int[1]));
        long[] live = table.liveIds();
        java.util.Arrays.sort(live);
        assertArrayEquals(byId.keySet().stream().mapToLong(Long::longValue).sorted().toArray(), live);
    }
}
