package io.perpetua.benchmarks.oo1;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The generator is deterministic and meets the spec ({@code shared/design/oo1.md}). */
class Oo1DataTest {

    private static final Oo1Data SMALL = Oo1Data.generate(Size.SMALL.parts, Oo1.DEFAULT_SEED);

    @Test
    void sameSeedSameDatabaseOtherSeedAnother() {
        Oo1Data again = Oo1Data.generate(Size.SMALL.parts, Oo1.DEFAULT_SEED);
        assertArrayEquals(SMALL.partType, again.partType);
        assertArrayEquals(SMALL.x, again.x);
        assertArrayEquals(SMALL.y, again.y);
        assertArrayEquals(SMALL.buildDay, again.buildDay);
        assertArrayEquals(SMALL.to, again.to);
        assertArrayEquals(SMALL.connectionType, again.connectionType);
        assertArrayEquals(SMALL.length, again.length);
        Oo1Data other = Oo1Data.generate(Size.SMALL.parts, Oo1.DEFAULT_SEED + 1);
        assertFalse(Arrays.equals(SMALL.to, other.to));
        assertFalse(Arrays.equals(SMALL.x, other.x));
    }

    @Test
    void threeOutgoingPerPartToIdsInRangeMeanIncomingThree() {
        int n = SMALL.parts;
        assertEquals(3 * n, SMALL.to.length);
        long incoming = 0;
        int[] counted = new int[n];
        for (int t : SMALL.to) {
            assertTrue(t >= 1 && t <= n, "target " + t);
            counted[t - 1]++;
        }
        for (int i = 0; i < n; i++) {
            assertEquals(counted[i], SMALL.incoming[i]);
            incoming += SMALL.incoming[i];
        }
        assertEquals(3.0, incoming / (double) n, 1e-12);
        assertTrue(Arrays.stream(SMALL.incoming).max().getAsInt() > 3, "incoming counts vary");
    }

    @Test
    void aboutNinetyPercentOfConnectionsStayInTheLocalWindow() {
        int n = SMALL.parts;
        int window = n / 100;
        int local = 0;
        for (int c = 0; c < SMALL.to.length; c++) {
            int source = c / 3 + 1;
            Set<Integer> neighbourhood = new HashSet<>();
            for (int k = 0; k < window; k++) {
                neighbourhood.add(Oo1Data.fold(source - window / 2 + k, n));
            }
            if (neighbourhood.contains(SMALL.to[c])) {
                local++;
            }
        }
        // 0.9 local + 0.1 * (window / n) of the random ones land in the window too: 0.901
        double fraction = local / (double) SMALL.to.length;
        assertEquals(0.901, fraction, 0.006, "fraction of local connections");
    }

    @Test
    void foldReflectsAtBothEnds() {
        assertEquals(1, Oo1Data.fold(0, 100));
        assertEquals(2, Oo1Data.fold(-1, 100));
        assertEquals(100, Oo1Data.fold(101, 100));
        assertEquals(99, Oo1Data.fold(102, 100));
        assertEquals(50, Oo1Data.fold(50, 100));
    }

    @Test
    void attributesHaveTheSpecifiedRanges() {
        int n = SMALL.parts;
        Set<String> partTypes = new HashSet<>();
        Set<String> connectionTypes = new HashSet<>();
        for (int id = 1; id <= n; id++) {
            String t = SMALL.partType(id);
            assertEquals(10, t.length());
            assertTrue(t.matches("part-type[0-9]"), t);
            partTypes.add(t);
        }
        for (byte b : SMALL.connectionType) {
            String t = Oo1Data.CONNECTION_TYPES[b];
            assertEquals(10, t.length());
            connectionTypes.add(t);
        }
        assertEquals(10, partTypes.size());
        assertEquals(10, connectionTypes.size());
        assertRange(SMALL.x, 0, 99_999);
        assertRange(SMALL.y, 0, 99_999);
        assertRange(SMALL.length, 1, 1000);
        LocalDate first = LocalDate.of(1990, 1, 1);
        LocalDate end = LocalDate.of(2000, 1, 1);
        LocalDate min = LocalDate.MAX;
        LocalDate max = LocalDate.MIN;
        for (int id = 1; id <= n; id++) {
            LocalDate d = SMALL.build(id);
            assertFalse(d.isBefore(first));
            assertTrue(d.isBefore(end));
            min = d.isBefore(min) ? d : min;
            max = d.isAfter(max) ? d : max;
        }
        assertTrue(min.isBefore(first.plusDays(10)) && max.isAfter(end.minusDays(10)),
                "dates span ten years: " + min + " .. " + max);
    }

    private static void assertRange(int[] values, int lo, int hi) {
        int min = Arrays.stream(values).min().getAsInt();
        int max = Arrays.stream(values).max().getAsInt();
        assertTrue(min >= lo && max <= hi, min + ".." + max);
        assertTrue(min < lo + (hi - lo) / 100 && max > hi - (hi - lo) / 100, "covers the range: " + min + ".." + max);
    }

    @Test
    void insertBatchesConnectToExistingPartsWithTheLocalityRule() {
        SplittableRandom r = Oo1Data.operationRandom(Oo1.DEFAULT_SEED, Operation.INSERT);
        int existing = Size.SMALL.parts;
        for (int run = 0; run < 5; run++) {
            Oo1Data b = Oo1Data.insertBatch(r, existing);
            assertEquals(Oo1Data.INSERT_PARTS, b.parts);
            assertEquals(3 * Oo1Data.INSERT_PARTS, b.to.length);
            int near = 0;
            for (int t : b.to) {
                assertTrue(t >= 1 && t <= existing, "target " + t + " of 1.." + existing);
                if (t > existing - 2 * existing / 100) {
                    near++;
                }
            }
            assertTrue(near > b.to.length / 2, "most targets near the new ids: " + near);
            existing += b.parts;
        }
        // the generator is never reset: the next batch differs from the first
        SplittableRandom fresh = Oo1Data.operationRandom(Oo1.DEFAULT_SEED, Operation.INSERT);
        assertFalse(Arrays.equals(Oo1Data.insertBatch(fresh, Size.SMALL.parts).x, Oo1Data.insertBatch(r, Size.SMALL.parts).x));
    }
}
