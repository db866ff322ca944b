package io.perpetua.kernel;

import io.perpetua.kernel.ClassDescriptor.Kind;

import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Date;
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
import java.util.Properties;
import java.util.Set;
import java.util.Stack;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The JDK containers the kernel stores itself (the agent cannot rewrite JDK classes): which
 * classes, which {@link Kind} each is, and how to make an empty one again. Containers keep
 * their identity: each has a record of its own. Matching is by exact class, so a subclass (a
 * user's {@code extends ArrayList}) is not taken for its JDK parent. Stateless.
 */
final class Containers {
    /**
     * The names of the three {@code java.sql} classes stored as holders ({@link SqlTimes}):
     * matched by name, so that no {@code java.sql} class is loaded, nor needed, by a program
     * that stores none (a runtime image may leave the module out).
     */
    static final Set<String> SQL_TIMES = Set.of("java.sql.Timestamp", "java.sql.Date", "java.sql.Time");

    private Containers() {
    }

    /**
     * The kind of each JDK class stored as a mutable collection or map, or as a fixed one
     * (immutable, unmodifiable, fixed-size). Plain data, no lambdas: this class is initialized
     * the first time a program meets a container, and 25 method references made that take 10
     * to 30 ms of a cold run (one generated class each) where the table takes a fraction of one.
     * Its mutable classes are the ones {@link #newCollection} and {@link #newMap} make
     * (TypesRoundTripTest reads back one of each).
     */
    private static final Map<Class<?>, Kind> KINDS = new HashMap<>();
    /** What a {@code Collections.synchronized*} or {@code unmodifiable*} wrapper wraps, and how to wrap one again. */
    private enum Wrapped {
        COLLECTION, LIST, SET, SORTED_SET, NAVIGABLE_SET, MAP, SORTED_MAP, NAVIGABLE_MAP,
        /** Java 21's {@code unmodifiableSequenced*}: see {@link #SEQUENCED}. */
        SEQUENCED_COLLECTION, SEQUENCED_SET, SEQUENCED_MAP;

        boolean isMap() {
            return this == MAP || this == SORTED_MAP || this == NAVIGABLE_MAP || this == SEQUENCED_MAP;
        }

        boolean isSorted() {
            return this == SORTED_SET || this == NAVIGABLE_SET || this == SORTED_MAP || this == NAVIGABLE_MAP;
        }
    }

    /** A wrapper class: what it wraps, and whether it is a synchronized one (else unmodifiable). */
    private record Wrapper(Wrapped wraps, boolean synchronizedOne) {
    }

    /**
     * The classes of {@code Collections.synchronized*} and {@code Collections.unmodifiable*}
     * ({@link Kind#WRAPPER}): stored as a reference to what they wrap, or as a copy of what they
     * show when that is not something Perpetua stores (a map's key set, say).
     */
    private static final Map<Class<?>, Wrapper> WRAPPERS = new HashMap<>();
    /** The same, by class name: a stored wrapper names its class. */
    private static final Map<String, Wrapper> WRAPPERS_BY_NAME = new HashMap<>();
    /**
     * Java 21's {@code Collections.unmodifiableSequenced*} and the interface each takes, found by
     * name so that the kernel also runs on Java 17, where there are none (a store holding one
     * then cannot be read there).
     */
    private static final Map<Wrapped, java.lang.invoke.MethodHandle> SEQUENCED = new java.util.EnumMap<>(Wrapped.class);
    private static final Map<Wrapped, Class<?>> SEQUENCED_TYPES = new java.util.EnumMap<>(Wrapped.class);

    static {
        wrapper(Collections.synchronizedCollection(new ArrayList<>()), Wrapped.COLLECTION, true);
        wrapper(Collections.synchronizedList(new ArrayList<>()), Wrapped.LIST, true);
        wrapper(Collections.synchronizedList(new LinkedList<>()), Wrapped.LIST, true);
        wrapper(Collections.synchronizedSet(new HashSet<>()), Wrapped.SET, true);
        wrapper(Collections.synchronizedSortedSet(new TreeSet<>()), Wrapped.SORTED_SET, true);
        wrapper(Collections.synchronizedNavigableSet(new TreeSet<>()), Wrapped.NAVIGABLE_SET, true);
        wrapper(Collections.synchronizedMap(new HashMap<>()), Wrapped.MAP, true);
        wrapper(Collections.synchronizedSortedMap(new TreeMap<>()), Wrapped.SORTED_MAP, true);
        wrapper(Collections.synchronizedNavigableMap(new TreeMap<>()), Wrapped.NAVIGABLE_MAP, true);
        wrapper(Collections.unmodifiableCollection(new ArrayList<>()), Wrapped.COLLECTION, false);
        wrapper(Collections.unmodifiableList(new ArrayList<>()), Wrapped.LIST, false);
        wrapper(Collections.unmodifiableList(new LinkedList<>()), Wrapped.LIST, false);
        wrapper(Collections.unmodifiableSet(new HashSet<>()), Wrapped.SET, false);
        wrapper(Collections.unmodifiableSortedSet(new TreeSet<>()), Wrapped.SORTED_SET, false);
        wrapper(Collections.unmodifiableNavigableSet(new TreeSet<>()), Wrapped.NAVIGABLE_SET, false);
        wrapper(Collections.unmodifiableMap(new HashMap<>()), Wrapped.MAP, false);
        wrapper(Collections.unmodifiableSortedMap(new TreeMap<>()), Wrapped.SORTED_MAP, false);
        wrapper(Collections.unmodifiableNavigableMap(new TreeMap<>()), Wrapped.NAVIGABLE_MAP, false);
        sequenced(Wrapped.SEQUENCED_COLLECTION, "Collection", new ArrayList<>());
        sequenced(Wrapped.SEQUENCED_SET, "Set", new LinkedHashSet<>());
        sequenced(Wrapped.SEQUENCED_MAP, "Map", new LinkedHashMap<>());
    }

    private static void sequenced(Wrapped wraps, String kind, Object example) {
        try {
            Class<?> type = Class.forName("java.util.Sequenced" + kind);
            java.lang.invoke.MethodHandle make = java.lang.invoke.MethodHandles.publicLookup().findStatic(
                    Collections.class, "unmodifiableSequenced" + kind, java.lang.invoke.MethodType.methodType(type, type));
            SEQUENCED.put(wraps, make);
            SEQUENCED_TYPES.put(wraps, type);
            wrapper(make.invoke(example), wraps, false);
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            // before Java 21: nothing to register
        } catch (Throwable e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static void wrapper(Object example, Wrapped wraps, boolean synchronizedOne) {
        Wrapper w = new Wrapper(wraps, synchronizedOne);
        WRAPPERS.put(example.getClass(), w);
        WRAPPERS_BY_NAME.put(example.getClass().getName(), w);
    }

    /** Mutable collections and maps whose order is given by a comparator (null: natural order). */
    private static final Set<Class<?>> SORTED = Set.of(TreeSet.class, ConcurrentSkipListSet.class, PriorityQueue.class,
            TreeMap.class, ConcurrentSkipListMap.class, PriorityBlockingQueue.class);
    /** Queues made with a capacity, which the stored form keeps: {@code size() + remainingCapacity()}. */
    private static final Set<Class<?>> BOUNDED = Set.of(LinkedBlockingQueue.class, LinkedBlockingDeque.class,
            ArrayBlockingQueue.class);

    static {
        for (Class<?> c : List.of(ArrayList.class, LinkedList.class, ArrayDeque.class, HashSet.class,
                LinkedHashSet.class, Vector.class, Stack.class, CopyOnWriteArrayList.class, CopyOnWriteArraySet.class,
                ConcurrentLinkedQueue.class, ConcurrentLinkedDeque.class, TreeSet.class, ConcurrentSkipListSet.class,
                PriorityQueue.class, LinkedBlockingQueue.class, LinkedBlockingDeque.class, ArrayBlockingQueue.class,
                PriorityBlockingQueue.class, LinkedTransferQueue.class, DelayQueue.class)) {
            KINDS.put(c, Kind.COLLECTION);
        }
        for (Class<?> c : List.of(HashMap.class, LinkedHashMap.class, Hashtable.class, Properties.class,
                ConcurrentHashMap.class, IdentityHashMap.class, TreeMap.class, ConcurrentSkipListMap.class)) {
            KINDS.put(c, Kind.MAP);
        }
        for (List<?> l : List.of(List.of(), List.of(1), List.of(1, 2, 3), Collections.emptyList(),
                Collections.singletonList(1), Arrays.asList(1, 2).stream().toList(), Collections.nCopies(2, 1))) {
            KINDS.put(l.getClass(), Kind.IMMUTABLE_LIST);
        }
        for (Set<?> s : List.of(Set.of(), Set.of(1), Set.of(1, 2, 3), Collections.emptySet(), Collections.singleton(1),
                Collections.emptyNavigableSet())) {
            KINDS.put(s.getClass(), Kind.IMMUTABLE_SET);
        }
        for (Map<?, ?> m : List.of(Map.of(), Map.of(1, 1), Map.of(1, 1, 2, 2), Collections.emptyMap(),
                Collections.singletonMap(1, 1), Collections.emptyNavigableMap())) {
            KINDS.put(m.getClass(), Kind.IMMUTABLE_MAP);
        }
        KINDS.put(Arrays.asList(1).getClass(), Kind.FIXED_SIZE_LIST);
        for (Class<?> c : List.of(Date.class, StringBuilder.class, StringBuffer.class, AtomicInteger.class,
                AtomicLong.class, AtomicBoolean.class, BitSet.class, Object.class, ReentrantLock.class,
                ReentrantReadWriteLock.class, java.security.SecureRandom.class)) {
            KINDS.put(c, Kind.HOLDER);
        }
        KINDS.put(AtomicReference.class, Kind.ATOMIC_REFERENCE);
        for (Class<?> c : WRAPPERS.keySet()) {
            KINDS.put(c, Kind.WRAPPER);
        }
        KINDS.put(Map.entry(1, 1).getClass(), Kind.IMMUTABLE_ENTRY);
        KINDS.put(AbstractMap.SimpleImmutableEntry.class, Kind.IMMUTABLE_ENTRY);
        KINDS.put(AbstractMap.SimpleEntry.class, Kind.ENTRY);
        KINDS.put(ConcurrentHashMap.KeySetView.class, Kind.KEY_SET_VIEW);
    }

    /**
     * @return an empty collection of a stored class (of kind {@link Kind#COLLECTION}), tracked
     *         where the kernel can track it (see {@link Tracked}: the others are compared with
     *         their snapshot at every commit), or null if the class is not one
     */
    static Collection<Object> newCollection(Class<?> stored, Comparator<Object> comparator, int capacity) {
        if (stored == ArrayList.class) {
            return new TrackedArrayList<>();
        } else if (stored == HashSet.class) {
            return new TrackedHashSet<>();
        } else if (stored == ArrayDeque.class) {
            return new TrackedArrayDeque<>();
        } else if (stored == TreeSet.class) {
            return new TrackedTreeSet<>(comparator);
        } else if (stored == LinkedList.class) {
            return new LinkedList<>();
        } else if (stored == LinkedHashSet.class) {
            return new LinkedHashSet<>();
        } else if (stored == Vector.class) {
            return new Vector<>();
        } else if (stored == Stack.class) {
            return new Stack<>();
        } else if (stored == CopyOnWriteArrayList.class) {
            return new CopyOnWriteArrayList<>();
        } else if (stored == CopyOnWriteArraySet.class) {
            return new CopyOnWriteArraySet<>();
        } else if (stored == ConcurrentLinkedQueue.class) {
            return new ConcurrentLinkedQueue<>();
        } else if (stored == ConcurrentLinkedDeque.class) {
            return new ConcurrentLinkedDeque<>();
        } else if (stored == ConcurrentSkipListSet.class) {
            return new ConcurrentSkipListSet<>(comparator);
        } else if (stored == PriorityQueue.class) {
            return new PriorityQueue<>(comparator);
        } else if (stored == LinkedBlockingQueue.class) {
            return new LinkedBlockingQueue<>(capacity);
        } else if (stored == LinkedBlockingDeque.class) {
            return new LinkedBlockingDeque<>(capacity);
        } else if (stored == ArrayBlockingQueue.class) {
            return new ArrayBlockingQueue<>(capacity); // its fairness is private: non-fair, as by default
        } else if (stored == PriorityBlockingQueue.class) {
            return new PriorityBlockingQueue<>(11, comparator);
        } else if (stored == LinkedTransferQueue.class) {
            return new LinkedTransferQueue<>();
        } else if (stored == DelayQueue.class) {
            return new DelayQueue();
        }
        return null;
    }

    /**
     * @return an empty map of a stored class (of kind {@link Kind#MAP}), tracked where the
     *         kernel can track it, or null if the class is not one
     */
    static Map<Object, Object> newMap(Class<?> stored, Comparator<Object> comparator) {
        if (stored == HashMap.class) {
            return new TrackedHashMap<>();
        } else if (stored == TreeMap.class) {
            return new TrackedTreeMap<>(comparator);
        } else if (stored == LinkedHashMap.class) {
            return new LinkedHashMap<>();
        } else if (stored == Hashtable.class) {
            return new Hashtable<>();
        } else if (stored == Properties.class) {
            return new Properties();
        } else if (stored == ConcurrentHashMap.class) {
            return new ConcurrentHashMap<>();
        } else if (stored == IdentityHashMap.class) {
            return new IdentityHashMap<>();
        } else if (stored == ConcurrentSkipListMap.class) {
            return new ConcurrentSkipListMap<>(comparator);
        }
        return null;
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
        Kind kind = KINDS.get(c);
        if (kind != null) {
            return kind == Kind.COLLECTION && sortedSetView(o) ? null : kind;
        }
        if (o instanceof EnumSet) {
            return Kind.ENUM_SET;
        }
        if (o instanceof Date && SQL_TIMES.contains(c.getName())) {
            return Kind.HOLDER;
        }
        if (c == EnumMap.class) {
            return Kind.ENUM_MAP;
        }
        return JdkSerialized.isOne(c) ? Kind.SERIALIZED : null;
    }

    private static final Class<?> TREE_SET_SPLITERATOR = new TreeSet<>().spliterator().getClass();
    private static final Class<?> SKIP_LIST_SET_SPLITERATOR = new ConcurrentSkipListSet<>().spliterator().getClass();

    /**
     * @return true for a {@code TreeSet} or {@code ConcurrentSkipListSet} that is a view of
     *         another ({@code headSet}, {@code subSet}, {@code descendingSet}...): of the same
     *         class as a set of its own, it is told apart by the spliterator of the map behind it
     *         (a sub-map's, not the whole map's); a stored copy would no longer be that view
     */
    static boolean sortedSetView(Object o) {
        Class<?> c = o.getClass();
        return c == TreeSet.class && ((TreeSet<?>) o).spliterator().getClass() != TREE_SET_SPLITERATOR
                || c == ConcurrentSkipListSet.class
                        && ((ConcurrentSkipListSet<?>) o).spliterator().getClass() != SKIP_LIST_SET_SPLITERATOR;
    }

    private static final String EMPTY_LIST = Collections.emptyList().getClass().getName();
    private static final String SINGLETON_LIST = Collections.singletonList(1).getClass().getName();
    private static final String COPIES_LIST = Collections.nCopies(2, 1).getClass().getName();
    private static final String EMPTY_SET = Collections.emptySet().getClass().getName();
    private static final String SINGLETON_SET = Collections.singleton(1).getClass().getName();
    /** {@code emptySortedSet()} and {@code emptyNavigableSet()}: one object. */
    private static final String EMPTY_NAVIGABLE_SET = Collections.emptyNavigableSet().getClass().getName();
    private static final String EMPTY_MAP = Collections.emptyMap().getClass().getName();
    private static final String SINGLETON_MAP = Collections.singletonMap(1, 1).getClass().getName();
    private static final String EMPTY_NAVIGABLE_MAP = Collections.emptyNavigableMap().getClass().getName();

    /*
     * The Collections class's own immutable lists, sets and maps are stored as the immutable
     * kinds, under their class names, and read back as the same class: unlike List.of's, they
     * hold a null and answer a query for one (contains(null), get(null)) instead of throwing.
     * The empty ones are the JDK's shared objects, as List.of() is. Each returns null for a
     * class that is none of them, which is read back as List.of's kind.
     */

    /** @return a list of {@code Collections}' own class {@code className} holding {@code elements}, or null */
    static List<Object> collectionsList(String className, List<Object> elements) {
        if (className.equals(EMPTY_LIST)) {
            checkSize(className, elements.size(), 0);
            return Collections.emptyList();
        } else if (className.equals(SINGLETON_LIST)) {
            checkSize(className, elements.size(), 1);
            return Collections.singletonList(elements.get(0));
        } else if (className.equals(COPIES_LIST)) { // stored as its n elements, all the same one
            return Collections.nCopies(elements.size(), elements.isEmpty() ? null : elements.get(0));
        }
        return null;
    }

    /** As {@link #collectionsList}, for a set. */
    static Set<Object> collectionsSet(String className, List<Object> elements) {
        if (className.equals(EMPTY_SET) || className.equals(EMPTY_NAVIGABLE_SET)) {
            checkSize(className, elements.size(), 0);
            return className.equals(EMPTY_SET) ? Collections.emptySet() : Collections.emptyNavigableSet();
        } else if (className.equals(SINGLETON_SET)) {
            checkSize(className, elements.size(), 1);
            return Collections.singleton(elements.get(0));
        }
        return null;
    }

    /** As {@link #collectionsList}, for a map. */
    static Map<Object, Object> collectionsMap(String className, Map<Object, Object> entries) {
        if (className.equals(EMPTY_MAP) || className.equals(EMPTY_NAVIGABLE_MAP)) {
            checkSize(className, entries.size(), 0);
            return className.equals(EMPTY_MAP) ? Collections.emptyMap() : Collections.emptyNavigableMap();
        } else if (className.equals(SINGLETON_MAP)) {
            checkSize(className, entries.size(), 1);
            Map.Entry<Object, Object> e = entries.entrySet().iterator().next();
            return Collections.singletonMap(e.getKey(), e.getValue());
        }
        return null;
    }

    /** A stored empty or singleton collection of another size is a damaged record. */
    private static void checkSize(String className, int size, int expected) {
        if (size != expected) {
            throw new ByteIn.MalformedRecord("a stored " + className + " holds " + size + " elements");
        }
    }

    /** @return true for kinds whose contents can change after creation (checked at commit) */
    static boolean mutable(Kind kind) {
        return kind != Kind.IMMUTABLE_LIST && kind != Kind.IMMUTABLE_SET && kind != Kind.IMMUTABLE_MAP
                && kind != Kind.IMMUTABLE_ENTRY && kind != Kind.VALUE && kind != Kind.KEY_SET_VIEW;
    }

    /** @return true for kinds created empty and then filled, so cycles through them are fine */
    static boolean fillable(Kind kind) {
        return kind == Kind.ARRAY || kind == Kind.COLLECTION || kind == Kind.MAP || kind == Kind.ENUM_SET
                || kind == Kind.ENUM_MAP || kind == Kind.ATOMIC_REFERENCE || kind == Kind.ENTRY;
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
        if (container instanceof PriorityBlockingQueue<?> q) {
            return (Comparator<Object>) q.comparator();
        }
        return null;
    }

    /** @return whether a collection of this stored class is made with a capacity ({@link #capacity}) */
    static boolean bounded(Class<?> c) {
        return BOUNDED.contains(c);
    }

    /** @return the capacity a bounded queue was made with */
    static int capacity(Collection<?> bounded) {
        return bounded.size() + ((java.util.concurrent.BlockingQueue<?>) bounded).remainingCapacity();
    }

    /**
     * Mutable containers that place an element by its position alone: adding one runs none of
     * its methods. Every other mutable collection or map hashes, compares or tests equality
     * (HashSet, TreeMap, CopyOnWriteArraySet...), which runs the element's own code.
     */
    private static final Set<Class<?>> POSITIONAL = Set.of(ArrayList.class, LinkedList.class, ArrayDeque.class,
            Vector.class, Stack.class, CopyOnWriteArrayList.class, ConcurrentLinkedQueue.class,
            ConcurrentLinkedDeque.class, IdentityHashMap.class, LinkedBlockingQueue.class, LinkedBlockingDeque.class,
            ArrayBlockingQueue.class, LinkedTransferQueue.class);

    /** @return true if adding to a container of this stored class calls the elements' (or keys') own methods */
    static boolean addingRunsElementCode(Class<?> stored) {
        return !POSITIONAL.contains(stored);
    }

    static boolean sorted(Class<?> c) {
        return SORTED.contains(c);
    }

    /**
     * The collection or map a {@code Collections.synchronized*} or {@code unmodifiable*} wrapper
     * wraps. No method returns it, but the wrapper's serialized form holds it, and a stream shows
     * each object it writes to {@link java.io.ObjectOutputStream#replaceObject}: the first
     * collection or map after the wrapper (or the wrapper its {@code writeReplace} makes) is the
     * wrapped one. The {@link Tracked} classes, which serialize as a plain copy, write themselves
     * meanwhile ({@link #findingWrapped}). Every object after the wrapper is written as null, so
     * nothing else is serialized. A synchronized wrapper's {@code writeObject} holds its lock
     * meanwhile. A few microseconds: the kernel keeps the answer in the wrapper's handle
     * ({@code Kernel#wrapped}).
     */
    static Object wrapped(Object wrapper) {
        FINDING.set(Boolean.TRUE);
        try (WrappedFinder out = new WrappedFinder()) {
            out.writeObject(wrapper);
            if (out.found == null) {
                throw new IllegalStateException("no wrapped collection in the serialized form of " + wrapper.getClass().getName());
            }
            return out.found;
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot find what a " + wrapper.getClass().getName() + " wraps", e);
        } finally {
            FINDING.remove();
        }
    }

    /** Set while {@link #wrapped} serializes a wrapper: the {@link Tracked} classes then write themselves, not a plain copy. */
    private static final ThreadLocal<Boolean> FINDING = new ThreadLocal<>();

    /** @return true while this thread's {@link #wrapped} serializes a wrapper */
    static boolean findingWrapped() {
        return FINDING.get() != null;
    }

    /** See {@link #wrapped}. */
    private static final class WrappedFinder extends java.io.ObjectOutputStream {
        private Object root;
        Object found;

        WrappedFinder() throws java.io.IOException {
            super(java.io.OutputStream.nullOutputStream());
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object o) {
            if (root == null) {
                root = o;
                return o;
            }
            if (found == null && (o instanceof Collection || o instanceof Map)) {
                found = o;
            }
            return null; // the wrapper's fields only: not what they hold (a lock object, say)
        }
    }

    /** @return the wrapper class a stored class name names; null if it names none */
    private static Wrapper wrapperNamed(String className) {
        return WRAPPERS_BY_NAME.get(className);
    }

    /** @return true if a wrapper of this stored class wraps a map (its copy is entries) */
    static boolean wrapsMap(String wrapperClass) {
        Wrapper w = wrapperNamed(wrapperClass);
        return w != null && w.wraps().isMap();
    }

    /** @return true if a wrapper of this stored class wraps a sorted set or map (its copy starts with the comparator) */
    static boolean wrapsSorted(String wrapperClass) {
        Wrapper w = wrapperNamed(wrapperClass);
        return w != null && w.wraps().isSorted();
    }

    /** @return true if a wrapper's lock guards what it wraps (a synchronized one), to be held while it is copied */
    static boolean synchronizedWrapper(Object wrapper) {
        Wrapper w = WRAPPERS.get(wrapper.getClass());
        return w != null && w.synchronizedOne();
    }

    /**
     * @return an empty collection or map for the copy a wrapper of this stored class shows
     *         (an ArrayList, LinkedHashSet, TreeSet, LinkedHashMap or TreeMap), or null if the
     *         class is not a wrapper
     */
    static Object copyFor(String wrapperClass, Comparator<Object> comparator) {
        Wrapper w = wrapperNamed(wrapperClass);
        if (w == null) {
            return null;
        }
        return switch (w.wraps()) {
            case COLLECTION, LIST -> new ArrayList<>();
            case SET -> new LinkedHashSet<>();
            case SORTED_SET, NAVIGABLE_SET -> new TreeSet<>(comparator);
            case MAP, SEQUENCED_MAP -> new LinkedHashMap<>();
            case SORTED_MAP, NAVIGABLE_MAP -> new TreeMap<>(comparator);
            case SEQUENCED_COLLECTION -> new ArrayList<>();
            case SEQUENCED_SET -> new LinkedHashSet<>();
        };
    }

    /**
     * @return a new wrapper of the stored class {@code wrapperClass} around {@code wrapped}, or
     *         null if the class is not one or {@code wrapped} is not of the interface it wraps
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object wrap(String wrapperClass, Object wrapped) {
        Wrapper w = wrapperNamed(wrapperClass);
        if (w == null) {
            return null;
        }
        boolean s = w.synchronizedOne();
        return switch (w.wraps()) {
            case COLLECTION -> wrapped instanceof Collection c
                    ? s ? Collections.synchronizedCollection(c) : Collections.unmodifiableCollection(c) : null;
            case LIST -> wrapped instanceof List l ? s ? Collections.synchronizedList(l) : Collections.unmodifiableList(l) : null;
            case SET -> wrapped instanceof Set t ? s ? Collections.synchronizedSet(t) : Collections.unmodifiableSet(t) : null;
            case SORTED_SET -> wrapped instanceof java.util.SortedSet t
                    ? s ? Collections.synchronizedSortedSet(t) : Collections.unmodifiableSortedSet(t) : null;
            case NAVIGABLE_SET -> wrapped instanceof java.util.NavigableSet t
                    ? s ? Collections.synchronizedNavigableSet(t) : Collections.unmodifiableNavigableSet(t) : null;
            case MAP -> wrapped instanceof Map m ? s ? Collections.synchronizedMap(m) : Collections.unmodifiableMap(m) : null;
            case SORTED_MAP -> wrapped instanceof java.util.SortedMap m
                    ? s ? Collections.synchronizedSortedMap(m) : Collections.unmodifiableSortedMap(m) : null;
            case NAVIGABLE_MAP -> wrapped instanceof java.util.NavigableMap m
                    ? s ? Collections.synchronizedNavigableMap(m) : Collections.unmodifiableNavigableMap(m) : null;
            case SEQUENCED_COLLECTION, SEQUENCED_SET, SEQUENCED_MAP -> wrapSequenced(w.wraps(), wrapped);
        };
    }

    private static Object wrapSequenced(Wrapped wraps, Object wrapped) {
        if (!SEQUENCED_TYPES.get(wraps).isInstance(wrapped)) {
            return null;
        }
        try {
            return SEQUENCED.get(wraps).invoke(wrapped);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap a " + wrapped.getClass().getName() + " again", e);
        }
    }

    /**
     * The key type of an {@link EnumMap}. For an empty map no public method tells it, so it is
     * read from the map's serialized form, where the JDK writes it as a class.
     */
    static Class<?> enumMapKeyType(EnumMap<?, ?> map) {
        if (!map.isEmpty()) {
            return map.keySet().iterator().next().getDeclaringClass();
        }
        return SerializedEnumTypes.first(map, "the key type of an empty EnumMap");
    }

    /** The element type of an {@link EnumSet}, also when it is empty. */
    static Class<?> enumSetElementType(EnumSet<?> set) {
        EnumSet<?> probe = set.isEmpty() ? EnumSet.complementOf(asRaw(set)) : set;
        if (probe.isEmpty()) { // an enum with no constants
            return SerializedEnumTypes.first(set, "the element type of an empty EnumSet");
        }
        return ((Enum<?>) probe.iterator().next()).getDeclaringClass();
    }

    /**
     * Its own class so that the serialization classes it uses are loaded only when an empty
     * EnumMap or EnumSet is met, not whenever a program first meets a container.
     */
    private static final class SerializedEnumTypes {
        private SerializedEnumTypes() {
        }

        /**
         * Serializes {@code o} to nowhere and returns the first enum class its stream describes: the
         * JDK writes an EnumMap's key type and an EnumSet's element type as classes, and
         * {@link java.io.ObjectOutputStream#annotateClass} sees each class written.
         */
        static Class<?> first(Object o, String what) {
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
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static EnumSet asRaw(EnumSet<?> set) {
        return set;
    }
}
