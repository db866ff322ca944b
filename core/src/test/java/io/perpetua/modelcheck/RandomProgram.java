package io.perpetua.modelcheck;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.StorageException;

import java.lang.reflect.Array;
import java.time.DayOfWeek;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * A random program checked against a model. The program changes a graph of persistent objects
 * (fields, arrays, lists, deques, sets, maps and records, changed in place or replaced, shared,
 * linked in cycles, made unreachable) and commits, aborts, closes and reopens the store, lets the JVM collect what it
 * does not hold (inside a transaction and between two), preloads, copies the store and collects
 * its garbage, at random; with {@link Faults}, the backend also fails reads and commits at
 * random, and the program goes on from there. Every change is made twice: to the persistent objects, as an
 * application would (through {@link Classes}), and to a plain-Java model of them. After every
 * commit, abort and reopen, and at random points inside a transaction, the graph the store gives
 * back from its names is compared with the model: every value, and which objects, arrays and
 * collections are shared.
 *
 * <p>The program holds no persistent object between operations; it reaches each one from a
 * name, so objects go hollow, get collected and come back in every order. A seed gives one
 * program. A mismatch or an unexpected exception is thrown as an {@link AssertionError} naming
 * the seed and the last operations. No test framework is needed, so the same program runs in
 * a JUnit test and in the main method of a forked JVM started with the real agent.
 *
 * <p>Not thread-safe; one program owns the stores it opens and closes them.
 */
public final class RandomProgram {

    /**
     * The application's three classes and how the program reaches their fields: a node
     * ({@code String name, int value, Node next, List<Node> children, Object any}), a leaf
     * ({@code String label}, set by its constructor only, {@code int weight, Node peer}), a
     * holder ({@code String label, Node[] nodes, int[] numbers, String[] labels, Leaf[] leaves}),
     * a memo ({@code StringBuilder body, int count, Date when}: a leaf too, whose holders the
     * program changes in place, never through a field) and a record ({@code String label, Node
     * node}), which is stored by value.
     */
    public interface Classes {
        Class<?> node();

        Class<?> leaf();

        Class<?> memo();

        Class<?> holder();

        Class<?> record();

        Object newNode(String name, int value);

        Object newLeaf(String label, int weight);

        /** A memo of count 0: its body and its date are its own, for the program to change. */
        Object newMemo(String body, long when);

        /** A holder of leaves only (no nodes, numbers or labels). */
        Object newHolder(String label, Object leaves);

        /** A holder of nodes, numbers and labels (no leaves). */
        Object newHolder(String label, Object nodes, int[] numbers, String[] labels);

        Object newRecord(String label, Object node);

        /**
         * Reads a field (a record's component) the way the application does; a memo's body and
         * date are the holders themselves.
         */
        Object read(Object object, String field);

        /** Writes a field the way the application does. */
        void write(Object object, String field, Object value);

        /**
         * @return a new, empty list of an application class that extends {@code ArrayList}, to
         *         stand for some of the program's array lists; null if there is none (the default)
         */
        default List<Object> newAppList() {
            return null;
        }
    }

    /**
     * A backend that fails when told to, as a disk or a network would: each failure is a
     * {@code StorageException} from the backend, and changes nothing stored.
     */
    public interface Faults {
        /** Opens the store at {@code uri} on a backend whose failures this controls. */
        PersistentStore open(String uri);

        /** Makes the {@code n}-th record read from now on fail, once ({@code n >= 1}). */
        void failRead(int n);

        /** Makes the next commit fail, before it writes anything. */
        void failCommit();

        /**
         * Forgets a failure that did not happen yet.
         *
         * @return true if one had not happened (no read or commit reached the backend since)
         */
        boolean clear();
    }

    private final long seed;
    private final SplittableRandom random;
    private final Classes classes;
    private final Supplier<String> newUri;
    private final String uri;
    private final boolean paranoid;
    private final int logged;
    /** The fields of each class, and those a walk can follow (that can hold an object or a container). */
    private final Map<Class<?>, List<String>> fields;
    private final Map<Class<?>, List<String>> references;
    private final List<String> log = new ArrayList<>();
    /** Makes the backend fail, or null. */
    private final Faults faults;
    private PersistentStore store;
    /** The model's roots by name: as the transaction left them, and as last committed. */
    private Map<String, Object> working = new TreeMap<>();
    private Map<String, Object> committed = new TreeMap<>();
    private int made;

    /**
     * @param newUri    gives the URI of a new, empty store each time it is called (the program's
     *                  own, then one per copy)
     * @param paranoid  compare with the model after every operation, not only at the usual points
     * @param logged    how many of the last operations a failure lists
     */
    public RandomProgram(long seed, Classes classes, Supplier<String> newUri, boolean paranoid, int logged) {
        this(seed, classes, newUri, paranoid, logged, null);
    }

    /**
     * As {@link #RandomProgram(long, Classes, Supplier, boolean, int)}, with a backend that fails
     * reads and commits when the program says.
     *
     * @param faults opens the program's store and makes its backend fail; null for none
     */
    public RandomProgram(long seed, Classes classes, Supplier<String> newUri, boolean paranoid, int logged,
                         Faults faults) {
        this.faults = faults;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.classes = Objects.requireNonNull(classes, "classes");
        this.newUri = Objects.requireNonNull(newUri, "newUri");
        this.uri = newUri.get();
        this.paranoid = paranoid;
        this.logged = logged;
        this.fields = Map.of(
                classes.node(), List.of("any", "children", "name", "next", "value"),
                classes.leaf(), List.of("label", "peer", "weight"),
                classes.holder(), List.of("label", "labels", "leaves", "nodes", "numbers"),
                classes.memo(), List.of("body", "count", "when"));
        this.references = Map.of(
                classes.node(), List.of("any", "children", "next"),
                classes.leaf(), List.of("peer"),
                classes.holder(), List.of("labels", "leaves", "nodes", "numbers"),
                classes.memo(), List.of());
    }

