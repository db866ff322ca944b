package io.perpetua.runtime;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * The contents of a rewritten class that extends a JDK collection or map
 * ({@link PersistentClasses#inheritedContainer}), as its generated codec stores them: one
 * {@code Object[]}, the elements in iteration order or a map's keys and values in turn. The
 * codec takes the iterator from the JDK class's own method, so that no method of the object
 * runs while it is encoded. The size is a hint: a concurrent collection another thread changes
 * meanwhile gives more or fewer, and the array holds what it gave (until session 41 the
 * missing ones were stored as null entries, which no read could put back). Stateless.
 */
public final class InheritedContents {
    private InheritedContents() {
    }

    /**
     * @param elements an iterator over a collection's elements, not null
     * @param size how many it is expected to give
     * @return the elements, in order
     */
    public static Object[] elements(Iterator<?> elements, int size) {
        Object[] a = new Object[size];
        int i = 0;
        while (elements.hasNext()) {
            if (i == a.length) {
                a = Arrays.copyOf(a, Math.max(8, 2 * a.length));
            }
            a[i++] = elements.next();
        }
        return i == a.length ? a : Arrays.copyOf(a, i);
    }

    /**
     * @param entries an iterator over a map's entries, not null
     * @param size how many it is expected to give
     * @return the keys and values in turn, in the entries' order
     */
    public static Object[] entries(Iterator<? extends Map.Entry<?, ?>> entries, int size) {
        Object[] a = new Object[2 * size];
        int i = 0;
        while (entries.hasNext()) {
            Map.Entry<?, ?> e = entries.next();
            if (i == a.length) {
                a = Arrays.copyOf(a, Math.max(8, 2 * a.length));
            }
            a[i++] = e.getKey();
            a[i++] = e.getValue();
        }
        return i == a.length ? a : Arrays.copyOf(a, i);
    }
}
