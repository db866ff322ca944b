package io.perpetua.kernel;

import java.lang.ref.ReferenceQueue;
import java.lang.reflect.Array;
import java.util.Arrays;

/**
 * The handle of a persistent container (an array or a JDK collection): found by identity, and
 * compared at commit with what was last read or committed, since a container cannot note its
 * own changes (tracked collections can, and say so). These fields are kept out of
 * {@link Handle}, which every resident rewritten object has, to keep that one small.
 */
final class ContainerHandle extends Handle {
    /** The {@link #snapshot} of a committed array, whose committed state is its remembered contents ({@link #rememberContents}). */
    static final byte[] ARRAY_SNAPSHOT = new byte[0];
    /** The {@link #copy} of an array with no elements. */
    private static final Object EMPTY = new Object();
    /** The {@link #copy} of a small {@code Object[]} whose elements are in {@link #e0} to {@link #e3}. */
    private static final Object INLINE = new Object();
    private static final int INLINE_MAX = 4;

    /** The container's identity hash: its key in the table. */
    final int identityHash;
    /**
     * The body as last read or committed, to find changes made in place; null while the
     * container is new (never committed). For arrays, {@link #ARRAY_SNAPSHOT}: their remembered
     * contents already tell a change and restore the committed contents, and a byte copy of each
     * array besides cost a third of the memory of a resident OO1 part.
     */
    byte[] snapshot;
    /** The descriptor the container was read or last written with. */
    ClassDescriptor descriptor;
    /**
     * For arrays: what the array held when last read or committed. Arrays cannot note their own
     * changes, so a commit compares every resident array with this (a tight loop, no encoding)
     * and encodes only those that differ; an abort puts it back. One of:
     * <ul>
     *   <li>{@link #EMPTY}: the array has no elements, so it can never change: a commit skips it
     *       without loading it;</li>
     *   <li>{@link #INLINE}: an {@code Object[]} of at most {@value #INLINE_MAX} elements, held in
     *       {@link #e0} to {@link #e3}. The commit then reads the handle and the array, not a third
     *       object: the scan of resident arrays is bound by cache misses (about 3 per array), and
     *       most reference arrays of an object graph are small (an OO1 part's hold 3 or so);</li>
     *   <li>else a shallow copy, of the array's own type.</li>
     * </ul>
     * Either way it references only what the array referenced, but strongly, and the table
     * holds this handle strongly: an element that reaches back to the array (a child pointing
     * to the parent whose array holds it) keeps the array, and so the element, resident until
     * the store closes, though the program dropped them all (README, Known limits). Holding
     * persistent elements by their handles instead (weak; compared with {@code refersTo})
     * would cost the scan a cache miss per element, and an abort would have to read back an
     * element collected in the meantime.
     */
    private Object copy;
    private Object e0;
    private Object e1;
    private Object e2;
    private Object e3;

    /**
     * True while the container is embedded in the record of the one object that refers to it
     * ({@link #ownerId}) rather than stored as a record of its own. A second referrer promotes
     * it to a record of its own.
     */
    boolean embedded;
    /** For an embedded container: the id of the object whose record holds it. */
    long ownerId;
    /** The index in the object table's dense list of containers, -1 when not in the table. */
    int slot = -1;

    ContainerHandle(Kernel kernel, Object container, long id, ReferenceQueue<Object> queue) {
        super(kernel, container, id, queue);
        this.identityHash = System.identityHashCode(container);
    }

    /** @return true if the array has no elements: it cannot change, and needs no comparing */
    boolean holdsEmptyArray() {
        return copy == EMPTY;
    }

    /** Remembers what an array holds now, for {@link #sameContents} and {@link #restoreContents}; ignores a collection. */
    void rememberContents(Object array) {
        if (!array.getClass().isArray()) {
            return; // a collection: it is compared by its encoding
        }
        if (Array.getLength(array) == 0) {
            copy = EMPTY;
        } else if (array instanceof Object[] a && a.length <= INLINE_MAX) {
            copy = INLINE;
            e0 = a[0];
            e1 = a.length > 1 ? a[1] : null;
            e2 = a.length > 2 ? a[2] : null;
            e3 = a.length > 3 ? a[3] : null;
        } else {
            copy = shallowCopy(array);
        }
    }

    /** @return true if an array holds, element by element (by identity, raw bits), what was remembered */
    boolean sameContents(Object array) {
        Object c = copy;
        if (c == EMPTY) {
            return true;
        }
        if (c == INLINE) {
            Object[] a = (Object[]) array;
            return switch (a.length) {
                case 1 -> a[0] == e0;
                case 2 -> a[0] == e0 && a[1] == e1;
                case 3 -> a[0] == e0 && a[1] == e1 && a[2] == e2;
                default -> a[0] == e0 && a[1] == e1 && a[2] == e2 && a[3] == e3;
            };
        }
        return c != null && sameAsCopy(array, c);
    }

    /** Puts back, in place, what an array held when {@link #rememberContents} last ran. */
    void restoreContents(Object array) {
        if (copy == INLINE) {
            Object[] a = (Object[]) array;
            Object[] remembered = {e0, e1, e2, e3};
            System.arraycopy(remembered, 0, a, 0, a.length);
        } else if (copy != EMPTY) {
            System.arraycopy(copy, 0, array, 0, Array.getLength(array));
        }
    }

    /** One clone per array type: this runs for every array read or committed, and reflection would cost a call each time. */
    private static Object shallowCopy(Object array) {
        if (array instanceof Object[] a) {
            return a.clone();
        } else if (array instanceof int[] a) {
            return a.clone();
        } else if (array instanceof long[] a) {
            return a.clone();
        } else if (array instanceof byte[] a) {
            return a.clone();
        } else if (array instanceof char[] a) {
            return a.clone();
        } else if (array instanceof short[] a) {
            return a.clone();
        } else if (array instanceof boolean[] a) {
            return a.clone();
        } else if (array instanceof float[] a) {
            return a.clone();
        } else if (array instanceof double[] a) {
            return a.clone();
        }
        throw new IllegalArgumentException("not an array: " + array.getClass().getName());
    }

    private static boolean sameAsCopy(Object array, Object copy) {
        if (array instanceof Object[] a) {
            Object[] b = (Object[]) copy;
            for (int i = 0; i < a.length; i++) {
                if (a[i] != b[i]) {
                    return false;
                }
            }
            return true;
        } else if (array instanceof int[] a) {
            return Arrays.equals(a, (int[]) copy);
        } else if (array instanceof long[] a) {
            return Arrays.equals(a, (long[]) copy);
        } else if (array instanceof byte[] a) {
            return Arrays.equals(a, (byte[]) copy);
        } else if (array instanceof char[] a) {
            return Arrays.equals(a, (char[]) copy);
        } else if (array instanceof short[] a) {
            return Arrays.equals(a, (short[]) copy);
        } else if (array instanceof boolean[] a) {
            return Arrays.equals(a, (boolean[]) copy);
        } else if (array instanceof float[] a) {
            float[] b = (float[]) copy; // raw bits, like the encoding (Arrays.equals folds NaNs)
            for (int i = 0; i < a.length; i++) {
                if (Float.floatToRawIntBits(a[i]) != Float.floatToRawIntBits(b[i])) {
                    return false;
                }
            }
            return true;
        } else if (array instanceof double[] a) {
            double[] b = (double[]) copy;
            for (int i = 0; i < a.length; i++) {
                if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }
}