    // ---- the model: plain Java, no persistence ------------------------------------------------

    /** A persistent object in the model: its class and its stored fields by name. */
    private static final class Shadow {
        final Class<?> type;
        final Map<String, Object> fields = new TreeMap<>();

        Shadow(Class<?> type) {
            this.type = type;
        }
    }

    /** An array in the model; an {@code int[]} holds {@code Integer}s. */
    private static final class ShadowArray {
        final Class<?> type;
        final Object[] elements;

        ShadowArray(Class<?> type, int length) {
            this.type = type;
            this.elements = new Object[length];
        }
    }

    /**
     * A list in the model: an {@code ArrayList}, a {@code LinkedList}, an immutable list
     * ({@code List.copyOf}, never changed) or an {@code ArrayDeque} (no nulls; changed at its
     * ends); a node's children hold nodes only, and are never a deque.
     */
    private static final class ShadowList {
        final Class<?> type;
        final boolean nodesOnly;
        final List<Object> elements = new ArrayList<>();

        ShadowList(Class<?> type, boolean nodesOnly) {
            this.type = type;
            this.nodesOnly = nodesOnly;
        }

        boolean immutable() {
            return type == List.class;
        }

        boolean deque() {
            return type == ArrayDeque.class;
        }
    }

    /**
     * A set in the model, its elements in the order they were added: a {@code HashSet} (values and
     * leaves, which the comparison pairs by their unique label), a {@code LinkedHashSet} (values,
     * leaves and nodes, paired by position), a {@code TreeSet} of strings or an {@code EnumSet}.
     * An element is in it by equality if it is a value, by identity otherwise, as in the real set.
     */
    private static final class ShadowSet {
        final Class<?> type;
        final List<Object> elements = new ArrayList<>();

        ShadowSet(Class<?> type) {
            this.type = type;
        }

        boolean ordered() {
            return type == LinkedHashSet.class;
        }
    }

    /** A {@code HashMap} or a {@code TreeMap} with string keys, or an {@code EnumMap}, in the model. */
    private static final class ShadowMap {
        final Class<?> type;
        final Map<Object, Object> entries = new TreeMap<>();

        ShadowMap(Class<?> type) {
            this.type = type;
        }
    }

    /**
     * A record in the model. Records are stored by value, so one has no identity across a reload
     * (two references to one record may come back as two equal records); the node it holds does.
     */
    private record ShadowRecord(Class<?> type, String label, Object node) {
    }

    /** @return true if the model holds {@code shadow} as a value: null, a string, a box, an enum */
    private static boolean isValue(Object shadow) {
        return !(shadow instanceof Shadow || shadow instanceof ShadowArray || shadow instanceof ShadowList
                || shadow instanceof ShadowSet || shadow instanceof ShadowMap || shadow instanceof ShadowRecord);
    }

    /** The same thing seen twice: the persistent object (or value) and its model. */
    private record Pair(Object real, Object shadow) {
        static final Pair NULL = new Pair(null, null);
    }

    // ---- the program ----------------------------------------------------------------------------

    /** Runs {@code operations} random operations, then a last commit and reopen. */
    public void run(int operations) {
        store = open();
        try {
            store.beginTransaction();
            Pair root = newNode(2);
            bind(root, "r0");
            commit();
            for (int i = 0; i < operations; i++) {
                step(i);
                if (paranoid) {
                    compare(working);
                }
            }
            commit();
            reopen();
        } catch (Throwable e) {
            int from = Math.max(0, log.size() - logged);
            throw new AssertionError("seed " + seed + ", after: " + String.join("; ", log.subList(from, log.size()))
                    + ": " + e, e);
        } finally {
            store.close();
        }
    }

    private void step(int i) {
        int r = random.nextInt(100);
        if (r < 62) {
            mutate(walk());
        } else if (r < 67) {
            log.add("bind");
            bind(random.nextInt(3) == 0 ? newAny(2) : walk(), "r" + made++);
        } else if (r < 69 && working.size() > 1) {
            String name = pickName();
            log.add("unbind " + name);
            store.unbind(name);
            working.remove(name);
        } else if (r < 79) {
            commit();
        } else if (r < 84) {
            log.add("abort");
            store.abortTransaction();
            working = copy(committed);
            compare(committed);
            store.beginTransaction();
        } else if (r < 87) {
            if (random.nextBoolean()) {
                commit();
            } else {
                log.add("abort");
                store.abortTransaction();
                working = copy(committed);
            }
            reopen();
        } else if (r < 89) {
            log.add("gc");
            System.gc();
        } else if (r < 90) {
            endByCommit(); // between transactions, nothing is held for a transaction's sake
            log.add("gc between transactions");
            System.gc();
            compare(committed);
            store.beginTransaction();
        } else if (r < 92) {
            endByCommit();
            log.add("collectGarbage");
            // Resident objects are roots: a record the program can no longer reach stays while its
            // object is resident, and goes once the JVM has collected that. On even steps the JVM
            // collects first, so a second collection right after must find nothing more; on odd
            // ones it may collect such an object between the two, and the second deletes its record.
            boolean settled = i % 2 == 0;
            if (settled) {
                System.gc();
            }
            store.collectGarbage();
            long again = store.collectGarbage();
            if (settled) {
                checkEquals(0L, again, "a second collection finds nothing more");
            }
            compare(committed);
            store.beginTransaction();
        } else if (r < 94) {
            String name = pickName();
            log.add("preload " + name);
            store.preload(name);
        } else if (r < 96) {
            poison();
        } else if (r < 97 && faults != null) {
            if (random.nextBoolean()) {
                failRead();
            } else {
                failCommit();
            }
        } else if (r < 98) {
            log.add("check");
            compare(working);
        } else {
            log.add("copyTo");
            String copy = newUri.get();
            store.copyTo(copy);
            try (PersistentStore copied = PersistentStore.open(copy)) {
                compare(copied, committed);
            }
        }
    }

