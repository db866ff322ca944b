package io.perpetua.kernel;

import io.perpetua.PersistentStoreException;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.RecordWriter;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * The walk of {@link Kernel#preload}: breadth-first from a root, each persistent object of the
 * store made resident ({@link Kernel#makeResident}) and then asked for its reference fields
 * through its own codec ({@code $perpetua$write}, this being the writer; its serialization
 * replacement's, if its class is stored by one), and each array,
 * collection and map gone through element by element (and a sorted one's comparator). Values
 * are looked into only where they can hold references (records, {@code Optional}, a map stored
 * by its serialization replacement). Objects that are not this store's (not persistent yet, or
 * another store's) are not followed: they are resident by definition, and what they reach
 * becomes this store's only at a commit.
 *
 * <p>One walk per call, under the kernel's lock; it holds what it has visited strongly until it
 * returns, as the program holding the root would.
 */
final class Preloader implements RecordWriter {
    /** Records nest at most this deep here, as in {@link RecordEncoder}. */
    private static final int MAX_VALUE_DEPTH = 512;

    private final Kernel kernel;
    private final ClassRegistry classes;
    private final ArrayDeque<Object> work = new ArrayDeque<>();
    private final Map<Object, Boolean> visited = new IdentityHashMap<>();
    private int depth;

    Preloader(Kernel kernel, ClassRegistry classes) {
        this.kernel = kernel;
        this.classes = classes;
    }

    /** Makes everything reachable from {@code root} resident. */
    void walk(Object root) {
        reach(root);
        for (Object o; (o = work.poll()) != null; ) {
            // a persistent object without a handle here is a replaced map a format 10 record held, by value
            if (o instanceof Persistent p && p.$perpetua$handle() != null) {
                kernel.makeResident(p);
                storedFields(p).$perpetua$write(this); // each reference field comes back through writeObject
            } else if (o instanceof Object[] || o instanceof Collection<?> || o instanceof Map<?, ?>) {
                contents(o);
            }
        }
    }

    /**
     * @return the object whose fields {@code p}'s record holds: its serialization replacement if
     *         its class is stored by one (its own fields hold objects of a JDK class, which this
     *         walk does not look into), else {@code p}
     */
    private Persistent storedFields(Persistent p) {
        ClassInfo info = classes.infoIfKnown(p.getClass());
        if (info == null || info.writeReplace == null) {
            return p;
        }
        Object r;
        try {
            r = info.writeReplace.invoke(p);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new PersistentStoreException("the writeReplace of " + p.getClass().getName() + " failed: " + t, t);
        }
        return r instanceof Persistent replacement ? replacement : p;
    }

    /** Queues what an array, a collection or a map holds (and a sorted one's comparator). */
    private void contents(Object o) {
        if (o instanceof Object[] array) {
            for (Object e : array) {
                reach(e);
            }
        } else if (o instanceof Collection<?> c) {
            if (c instanceof SortedSet<?> s) {
                reach(s.comparator()); // an object of a rewritten class, maybe
            }
            for (Object e : c) {
                reach(e);
            }
        } else if (o instanceof Map<?, ?> m) {
            if (m instanceof SortedMap<?, ?> s) {
                reach(s.comparator());
            }
            for (Map.Entry<?, ?> e : m.entrySet()) {
                reach(e.getKey());
                reach(e.getValue());
            }
        }
    }

    /** Queues what {@code v} is or holds that may lead to stored objects, once each. */
    private void reach(Object v) {
        if (v == null) {
            return;
        }
        if (v instanceof Persistent p) {
            boolean follow = p.$perpetua$handle() instanceof Handle h && h.kernel == kernel || isReplacedContainer(p);
            if (follow && visited.put(v, Boolean.TRUE) == null) {
                work.add(v);
            }
            return;
        }
        Class<?> c = v.getClass();
        if (v instanceof Object[] || v instanceof Collection<?> || v instanceof Map<?, ?>) {
            if (visited.put(v, Boolean.TRUE) == null) {
                work.add(v);
            }
        } else if (c.isRecord()) {
            components(v, c);
        } else if (v instanceof Optional<?> o) {
            o.ifPresent(this::reach);
        }
        // a primitive array, a string, a box, an enum, a java.time value: nothing to follow
    }

    /**
     * @return true for a collection or map stored by its serialization replacement (Guava's
     *         immutable maps: see {@link ClassInfo#writeReplace}) that a format 10 record held: a
     *         value with no handle of its own, whose elements may be stored objects. (One with a
     *         handle is followed as any object, and only if the handle is this store's.)
     */
    private static boolean isReplacedContainer(Persistent p) {
        return p.$perpetua$handle() == null && (p instanceof Collection<?> || p instanceof Map<?, ?>)
                && ClassRegistry.storedByReplacement(p.getClass());
    }

    private void components(Object record, Class<?> type) {
        // A record class this store has not read or written (one a new object holds, say) has
        // nothing stored below it; nor has one nested too deep for the kernel to store.
        ClassInfo info = classes.infoIfKnown(type);
        if (info == null || depth == MAX_VALUE_DEPTH) {
            return;
        }
        depth++;
        try {
            for (int i = 0; i < info.recordAccessors.length; i++) {
                reach(info.component(record, i));
            }
        } finally {
            depth--;
        }
    }

    // ---- RecordWriter: an object's fields; only its references matter here ----

    @Override
    public void writeObject(Object v) {
        reach(v);
    }

    @Override
    public void writeBoolean(boolean v) {
    }

    @Override
    public void writeByte(byte v) {
    }

    @Override
    public void writeChar(char v) {
    }

    @Override
    public void writeShort(short v) {
    }

    @Override
    public void writeInt(int v) {
    }

    @Override
    public void writeLong(long v) {
    }

    @Override
    public void writeFloat(float v) {
    }

    @Override
    public void writeDouble(double v) {
    }
}
