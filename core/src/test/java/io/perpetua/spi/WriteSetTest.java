package io.perpetua.spi;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteSetTest {

    private static List<Long> ids(WriteSet w) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < w.putCount(); i++) {
            ids.add(w.putId(i));
        }
        return ids;
    }

    @Test
    void aSecondPutOfAnIdKeepsItsPlaceAndTakesTheNewRecord() {
        WriteSet w = new WriteSet().put(5, new byte[] {1}).put(3, new byte[] {2}).put(5, new byte[] {3});
        assertEquals(List.of(5L, 3L), ids(w));
        assertArrayEquals(new byte[] {3}, w.putRecord(0));
        assertEquals(List.of(5L, 3L), List.copyOf(w.puts().keySet()));
        assertEquals(2, w.size());
    }

    @Test
    void aReplaceIsTheCallersWordUntilALaterPutOrDelete() {
        WriteSet w = new WriteSet().replace(7, new byte[0]).put(8, new byte[0]);
        assertTrue(w.replaces(7));
        assertTrue(w.putReplaces(0));
        assertFalse(w.replaces(8));
        assertFalse(w.replaces(9), "an id never put");
        w.put(7, new byte[] {1});
        assertFalse(w.replaces(7));
        w.replace(7, new byte[] {2}).delete(7);
        assertFalse(w.replaces(7));
        assertEquals(List.of(8L), ids(w));
        assertEquals(List.of(7L), List.copyOf(w.deletes()));
    }

    @Test
    void aDeleteDropsThePutOfItsIdAndALaterPutDropsTheDelete() {
        WriteSet w = new WriteSet();
        for (long id = 1; id <= 1000; id++) { // past the first growths of the arrays and the id table
            w.put(id, new byte[] {(byte) id});
        }
        w.delete(500);
        assertEquals(999, w.putCount());
        assertEquals(501, w.putId(499), "the puts after it move up, in order");
        assertTrue(w.deletes().contains(500L));
        for (long id = 1; id <= 1000; id++) {
            assertEquals(id != 500, w.puts().containsKey(id), "id " + id);
        }
        w.replace(501, new byte[] {9});
        assertTrue(w.replaces(501), "found through the rebuilt table");
        assertEquals(999, w.putCount());
        w.put(500, new byte[] {7});
        assertTrue(w.deletes().isEmpty());
        assertEquals(500, w.putId(999), "put again: last");
        Map<Long, byte[]> puts = w.puts();
        assertArrayEquals(new byte[] {7}, puts.get(500L));
        assertThrows(UnsupportedOperationException.class, () -> puts.remove(1L));
    }

    @Test
    void badIdsAndIndexesAreRefused() {
        WriteSet w = new WriteSet().put(1, new byte[0]);
        assertThrows(IllegalArgumentException.class, () -> w.put(0, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> w.replace(-1, new byte[0]));
        assertThrows(IndexOutOfBoundsException.class, () -> w.putId(1));
        assertThrows(IndexOutOfBoundsException.class, () -> w.putRecord(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> w.putReplaces(1));
        assertFalse(w.isEmpty());
        assertTrue(new WriteSet().isEmpty());
    }
}