    // ---- operations -------------------------------------------------------------------

    private PersistentStore open() {
        return faults != null ? faults.open(uri) : PersistentStore.open(uri);
    }

    /**
     * A read from the backend fails in the middle of a walk over the graph, a preload, a commit
     * (which reads what it must rewrite and has not read) or a collection of the store's garbage
     * (which reads every reachable record): what was read before stays, what the failed read had
     * begun is undone, nothing stored is lost, and the program goes on.
     */
    private void failRead() {
        int n = 1 + random.nextInt(40);
        int what = random.nextInt(8);
        if (what == 0) {
            endByCommit();
        }
        log.add("fail read " + n + switch (what) {
            case 0 -> " in collectGarbage";
            case 1 -> " in a commit";
            case 2, 3 -> " in a preload";
            default -> " in a walk";
        });
        faults.failRead(n);
        boolean failed = false;
        try {
            switch (what) {
                case 0 -> store.collectGarbage();
                case 1 -> store.commitTransaction();
                case 2, 3 -> store.preload(pickName());
                default -> compare(working);
            }
        } catch (StorageException e) {
            check(e.getMessage().contains("injected"), "the injected failure, not another one: " + e);
            failed = true;
        } finally {
            faults.clear();
        }
        if (what == 0) {
            compare(committed);
            store.collectGarbage();
            compare(committed);
            store.beginTransaction();
        } else if (what == 1 && !failed) {
            committed = copy(working);
            compare(committed);
            store.beginTransaction();
        } else if (what == 1) {
            check(store.inTransaction(), "a failed commit leaves the transaction active");
            compare(working);
            commit();
        } else {
            compare(working);
        }
    }

    /**
     * A commit fails in the backend: nothing is stored, the transaction and its changes stay, and
     * a commit then stores them. A commit with nothing to write does not reach the backend.
     */
    private void failCommit() {
        log.add("fail commit");
        faults.failCommit();
        boolean failed = false;
        try {
            store.commitTransaction();
        } catch (StorageException e) {
            check(e.getMessage().contains("injected"), "the injected failure, not another one: " + e);
            failed = true;
        }
        if (faults.clear()) {
            check(!failed, "a commit failed without reaching the backend");
            committed = copy(working); // it had nothing to write
            compare(committed);
            store.beginTransaction();
            return;
        }
        check(failed, "a commit the backend failed succeeded");
        check(store.inTransaction(), "a failed commit leaves the transaction active");
        compare(working);
        commit();
    }

    private void commit() {
        endByCommit();
        compare(committed);
        store.beginTransaction();
    }

    private void endByCommit() {
        log.add("commit");
        store.commitTransaction();
        committed = copy(working);
    }

    private void reopen() {
        log.add("reopen");
        store.close();
        store = open();
        compare(committed);
        store.beginTransaction();
    }

    private void bind(Pair p, String name) {
        if (isValue(p.shadow) || p.shadow instanceof ShadowRecord) { // a name binds something with an identity
            p = newNode(1);
        }
        store.persist(p.real, name);
        working.put(name, p.shadow);
    }

    /**
     * Puts an object that cannot persist where a commit will reach it: the commit must fail,
     * name the path, and write nothing; the field is then set back and the program goes on.
     */
    private void poison() {
        Pair at = walk();
        if (!(at.shadow instanceof Shadow s) || s.type != classes.node()) {
            return;
        }
        log.add("poison");
        Object before = classes.read(at.real, "any");
        classes.write(at.real, "any", new Thread());
        try {
            store.commitTransaction();
            throw new AssertionError("a commit that reaches a Thread succeeded");
        } catch (NotPersistableException e) {
            check(e.path().endsWith(".any"), e.path());
        }
        check(store.inTransaction(), "a failed commit leaves the transaction active");
        classes.write(at.real, "any", before);
    }

