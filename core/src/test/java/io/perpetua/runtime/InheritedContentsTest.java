package io.perpetua.runtime;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The size a codec passes is a hint: a concurrent collection another thread changes while a
 * commit reads it gives more or fewer elements than its size said a moment before.
 */
class InheritedContentsTest {

    @Test
    void moreElementsThanTheSizeSaidAreAllKept() {
        assertArrayEquals(new Object[] {"a", "b", "c"}, InheritedContents.elements(List.of("a", "b", "c").iterator(), 1));
        assertArrayEquals(new Object[] {"k", 1, "l", 2},
                InheritedContents.entries(List.of(Map.entry("k", 1), Map.entry("l", 2)).iterator(), 0));
    }

    @Test
    void fewerElementsThanTheSizeSaidLeaveNoNulls() {
        assertArrayEquals(new Object[] {"a"}, InheritedContents.elements(List.of("a").iterator(), 3));
        assertArrayEquals(new Object[] {"k", 1}, InheritedContents.entries(List.of(Map.entry("k", 1)).iterator(), 2));
    }
}
