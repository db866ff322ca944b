package io.perpetua.kernel;

import io.perpetua.kernel.ClassDescriptor.Kind;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.Stack;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The JDK containers the kernel stores itself (the agent cannot rewrite JDK classes): which
 * classes, which {@link Kind} each is, and how to make an empty one again. Containers keep
 * their identity: each has a record of its own. Matching is by exact class, so a subclass (a
 * user's {@code extends ArrayList}) is not taken for its JDK parent. Stateless.
 */
final class Containers {
    private Containers() {
    }

    /** Mutable collections with no ordering argument. */
    static final Map<Class<?>, Supplier<Collection<Object>>> COLLECTIONS = new HashMap<>();
    /** Mutable collections whose order is given by a comparator (null: natural order). */
    static final Map<Class<?>, Function<Comparator<Object>, Collection<Object>>> SORTED_COLLECTIONS = new HashMap<>();
    static final Map<Class<?>, Supplier<Map<Object, Object>>> MAPS = new HashMap<>();
    static final Map<Class<?>, Function<Comparator<Object>, Map<Object, Object>>> SORTED_MAPS = new HashMap<>();
    private static final Map<Class<?>, Kind> FIXED_KINDS = new HashMap<>();

    static {
        COLLECTIONS.put(ArrayList.class, ArrayList::new);
        COLLECTIONS.put(LinkedList.class, LinkedList::new);
        COLLECTIONS.put(ArrayDeque.class, ArrayDeque::new);
        COLLECTIONS.put(HashSet.class, HashSet::new);
        COLLECTIONS.put(LinkedHashSet.class, LinkedHashSet::new);
        COLLECTIONS.put(Vector.class, Vector::new);
        COLLECTIONS.put(Stack.class, Stack::new);
        COLLECTIONS.put(CopyOnWriteArrayList.class, CopyOnWriteArrayList::new);
        COLLECTIONS.put(CopyOnWriteArraySet.class, CopyOnWriteArraySet::new);
        COLLECTIONS.put(ConcurrentLinkedQueue.class, ConcurrentLinkedQueue::new);
        COLLECTIONS.put(ConcurrentLinkedDeque.class, ConcurrentLinkedDeque::new);
        SORTED_COLLECTIONS.put(TreeSet.class, TreeSet::new);
        SORTED_COLLECTIONS.put(ConcurrentSkipListSet.class, ConcurrentSkipListSet::new);
        SORTED_COLLECTIONS.put(PriorityQueue.class, PriorityQueue::new);
        MAPS.put(HashMap.class, HashMap::new);
        MAPS.put(LinkedHashMap.class, LinkedHashMap::new);
        MAPS.put(Hashtable.class, Hashtable::new);
        MAPS.put(ConcurrentHashMap.class, ConcurrentHashMap::new);
        MAPS.put(IdentityHashMap.class, IdentityHashMap::new);
        SORTED_MAPS.put(TreeMap.class, TreeMap::new);
        SORTED_MAPS.put(ConcurrentSkipListMap.class, ConcurrentSkipListMap::new);

        for (List<?> l : List.of(List.of(), List.of(1), List.of(1, 2, 3), Collections.emptyList(),
                Collections.singletonList(1), Arrays.asList(1, 2).stream().toList())) {
            FIXED_KINDS.put(l.getClass(), Kind.IMMUTABLE_LIST);
        }
        for (Set<?> s : List.of(Set.of(), Set.of(1), Set.of(1, 2, 3), Collections.emptySet(), Collections.singleton(1))) {
            FIXED_KINDS.put(s.getClass(), Kind.IMMUTABLE_SET);
        }
        for (Map<?, ?> m : List.of(Map.of(), Map.of(1, 1), Map.of(1, 1, 2, 2), Collections.emptyMap(),
                Collections.singletonMap(1, 1))) {
            FIXED_KINDS.put(m.getClass(), Kind.IMMUTABLE_MAP);
        }
        FIXED_KINDS.put(Collections.unmodifiableList(new ArrayList<>()).getClass(), Kind.UNMODIFIABLE_LIST);
        FIXED_KINDS.put(Collections.unmodifiableList(new LinkedList<>()).getClass(), Kind.UNMODIFIABLE_LIST);
        FIXED_KINDS.put(Collections.unmodifiableSet(new HashSet<>()).getClass(), Kind.UNMODIFIABLE_SET);
        FIXED_KINDS.put(Collections.unmodifiableMap(new HashMap<>()).getClass(), Kind.UNMODIFIABLE_MAP);
        FIXED_KINDS.put(Collections.unmodifiableCollection(new ArrayList<>()).getClass(), Kind.UNMODIFIABLE_COLLECTION);
        FIXED_KINDS.put(Collections.unmodifiableSortedSet(new TreeSet<>()).getClass(), Kind.UNMODIFIABLE_SORTED_SET);
        FIXED_KINDS.put(Collections.unmodifiableNavigableSet(new TreeSet<>()).getClass(), Kind.UNMODIFIABLE_SORTED_SET);
        FIXED_KINDS.put(Collections.unmodifiableSortedMap(new TreeMap<>()).getClass(), Kind.UNMODIFIABLE_SORTED_MAP);
        FIXED_KINDS.put(Collections.unmodifiableNavigableMap(new TreeMap<>()).getClass(), Kind.UNMODIFIABLE_SORTED_MAP);
        FIXED_KINDS.put(Arrays.asList(1).getClass(), Kind.FIXED_SIZE_LIST);
    }

    /**
     * The tracked subclass the kernel loads each of these JDK classes as (see {@link Tracked});
     * classes not here are loaded as themselves and compared with their snapshot at every commit.
     */
    private static final Map<Class<?>, Supplier<Collection<Object>>> TRACKED_COLLECTIONS = Map.of(
            ArrayList.class, TrackedArrayList::new, HashSet.class, TrackedHashSet::new,
            ArrayDeque.class, TrackedArrayDeque::new);
    private static final Map<Class<?>, Supplier<Map<Object, Object>>> TRACKED_MAPS = Map.of(HashMap.class, TrackedHashMap::new);

    /** @return an empty container of a stored class, tracked where the kernel can track it */
    static Collection<Object> newCollection(Class<?> stored, Comparator<Object> comparator) {
        if (stored == TreeSet.class) {
            return new TrackedTreeSet<>(comparator);
        }
        if (SORTED_COLLECTIONS.containsKey(stored)) {
            return SORTED_COLLECTIONS.get(stored).apply(comparator);
        }
        Supplier<Collection<Object>> make = TRACKED_COLLECTIONS.getOrDefault(stored, COLLECTIONS.get(stored));
        return make == null ? null : make.get();
    }

    /** @return an empty map of a stored class, tracked where the kernel can track it */
    static Map<Object, Object> newMap(Class<?> stored, Comparator<Object> comparator) {
        if (stored == TreeMap.class) {
            return new TrackedTreeMap<>(comparator);
        }
        if (SORTED_MAPS.containsKey(stored)) {
            return SORTED_MAPS.get(stored).apply(comparator);
        }
        Supplier<Map<Object, Object>> make = TRACKED_MAPS.getOrDefault(stored, MAPS.get(stored));
        return make == null ? null : make.get();
    }

    /** @return the JDK class a container is stored as: its own, or the one its tracked class extends */
    static Class<?> storedClass(Object container) {
        Class<?> c = container.getClass();
        return container instanceof Tracked ? c.getSuperclass() : c;
    }

    /** @return the kind of a container the kernel stores, or null if the object is not one */
    static Kind kindOf(Object o) {
        Class<?> c = storedClass(o);
        if (c.isArray()) {
            return Kind.ARRAY;
        }
        if (COLLECTIONS.containsKey(c) || SORTED_COLLECTIONS.containsKey(c)) {
            return Kind.COLLECTION;
        }
        if (MAPS.containsKey(c) || SORTED_MAPS.containsKey(c)) {
            return Kind.MAP;
        }
        if (o instanceof EnumSet) {
            return Kind.ENUM_SET;
        }
        if (c == EnumMap.class) {
            return Kind.ENUM_MAP;
        }
        return FIXED_KINDS.get(c);
    }

    /** @return true for kinds whose contents can change after creation (checked at commit) */
    static boolean mutable(Kind kind) {
        return kind != Kind.IMMUTABLE_LIST && kind != Kind.IMMUTABLE_SET && kind != Kind.IMMUTABLE_MAP
                && kind != Kind.VALUE;
    }

    /** @return true for kinds created empty and then filled, so cycles through them are fine */
    static boolean fillable(Kind kind) {
        return kind == Kind.ARRAY || kind == Kind.COLLECTION || kind == Kind.MAP || kind == Kind.ENUM_SET
                || kind == Kind.ENUM_MAP;
    }

    /** @return the comparator of a sorted container, or null for natural order or an unsorted one */
    @SuppressWarnings("unchecked")
    static Comparator<Object> comparator(Object container) {
        if (container instanceof java.util.SortedSet<?> s) {
            return (Comparator<Object>) s.comparator();
        }
        if (container instanceof java.util.SortedMap<?, ?> m) {
            return (Comparator<Object>) m.comparator();
        }
        if (container instanceof PriorityQueue<?> q) {
            return (Comparator<Object>) q.comparator();
        }
        return null;
    }

    /**
     * Mutable containers that place an element by its position alone: adding one runs none of
     * its methods. Every other mutable collection or map hashes, compares or tests equality
     * (HashSet, TreeMap, CopyOnWriteArraySet...), which runs the element's own code.
     */
    private static final Set<Class<?>> POSITIONAL = Set.of(ArrayList.class, LinkedList.class, ArrayDeque.class,
            Vector.class, Stack.class, CopyOnWriteArrayList.class, ConcurrentLinkedQueue.class,
            ConcurrentLinkedDeque.class, IdentityHashMap.class);

    /** @return true if adding to a container of this stored class calls the elements' (or keys') own methods */
    static boolean addingRunsElementCode(Class<?> stored) {
        return !POSITIONAL.contains(stored);
    }

    static boolean sorted(Class<?> c) {
        return SORTED_COLLECTIONS.containsKey(c) || SORTED_MAPS.containsKey(c);
    }

    /**
     * The key type of an {@link EnumMap}. For an empty map no public method tells it, so it is
     * read from the map's serialized form, where the JDK writes it as a class.
     */
    static Class<?> enumMapKeyType(EnumMap<?, ?> map) {
        if (!map.isEmpty()) {
            return map.keySet().iterator().next().getDeclaringClass();
        }
        return firstEnumClassSerialized(map, "the key type of an empty EnumMap");
    }

    /** The element type of an {@link EnumSet}, also when it is empty. */
    static Class<?> enumSetElementType(EnumSet<?> set) {
        EnumSet<?> probe = set.isEmpty() ? EnumSet.complementOf(asRaw(set)) : set;
        if (probe.isEmpty()) { // an enum with no constants
            return firstEnumClassSerialized(set, "the element type of an empty EnumSet");
        }
        return ((Enum<?>) probe.iterator().next()).getDeclaringClass();
    }

    /**
     * Serializes {@code o} to nowhere and returns the first enum class its stream describes: the
     * JDK writes an EnumMap's key type and an EnumSet's element type as classes, and
     * {@link java.io.ObjectOutputStream#annotateClass} sees each class written.
     */
    private static Class<?> firstEnumClassSerialized(Object o, String what) {
        Class<?>[] found = new Class<?>[1];
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(java.io.OutputStream.nullOutputStream()) {
            @Override
            protected void annotateClass(Class<?> cl) {
                if (found[0] == null && cl.isEnum()) {
                    found[0] = cl;
                }
            }
        }) {
            out.writeObject(o);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot find " + what, e);
        }
        if (found[0] == null) {
            throw new IllegalStateException("cannot find " + what);
        }
        return found[0];
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static EnumSet asRaw(EnumSet<?> set) {
        return set;
    }
}