    /** Changes what a walk reached: a field, an element or an entry; a record, immutable, stays as it is. */
    private void mutate(Pair at) {
        if (at.shadow instanceof Shadow s && s.type == classes.memo()) {
            mutateMemo(at.real, s);
        } else if (at.shadow instanceof Shadow s) {
            List<String> fields = this.fields.get(s.type);
            String field = fields.get(random.nextInt(fields.size()));
            if (s.type == classes.leaf() && field.equals("label")) {
                field = "weight"; // set by the constructor only
            }
            Pair value = valueFor(s.type, field);
            log.add("set " + s.type.getSimpleName() + "." + field);
            classes.write(at.real, field, value.real);
            s.fields.put(field, value.shadow);
        } else if (at.shadow instanceof ShadowArray a) {
            if (a.elements.length == 0) {
                return;
            }
            int i = random.nextInt(a.elements.length);
            Pair value = elementFor(a.type);
            log.add("set " + a.type.getSimpleName() + "[" + i + "]");
            Array.set(at.real, i, value.real);
            a.elements[i] = value.shadow;
        } else if (at.shadow instanceof ShadowList l && l.deque()) {
            @SuppressWarnings("unchecked")
            Deque<Object> deque = (Deque<Object>) at.real;
            mutateDeque(deque, l);
        } else if (at.shadow instanceof ShadowList l && !l.immutable()) {
            @SuppressWarnings("unchecked")
            List<Object> list = (List<Object>) at.real;
            int op = random.nextInt(10);
            if (op < 4 || l.elements.isEmpty()) {
                Pair value = l.nodesOnly ? nodeOrNull() : newAny(1);
                int i = random.nextInt(l.elements.size() + 1);
                log.add("list add " + i);
                list.add(i, value.real);
                l.elements.add(i, value.shadow);
            } else if (op < 7) {
                Pair value = l.nodesOnly ? nodeOrNull() : newAny(1);
                int i = random.nextInt(l.elements.size());
                log.add("list set " + i);
                list.set(i, value.real);
                l.elements.set(i, value.shadow);
            } else if (op < 9) {
                int i = random.nextInt(l.elements.size());
                log.add("list remove " + i);
                list.remove(i);
                l.elements.remove(i);
            } else {
                log.add("list clear");
                list.clear();
                l.elements.clear();
            }
        } else if (at.shadow instanceof ShadowSet s) {
            @SuppressWarnings("unchecked")
            Set<Object> set = (Set<Object>) at.real;
            mutateSet(set, s);
        } else if (at.shadow instanceof ShadowMap m) {
            @SuppressWarnings("unchecked")
            Map<Object, Object> map = (Map<Object, Object>) at.real;
            Object key = m.type == EnumMap.class ? day() : "k" + random.nextInt(6);
            if (random.nextInt(4) == 0) {
                log.add("map remove " + key);
                map.remove(key);
                m.entries.remove(key);
            } else {
                Pair value = newAny(1);
                log.add("map put " + key);
                map.put(key, value.real);
                m.entries.put(key, value.shadow);
            }
        }
    }

    /** Changes a memo's holders in place, which no field write tells the store, or its count. */
    private void mutateMemo(Object memo, Shadow s) {
        int op = random.nextInt(3);
        if (op == 0) {
            String more = "+" + random.nextInt(100);
            log.add("memo body append");
            ((StringBuilder) classes.read(memo, "body")).append(more);
            s.fields.put("body", s.fields.get("body") + more);
        } else if (op == 1) {
            long when = random.nextInt(1_000_000) * 1000L;
            log.add("memo when setTime");
            ((Date) classes.read(memo, "when")).setTime(when);
            s.fields.put("when", when);
        } else {
            int count = random.nextInt(1000);
            log.add("set memo.count");
            classes.write(memo, "count", count);
            s.fields.put("count", count);
        }
    }

    private void mutateDeque(Deque<Object> deque, ShadowList l) {
        int op = random.nextInt(10);
        if (op < 5 || l.elements.isEmpty()) {
            Pair value = nonNullAny();
            if (random.nextBoolean()) {
                log.add("deque addFirst");
                deque.addFirst(value.real);
                l.elements.add(0, value.shadow);
            } else {
                log.add("deque addLast");
                deque.addLast(value.real);
                l.elements.add(value.shadow);
            }
        } else if (op < 9) {
            boolean first = random.nextBoolean();
            log.add(first ? "deque pollFirst" : "deque pollLast");
            checkPolled(l.elements.remove(first ? 0 : l.elements.size() - 1), first ? deque.pollFirst() : deque.pollLast());
        } else {
            log.add("deque clear");
            deque.clear();
            l.elements.clear();
        }
    }

    private void mutateSet(Set<Object> set, ShadowSet s) {
        int op = random.nextInt(10);
        if (op < 5 || s.elements.isEmpty()) {
            Pair value = setElement(s.type);
            boolean absent = !s.elements.contains(value.shadow); // by equality for values, identity for shadows
            log.add("set add");
            checkEquals(absent, set.add(value.real), "what add returns");
            if (absent) {
                s.elements.add(value.shadow);
            }
        } else if (op < 9) {
            int i = random.nextInt(s.elements.size());
            log.add("set remove");
            checkEquals(true, set.remove(realElement(set, s, i)), "what remove returns");
            s.elements.remove(i);
        } else {
            log.add("set clear");
            set.clear();
            s.elements.clear();
        }
    }

    /** Checks that what a deque gave back is the element the model gave back, if it is a value. */
    private static void checkPolled(Object shadow, Object real) {
        if (isValue(shadow)) {
            checkEquals(shadow, real, "the element taken from the deque");
        }
    }

    /** A new value for a field: of the field's type, new or reached from a name. */
    private Pair valueFor(Class<?> type, String field) {
        return switch (field) {
            case "value", "weight" -> same(random.nextInt(1000) - 500);
            case "name", "label" -> same("s" + random.nextInt(1_000_000));
            case "next", "peer" -> nodeOrNull();
            case "any" -> newAny(2);
            case "children" -> random.nextInt(6) == 0 ? Pair.NULL : existingOr(ShadowList.class, true, () -> newList(true, 1));
            case "nodes" -> existingOr(nodes(), false, () -> newArray(nodes(), 1));
            case "leaves" -> existingOr(leaves(), false, () -> newArray(leaves(), 1));
            case "numbers" -> existingOr(int[].class, false, () -> newArray(int[].class, 1));
            case "labels" -> existingOr(String[].class, false, () -> newArray(String[].class, 1));
            default -> throw new IllegalArgumentException(type + "." + field);
        };
    }

    private Pair elementFor(Class<?> arrayType) {
        Class<?> component = arrayType.getComponentType();
        if (component == int.class) {
            return same(random.nextInt(100));
        }
        if (component == String.class) {
            return random.nextInt(5) == 0 ? Pair.NULL : same("e" + random.nextInt(1000));
        }
        if (component == classes.node()) {
            return nodeOrNull();
        }
        if (component == classes.leaf()) {
            return random.nextInt(5) == 0 ? Pair.NULL : existingOr(classes.leaf(), false, this::newLeaf);
        }
        return newAny(1);
    }

