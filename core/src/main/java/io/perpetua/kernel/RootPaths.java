package io.perpetua.kernel;

import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The path from a named root to an object, for an error message only: a commit labels what it
 * starts from by class and id ({@code Order#9.device}), and the program knows its objects by the
 * names and fields that lead to them ({@code "shop".orders[3].device}).
 *
 * <p>A breadth-first walk of the resident objects, from the resident roots, through the fields,
 * elements and entries a commit stores, so the path found is a shortest one. It never reads the
 * store: a hollow object is a dead end, and so is one the walk cannot look into (a JDK object
 * stored by its serialization). Reflection reads the fields, so no residency check runs. Bounded
 * by {@link #LIMIT} objects: past it, the caller keeps its own label. Not thread-safe; one walk
 * per object.
 */
final class RootPaths {
    /** Objects visited at most, so that an error in a huge resident graph answers in a bounded time. */
    static final int LIMIT = 1_000_000;

    /** How the walk reached an object: from which object, by which step. */
    private record Step(Object from, String step) {
    }

    private final Map<Object, Step> reached = new IdentityHashMap<>();
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private Object target;

    private RootPaths() {
    }

    /**
     * @param roots the resident roots, by their labels ({@code "shop"}), in the order to try them
     * @param target the object to find
     * @return the path from a root to {@code target}, such as {@code "shop".orders[3]}, or null if
     *         no resident path leads there within {@link #LIMIT} objects
     */
    static String find(Map<String, Object> roots, Object target) {
        RootPaths walk = new RootPaths();
        walk.target = target;
        for (Map.Entry<String, Object> root : roots.entrySet()) {
            if (walk.reach(root.getValue(), null, root.getKey())) {
                return walk.render(target);
            }
        }
        while (!walk.queue.isEmpty() && walk.reached.size() < LIMIT) {
            if (walk.expand(walk.queue.poll())) {
                return walk.render(target);
            }
        }
        return null;
    }

    /** @return true if {@code o} is the target */
    private boolean reach(Object o, Object from, String step) {
        // a value holds no object of the store, but a record may
        if (o == null || reached.containsKey(o) || RecordEncoder.isValue(o) && !(o instanceof Record)) {
            return false;
        }
        reached.put(o, new Step(from, step));
        if (o == target) {
            return true;
        }
        queue.add(o);
        return false;
    }

    /** Reaches what {@code o} refers to; @return true once the target is reached */
    private boolean expand(Object o) {
        try {
            if (o instanceof Persistent p) {
                if (p.$perpetua$state() == ObjectState.HOLLOW) {
                    return false; // its fields are not read yet, and a walk for a message reads nothing
                }
                if (fields(o)) {
                    return true;
                }
                return PersistentClasses.inheritedContainer(o.getClass()) != null && contents(o);
            }
            if (o instanceof Object[] array) {
                for (int i = 0; i < array.length; i++) {
                    if (reach(array[i], o, "[" + i + "]")) {
                        return true;
                    }
                }
                return false;
            }
            if (o instanceof Record) {
                for (RecordComponent c : o.getClass().getRecordComponents()) {
                    if (!c.getType().isPrimitive()) {
                        Field f = o.getClass().getDeclaredField(c.getName()); // its field: no accessor code runs
                        f.setAccessible(true);
                        if (reach(f.get(o), o, "." + c.getName())) {
                            return true;
                        }
                    }
                }
                return false;
            }
            return (o instanceof Collection<?> || o instanceof Map<?, ?>) && contents(o);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false; // a dead end: the walk only improves a message
        }
    }

    /** The instance fields a commit stores (not transient, not Perpetua's own), of every class of {@code o}. */
    private boolean fields(Object o) throws IllegalAccessException {
        for (Class<?> c = o.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            if (!Persistent.class.isAssignableFrom(c)) {
                break; // a JDK super-class: its contents, if any, are walked as a container's
            }
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.getType().isPrimitive()
                        || f.getName().startsWith("$perpetua$")) {
                    continue;
                }
                f.setAccessible(true);
                if (reach(f.get(o), o, "." + f.getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A collection's elements ({@code [i]} in iteration order) or a map's keys and values ({@code [key]}). */
    private boolean contents(Object o) {
        if (o instanceof Map<?, ?> map) {
            int i = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (reach(e.getKey(), o, ".keySet()[" + i + "]") || reach(e.getValue(), o, "[" + key(e.getKey(), i) + "]")) {
                    return true;
                }
                i++;
            }
        } else if (o instanceof Collection<?> collection) {
            int i = 0;
            for (Object e : collection) {
                if (reach(e, o, "[" + i++ + "]")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A key as the program would write it: a string quoted, a number or constant as it is, else the entry's place. */
    private static String key(Object key, int entry) {
        if (key instanceof String s) {
            return "\"" + s + "\"";
        }
        if (key == null || key instanceof Number || key instanceof Boolean || key instanceof Character
                || key instanceof Enum<?>) {
            return String.valueOf(key);
        }
        return "entry " + entry;
    }

    private String render(Object o) {
        StringBuilder path = new StringBuilder();
        for (Step s = reached.get(o); s != null; s = s.from() == null ? null : reached.get(s.from())) {
            path.insert(0, s.step());
        }
        return path.toString();
    }
}
