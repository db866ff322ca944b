package io.perpetua.kernel;

import io.perpetua.kernel.ClassDescriptor.Kind;

import io.perpetua.runtime.Persistent;

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
     *       object: the scan of resident arrays is bound by cache misses, and most reference
     *       arrays of an object graph are small (an OO1 part's hold 3 or so);</li>
     *   <li>for a longer {@code Object[]}, an {@code Object[]} of its elements as remembered;</li>
     *   <li>for a primitive array, a copy.</li>
     * </ul>
     * A persistent element is remembered by its {@link Handle}, which holds it weakly, and
     * compared with {@link Handle#refersTo}: the table holds this handle strongly, and an element
     * held strongly here would keep everything that reaches back to the array (a child pointing
     * to the parent whose array holds it, an OO1 connection to its part) resident for as long as
     * the store is open. That costs the scan about one cache miss per element (the element's
     * handle): a read-only commit over the 40,000 arrays of OO1 small's 20,000 parts took 1.1 to
     * 2.4 ms so, 0.5 to 0.76 ms with the elements held strongly. Other elements (values,
     * containers) are held as themselves: one of them that reaches back to the array (a record
     * or a list holding the parent) keeps it resident while the store is open.
     */
    private Object copy;
    private Object e0;
    private Object e1;
    private Object e2;
    private Object e3;

    /**
     * True while the container is embedded in the record of the one object that refers to it
     * ({@link #ownerId}) rather than stored as a record of its own. A second referrer promotes
     * it to a record of its own. Set when the handle is made; changed only through the
     * {@link ObjectTable}, which finds an embedded container by identity but not by id.
     */
    boolean embedded;
    /**
     * For an array while the array write log is trusted: whether code that does not log its
     * writes (a JDK method it was passed to) may change it, so that every commit compares it.
     * Sticky.
     */
    boolean escaped;
    /** For an array: whether it is in the kernel's list of arrays logged as written since the last commit. */
    boolean logged;
    /** For an embedded container: the id of the object whose record holds it. */
    long ownerId;
    /** The index in the object table's list of containers that can change, or -1 when not in it. */
    int slot = -1;

    /** For a {@link Kind#WRAPPER}: what it wraps, once found (kept in {@link #copy}, which only arrays use otherwise). */
    Object wrapped() {
        return descriptor.kind == Kind.WRAPPER ? copy : null;
    }

    void wrapped(Object wrapped) {
        copy = wrapped;
    }

    ContainerHandle(Kernel kernel, Object container, long id, ReferenceQueue<Object> queue) {
        super(kernel, container, id, queue);
        this.identityHash = System.identityHashCode(container);
    }

    /**
     * @return the id of the record that holds this container's bytes: its owner's while it is
     *         embedded, else its own. Its references are encoded and decoded as that record's
     *         (see {@link Tag#LOCAL}).
     */
    long recordId() {
        return embedded ? ownerId : id();
    }

    /**
     * @return false if the container can never change in place, so that no commit need compare
     *         it: an empty array, an immutable collection, a value, an immutable JDK object
     *         stored by its serialization (an {@code InetSocketAddress}). Needs {@link #descriptor}.
     */
    boolean canChangeInPlace() {
        if (!Containers.mutable(descriptor.kind)) {
            return false;
        }
        Object c = get();
        if (c == null) {
            return true;
        }
        if (descriptor.kind == ClassDescriptor.Kind.SERIALIZED) {
            return !JdkSerialized.isImmutable(c.getClass());
        }
        return !c.getClass().isArray() || Array.getLength(c) > 0;
    }

    /** Remembers what an array holds now, for {@link #sameContents} and {@link #restoreContents}; ignores a collection. */
    void rememberContents(Object array) {
        if (array instanceof Object[] a && a.length > 0 && a.length <= INLINE_MAX) {
            // the common case of a read (a small array of references) without the array contentsNow makes
            inline(remembered(a[0]), remembered(at(a, 1)), remembered(at(a, 2)), remembered(at(a, 3)));
        } else {
            remember(contentsNow(array));
        }
    }

    /**
     * @return what {@link #rememberContents} would remember of a container now, for
     *         {@link #remember} to keep later: null for a collection (compared by its
     *         encoding); {@link #EMPTY} for an array with no elements; for an {@code Object[]},
     *         its elements as remembered; for a primitive array, a copy. A commit works this out
     *         as it encodes the array, when the array, its elements and their handles are in the
     *         cache, and keeps it once the write has succeeded.
     */
    Object contentsNow(Object container) {
        if (!container.getClass().isArray()) {
            return null;
        }
        if (Array.getLength(container) == 0) {
            return EMPTY;
        }
        if (container instanceof Object[] a) {
            Object[] r = new Object[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = remembered(a[i]);
            }
            return r;
        }
        return primitiveCopy(container);
    }

    /** Keeps what {@link #contentsNow} returned as what the array holds; null (a collection) changes nothing. */
    void remember(Object contents) {
        if (contents instanceof Object[] r && r.length <= INLINE_MAX) {
            inline(r[0], at(r, 1), at(r, 2), at(r, 3));
        } else if (contents != null) {
            copy = contents;
        }
    }

    /** Keeps the remembered elements of an {@code Object[]} of at most {@value #INLINE_MAX} in the handle's own fields. */
    private void inline(Object r0, Object r1, Object r2, Object r3) {
        copy = INLINE;
        e0 = r0;
        e1 = r1;
        e2 = r2;
        e3 = r3;
    }

    /** @return element {@code i} of {@code a}, or null past its end */
    private static Object at(Object[] a, int i) {
        return i < a.length ? a[i] : null;
    }

    /**
     * @return how an element is remembered: a persistent object of this store by its handle,
     *         which holds it only weakly; anything else (null, a value, a container) as itself
     */
    private Object remembered(Object element) {
        return element instanceof Persistent p && p.$perpetua$handle() instanceof Handle h && h.kernel == kernel
                ? h : element;
    }

    /** @return true if {@code element} is the one remembered as {@code remembered} */
    private static boolean same(Object remembered, Object element) {
        return remembered instanceof Handle h ? element != null && h.refersTo(element) : remembered == element;
    }

    /** @return the element remembered as {@code remembered}, read back from the store if it was collected since */
    private Object restored(Object remembered) {
        if (remembered instanceof Handle h) {
            Object o = h.get();
            return o != null ? o : kernel.committedObject(h.id());
        }
        return remembered;
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
                case 1 -> same(e0, a[0]);
                case 2 -> same(e0, a[0]) && same(e1, a[1]);
                case 3 -> same(e0, a[0]) && same(e1, a[1]) && same(e2, a[2]);
                default -> same(e0, a[0]) && same(e1, a[1]) && same(e2, a[2]) && same(e3, a[3]);
            };
        }
        if (c instanceof Object[] r) {
            Object[] a = (Object[]) array;
            for (int i = 0; i < a.length; i++) {
                if (!same(r[i], a[i])) {
                    return false;
                }
            }
            return true;
        }
        return c != null && samePrimitives(array, c);
    }

    /** Puts back, in place, what an array held when {@link #rememberContents} last ran. */
    void restoreContents(Object array) {
        if (copy == INLINE) {
            Object[] a = (Object[]) array;
            Object[] r = {e0, e1, e2, e3};
            for (int i = 0; i < a.length; i++) {
                a[i] = restored(r[i]);
            }
        } else if (copy instanceof Object[] r) {
            Object[] a = (Object[]) array;
            for (int i = 0; i < a.length; i++) {
                a[i] = restored(r[i]);
            }
        } else if (copy != EMPTY) {
            System.arraycopy(copy, 0, array, 0, Array.getLength(array));
        }
    }

    /** One clone per primitive array type: this runs for every array read or committed, and reflection would cost a call each time. */
    private static Object primitiveCopy(Object array) {
        if (array instanceof int[] a) {
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

    private static boolean samePrimitives(Object array, Object copy) {
        if (array instanceof int[] a) {
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