    private Class<?> nodes() {
        return classes.node().arrayType();
    }

    private Class<?> leaves() {
        return classes.leaf().arrayType();
    }

    private static Pair same(Object value) {
        return new Pair(value, value);
    }

    private Pair nodeOrNull() {
        int r = random.nextInt(10);
        if (r < 2) {
            return Pair.NULL;
        }
        return r < 6 ? newNode(1) : existingOr(classes.node(), false, () -> newNode(1));
    }

    /** Anything an {@code Object} field may hold: values, objects, containers, new or shared. */
    private Pair newAny(int depth) {
        int r = random.nextInt(depth > 0 ? 17 : 5);
        return switch (r) {
            case 0 -> Pair.NULL;
            case 1 -> switch (random.nextInt(4)) {
                case 0 -> same(day());
                case 1 -> same((long) random.nextInt(50) << 40);
                default -> same(random.nextInt(50));
            };
            case 2 -> same("v" + random.nextInt(50));
            case 3 -> random.nextBoolean() ? newMemo() : newLeaf();
            case 4 -> existingOr(classes.node(), false, () -> newNode(0));
            case 5 -> newNode(depth - 1);
            case 6 -> newHolder(depth - 1);
            case 7 -> newArray(int[].class, depth - 1);
            case 8 -> newArray(nodes(), depth - 1);
            case 9 -> newArray(Object[].class, depth - 1);
            case 10 -> newList(false, depth - 1);
            case 11 -> newMap(depth - 1);
            case 12 -> newSet();
            case 13 -> newDeque(depth - 1);
            case 14 -> newRecord();
            default -> switch (random.nextInt(3)) {
                case 0 -> existingOr(ShadowList.class, false, () -> newList(false, depth - 1));
                case 1 -> existingOr(ShadowSet.class, false, this::newSet);
                default -> existingOr(Object[].class, false, () -> newArray(Object[].class, depth - 1));
            };
        };
    }

    private Pair newRecord() {
        Pair node = nodeOrNull();
        String label = "g" + random.nextInt(100);
        return new Pair(classes.newRecord(label, node.real), new ShadowRecord(classes.record(), label, node.shadow));
    }

    private Pair nonNullAny() {
        for (;;) {
            Pair p = newAny(1);
            if (p.real != null) {
                return p;
            }
        }
    }

    private DayOfWeek day() {
        return DayOfWeek.of(1 + random.nextInt(7));
    }

    private Pair newNode(int depth) {
        String name = "n" + made++;
        int value = random.nextInt(1000);
        Object n = classes.newNode(name, value);
        Shadow s = new Shadow(classes.node());
        s.fields.put("any", null);
        s.fields.put("children", null);
        s.fields.put("name", name);
        s.fields.put("next", null);
        s.fields.put("value", value);
        Pair p = new Pair(n, s);
        if (depth > 0) {
            Pair any = newAny(depth - 1);
            classes.write(n, "any", any.real);
            s.fields.put("any", any.shadow);
            if (random.nextBoolean()) {
                Pair kids = newList(true, depth - 1);
                classes.write(n, "children", kids.real);
                s.fields.put("children", kids.shadow);
            }
        }
        return p;
    }

    private Pair newLeaf() {
        String label = "l" + made++;
        int weight = random.nextInt(100);
        Shadow s = new Shadow(classes.leaf());
        s.fields.put("label", label);
        s.fields.put("peer", null);
        s.fields.put("weight", weight);
        return new Pair(classes.newLeaf(label, weight), s);
    }

    private Pair newMemo() {
        String body = "m" + made++;
        long when = random.nextInt(1_000_000) * 1000L;
        Shadow s = new Shadow(classes.memo());
        s.fields.put("body", body);
        s.fields.put("count", 0);
        s.fields.put("when", when);
        return new Pair(classes.newMemo(body, when), s);
    }

    private Pair newHolder(int depth) {
        String label = "h" + made++;
        Shadow s = new Shadow(classes.holder());
        s.fields.put("label", label);
        for (String f : List.of("labels", "leaves", "nodes", "numbers")) {
            s.fields.put(f, null);
        }
        if (random.nextBoolean()) {
            Pair leaves = newArray(leaves(), depth);
            s.fields.put("leaves", leaves.shadow);
            return new Pair(classes.newHolder(label, leaves.real), s);
        }
        Pair nodes = newArray(nodes(), depth);
        Pair numbers = newArray(int[].class, depth);
        Pair labels = random.nextBoolean() ? newArray(String[].class, depth) : Pair.NULL;
        s.fields.put("nodes", nodes.shadow);
        s.fields.put("numbers", numbers.shadow);
        s.fields.put("labels", labels.shadow);
        return new Pair(classes.newHolder(label, nodes.real, (int[]) numbers.real, (String[]) labels.real), s);
    }

    private Pair newArray(Class<?> type, int depth) {
        int length = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(random.nextInt(10) == 0 ? 40 : 5);
        Object real = Array.newInstance(type.getComponentType(), length);
        ShadowArray s = new ShadowArray(type, length);
        for (int i = 0; i < length; i++) {
            Pair e = type == Object[].class ? newAny(Math.max(0, depth - 1))
                    : type == nodes() && depth <= 0 ? existingOr(classes.node(), false, () -> Pair.NULL)
                    : elementFor(type);
            Array.set(real, i, e.real);
            s.elements[i] = e.shadow;
        }
        return new Pair(real, s);
    }

    private Pair newList(boolean nodesOnly, int depth) {
        int kind = random.nextInt(10);
        List<Object> app = kind == 5 ? classes.newAppList() : null; // draws nothing: the same sequence either way
        List<Object> real = app != null ? app : kind < 6 ? new ArrayList<>() : new LinkedList<>();
        List<Object> shadows = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            Pair e = nodesOnly ? (depth > 0 ? nodeOrNull() : existingOr(classes.node(), false, () -> Pair.NULL))
                    : newAny(Math.max(0, depth - 1));
            real.add(e.real);
            shadows.add(e.shadow);
        }
        // List.copyOf takes no null, and gives the JVM's one empty list for every empty one
        boolean immutable = kind >= 8 && !real.isEmpty() && !real.contains(null);
        ShadowList s = new ShadowList(immutable ? List.class : real.getClass(), nodesOnly);
        s.elements.addAll(shadows);
        return new Pair(immutable ? List.copyOf(real) : real, s);
    }

    @SuppressWarnings("unchecked")
    private Pair newMap(int depth) {
        int kind = random.nextInt(6);
        Map<Object, Object> real = kind < 3 ? new HashMap<>() : kind < 5 ? new TreeMap<>()
                : (Map<Object, Object>) (Map<?, ?>) new EnumMap<DayOfWeek, Object>(DayOfWeek.class);
        ShadowMap s = new ShadowMap(kind < 3 ? HashMap.class : kind < 5 ? TreeMap.class : EnumMap.class);
        for (int i = random.nextInt(4); i > 0; i--) {
            Pair e = newAny(Math.max(0, depth - 1));
            Object key = s.type == EnumMap.class ? DayOfWeek.of(i) : "k" + i;
            real.put(key, e.real);
            s.entries.put(key, e.shadow);
        }
        return new Pair(real, s);
    }

    @SuppressWarnings("unchecked")
    private Pair newSet() {
        int kind = random.nextInt(8);
        ShadowSet s = new ShadowSet(kind < 3 ? HashSet.class : kind < 5 ? LinkedHashSet.class
                : kind < 7 ? TreeSet.class : EnumSet.class);
        Set<Object> real = s.type == HashSet.class ? new HashSet<>() : s.type == LinkedHashSet.class
                ? new LinkedHashSet<>() : s.type == TreeSet.class ? new TreeSet<>()
                : (Set<Object>) (Set<?>) EnumSet.noneOf(DayOfWeek.class);
        for (int i = random.nextInt(4); i > 0; i--) {
            Pair e = setElement(s.type);
            if (!s.elements.contains(e.shadow)) {
                real.add(e.real);
                s.elements.add(e.shadow);
            }
        }
        return new Pair(real, s);
    }

    /** An element for a set of this class: what the set can hold and the comparison can pair. */
    private Pair setElement(Class<?> type) {
        if (type == TreeSet.class) {
            return same("t" + random.nextInt(20));
        }
        if (type == EnumSet.class) {
            return same(day());
        }
        int r = random.nextInt(10);
        if (r == 0) {
            return Pair.NULL;
        }
        if (r < 4) {
            return random.nextBoolean() ? same("v" + random.nextInt(20)) : same(random.nextInt(20));
        }
        if (r < 8 || type == HashSet.class) {
            return existingOr(classes.leaf(), false, this::newLeaf);
        }
        return nodeOrNull();
    }

    private Pair newDeque(int depth) {
        Deque<Object> real = new ArrayDeque<>();
        ShadowList s = new ShadowList(ArrayDeque.class, false);
        for (int i = random.nextInt(4); i > 0; i--) {
            Pair e = newAny(Math.max(0, depth - 1));
            if (e.real != null) {
                real.add(e.real);
                s.elements.add(e.shadow);
            }
        }
        return new Pair(real, s);
    }

    /**
     * @return the element of a real set that is the model's {@code i}th: by position in an
     *         ordered set; otherwise a value is itself, and a leaf is found by its label
     */
    private Object realElement(Set<?> set, ShadowSet s, int i) {
        if (s.ordered()) {
            Iterator<?> it = set.iterator();
            for (int k = 0; k < i; k++) {
                it.next();
            }
            return it.next();
        }
        Object shadow = s.elements.get(i);
        if (isValue(shadow)) {
            return shadow;
        }
        Object label = ((Shadow) shadow).fields.get("label");
        for (Object e : set) {
            if (classes.leaf().isInstance(e) && label.equals(classes.read(e, "label"))) {
                return e;
            }
        }
        throw new AssertionError("no leaf labelled " + label + " in the " + describe(set));
    }

    /** @return the model's element a real element of an unordered set stands for, or null if none */
    private Object shadowElement(ShadowSet s, Object real) {
        if (real != null && classes.leaf().isInstance(real)) {
            Object label = classes.read(real, "label");
            for (Object e : s.elements) {
                if (e instanceof Shadow leaf && leaf.type == classes.leaf() && label.equals(leaf.fields.get("label"))) {
                    return e;
                }
            }
            return null;
        }
        int at = s.elements.indexOf(real);
        return at >= 0 && isValue(s.elements.get(at)) ? s.elements.get(at) : null;
    }

    // ---- reaching objects from the names ---------------------------------------------

    private String pickName() {
        List<String> names = new ArrayList<>(working.keySet());
        return names.get(random.nextInt(names.size()));
    }

    /** A walk from a random name, a few steps through what the objects hold. */
    private Pair walk() {
        return walkFrom(pickName(), null);
    }

    /**
     * Something of a kind (a class, an array class, or {@code ShadowList}) found on a random
     * walk, to share; otherwise a new one.
     */
    private Pair existingOr(Class<?> kind, boolean nodesOnly, java.util.function.Supplier<Pair> otherwise) {
        if (!working.isEmpty() && random.nextBoolean()) {
            List<Pair> seen = new ArrayList<>();
            walkFrom(pickName(), seen);
            for (int i = seen.size() - 1; i >= 0; i--) {
                Pair p = seen.get(i);
                if (p.shadow instanceof Shadow s && s.type == kind
                        || p.shadow instanceof ShadowArray a && a.type == kind
                        || p.shadow instanceof ShadowList l && kind == ShadowList.class && (l.nodesOnly || !nodesOnly)
                        || p.shadow instanceof ShadowSet && kind == ShadowSet.class) {
                    return p;
                }
            }
        }
        return otherwise.get();
    }

    private Pair walkFrom(String name, List<Pair> seen) {
        Object real = store.fetch(name);
        Pair at = new Pair(real, working.get(name));
        for (int steps = random.nextInt(7); ; steps--) {
            checkKind(at);
            if (seen != null) {
                seen.add(at);
            }
            if (steps == 0) {
                return at;
            }
            Pair next = step(at);
            if (next == null || isValue(next.shadow)) {
                return at;
            }
            at = next;
        }
    }

    private Pair step(Pair at) {
        if (at.shadow instanceof Shadow s) {
            List<String> refs = references.get(s.type);
            if (refs.isEmpty()) {
                return null;
            }
            String f = refs.get(random.nextInt(refs.size()));
            return new Pair(classes.read(at.real, f), s.fields.get(f));
        }
        if (at.shadow instanceof ShadowArray a) {
            if (a.elements.length == 0 || a.type == int[].class || a.type == String[].class) {
                return null;
            }
            int i = random.nextInt(a.elements.length);
            return new Pair(Array.get(at.real, i), a.elements[i]);
        }
        if (at.shadow instanceof ShadowList l) {
            if (l.elements.isEmpty()) {
                return null;
            }
            int i = random.nextInt(l.elements.size());
            return new Pair(asList(at.real).get(i), l.elements.get(i));
        }
        if (at.shadow instanceof ShadowRecord r) {
            return new Pair(classes.read(at.real, "node"), r.node());
        }
        if (at.shadow instanceof ShadowSet s) {
            if (s.elements.isEmpty()) {
                return null;
            }
            int i = random.nextInt(s.elements.size());
            return new Pair(realElement((Set<?>) at.real, s, i), s.elements.get(i));
        }
        ShadowMap m = (ShadowMap) at.shadow;
        if (m.entries.isEmpty()) {
            return null;
        }
        List<Object> keys = new ArrayList<>(m.entries.keySet());
        Object key = keys.get(random.nextInt(keys.size()));
        return new Pair(((Map<?, ?>) at.real).get(key), m.entries.get(key));
    }

    /** What a walk reaches is of the model's kind (the full comparison is {@link #compare}). */
    private static void checkKind(Pair at) {
        Object s = at.shadow;
        Class<?> expected = s instanceof Shadow o ? o.type : s instanceof ShadowArray a ? a.type
                : s instanceof ShadowList l ? l.type : s instanceof ShadowSet set ? set.type
                : s instanceof ShadowRecord r ? r.type() : ((ShadowMap) s).type;
        if (!expected.isInstance(at.real)) {
            throw new AssertionError("reached " + describe(at.real) + " where the model has a " + expected.getSimpleName());
        }
        Class<?> c = at.real.getClass();
        if (s instanceof ShadowList l && l.immutable()) {
            if (!c.getName().startsWith("java.util.ImmutableCollections$")) {
                throw new AssertionError("reached a " + c.getName() + " where the model has an immutable list");
            }
        } else if ((s instanceof ShadowList || s instanceof ShadowSet || s instanceof ShadowMap) && expected != EnumSet.class
                && c != expected && !(c.getSuperclass() == expected && c.getName().startsWith("io.perpetua."))) {
            // the kernel may give back its tracked subclass of the JDK class, and nothing else
            throw new AssertionError("reached a " + c.getName() + " where the model has a " + expected.getName());
        }
    }

    /** @return a list or a deque's elements in order */
    private static List<?> asList(Object listOrDeque) {
        return listOrDeque instanceof List<?> l ? l : new ArrayList<>((Collection<?>) listOrDeque);
    }

    // ---- the comparison -------------------------------------------------------------------

    /**
     * Compares what the store's names reach with the model: the same names, the same values,
     * and one persistent object, array or collection for each one of the model's (so what is
     * shared in the model is shared in the store, and nothing else is).
     */
    private void compare(Map<String, Object> model) {
        compare(store, model);
    }

    private void compare(PersistentStore store, Map<String, Object> model) {
        checkEquals(new TreeSet<>(model.keySet()), new TreeSet<>(store.names()), "the bound names");
        Map<Object, Object> realToShadow = new IdentityHashMap<>();
        Map<Object, Object> shadowToReal = new IdentityHashMap<>();
        Deque<Object[]> work = new ArrayDeque<>();
        for (Map.Entry<String, Object> e : model.entrySet()) {
            work.push(new Object[] {store.fetch(e.getKey()), e.getValue(), "\"" + e.getKey() + "\""});
        }
        while (!work.isEmpty()) {
            Object[] item = work.pop();
            Object real = item[0];
            Object shadow = item[1];
            String path = (String) item[2];
            if (isValue(shadow)) {
                checkEquals(shadow, real, path);
                continue;
            }
            if (real == null) {
                throw new AssertionError(path + ": null where the model has " + describeShadow(shadow));
            }
            if (shadow instanceof ShadowRecord r) { // a value: no identity to match
                checkKind(new Pair(real, shadow));
                checkEquals(r.label(), classes.read(real, "label"), path + ".label");
                work.push(new Object[] {classes.read(real, "node"), r.node(), path + ".node"});
                continue;
            }
            Object mappedShadow = realToShadow.get(real);
            Object mappedReal = shadowToReal.get(shadow);
            if (mappedShadow != null || mappedReal != null) {
                if (mappedShadow != shadow || mappedReal != real) {
                    throw new AssertionError(path + ": " + describe(real) + " is shared differently from the model");
                }
                continue;
            }
            realToShadow.put(real, shadow);
            shadowToReal.put(shadow, real);
            checkKind(new Pair(real, shadow));
            if (shadow instanceof Shadow s) {
                for (Map.Entry<String, Object> f : s.fields.entrySet()) {
                    work.push(new Object[] {fieldValue(real, s, f.getKey()), f.getValue(), path + "." + f.getKey()});
                }
            } else if (shadow instanceof ShadowArray a) {
                checkEquals(a.elements.length, Array.getLength(real), path + ".length");
                for (int i = 0; i < a.elements.length; i++) {
                    work.push(new Object[] {Array.get(real, i), a.elements[i], path + "[" + i + "]"});
                }
            } else if (shadow instanceof ShadowList l) {
                List<?> list = asList(real);
                checkEquals(l.elements.size(), list.size(), path + ".size()");
                for (int i = 0; i < l.elements.size(); i++) {
                    work.push(new Object[] {list.get(i), l.elements.get(i), path + "[" + i + "]"});
                }
            } else if (shadow instanceof ShadowSet s) {
                compareSet((Set<?>) real, s, path, work);
            } else {
                Map<?, ?> map = (Map<?, ?>) real;
                ShadowMap m = (ShadowMap) shadow;
                checkEquals(m.entries.keySet(), new TreeSet<>(map.keySet()), path + ".keySet()");
                for (Map.Entry<Object, Object> e : m.entries.entrySet()) {
                    work.push(new Object[] {map.get(e.getKey()), e.getValue(), path + "[" + e.getKey() + "]"});
                }
            }
        }
    }

    /** A field's value as the model holds it: a memo's body as a string, its date in milliseconds. */
    private Object fieldValue(Object real, Shadow s, String field) {
        Object value = classes.read(real, field);
        if (s.type == classes.memo() && value instanceof StringBuilder b) {
            return b.toString();
        }
        return s.type == classes.memo() && value instanceof Date d ? (Object) d.getTime() : value;
    }

    /**
     * A set: the same size, each real element found by the set's own {@code contains} (its hash or
     * its order still holds after a reload), and paired with the model's element, by position in
     * an ordered set, by equality or label otherwise.
     */
    private void compareSet(Set<?> set, ShadowSet s, String path, Deque<Object[]> work) {
        checkEquals(s.elements.size(), set.size(), path + ".size()");
        int i = 0;
        for (Object e : set) {
            check(set.contains(e), path + ": contains(" + describe(e) + ") is false for one of its elements");
            Object shadow = s.ordered() ? s.elements.get(i) : shadowElement(s, e);
            if (shadow == null && (e != null || !s.elements.contains(null))) {
                throw new AssertionError(path + ": holds " + describe(e) + " " + e + ", which the model does not");
            }
            work.push(new Object[] {e, shadow, path + "{" + i++ + "}"});
        }
    }

    private static String describe(Object real) {
        if (real == null) {
            return "null";
        }
        if (real.getClass().isArray()) {
            return real.getClass().getSimpleName() + " of " + Array.getLength(real);
        }
        return real.getClass().getSimpleName();
    }

    private static String describeShadow(Object shadow) {
        return shadow instanceof Shadow s ? s.type.getSimpleName()
                : shadow instanceof ShadowArray a ? a.type.getSimpleName() + " of " + a.elements.length
                : shadow.getClass().getSimpleName();
    }

    /** A deep copy of the model, sharing kept: what a commit leaves, or what an abort returns to. */
    private static Map<String, Object> copy(Map<String, Object> roots) {
        Map<Object, Object> copies = new IdentityHashMap<>();
        Map<String, Object> result = new TreeMap<>();
        roots.forEach((name, shadow) -> result.put(name, copyOf(shadow, copies)));
        return result;
    }

    private static Object copyOf(Object shadow, Map<Object, Object> copies) {
        if (isValue(shadow)) {
            return shadow;
        }
        Object done = copies.get(shadow);
        if (done != null) {
            return done;
        }
        if (shadow instanceof Shadow s) {
            Shadow c = new Shadow(s.type);
            copies.put(shadow, c);
            s.fields.forEach((f, v) -> c.fields.put(f, copyOf(v, copies)));
            return c;
        }
        if (shadow instanceof ShadowArray a) {
            ShadowArray c = new ShadowArray(a.type, a.elements.length);
            copies.put(shadow, c);
            for (int i = 0; i < a.elements.length; i++) {
                c.elements[i] = copyOf(a.elements[i], copies);
            }
            return c;
        }
        if (shadow instanceof ShadowList l) {
            ShadowList c = new ShadowList(l.type, l.nodesOnly);
            copies.put(shadow, c);
            for (Object e : l.elements) {
                c.elements.add(copyOf(e, copies));
            }
            return c;
        }
        if (shadow instanceof ShadowRecord r) {
            return new ShadowRecord(r.type(), r.label(), copyOf(r.node(), copies));
        }
        if (shadow instanceof ShadowSet s) {
            ShadowSet c = new ShadowSet(s.type);
            copies.put(shadow, c);
            for (Object e : s.elements) {
                c.elements.add(copyOf(e, copies));
            }
            return c;
        }
        ShadowMap m = (ShadowMap) shadow;
        ShadowMap c = new ShadowMap(m.type);
        copies.put(shadow, c);
        m.entries.forEach((k, v) -> c.entries.put(k, copyOf(v, copies)));
        return c;
    }

    // ---- checks that need no test framework ---------------------------------------------------

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static void checkEquals(Object expected, Object actual, String message) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError(message + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }
}
