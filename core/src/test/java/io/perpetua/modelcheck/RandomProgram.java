package io.perpetua.modelcheck;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;

import java.lang.reflect.Array;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * A random program checked against a model. The program changes a graph of persistent objects
 * (fields, arrays, lists and maps, changed in place or replaced, shared, linked in cycles, made
 * unreachable) and commits, aborts, closes and reopens the store, lets the JVM collect what it
 * does not hold (inside a transaction and between two), preloads, copies the store and collects
 * its garbage, at random. Every change is made twice: to the persistent objects, as an
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
     * ({@code String label}, set by its constructor only, {@code int weight, Node peer}) and a
     * holder ({@code String label, Node[] nodes, int[] numbers, String[] labels, Leaf[] leaves}).
     */
    public interface Classes {
        Class<?> node();

        Class<?> leaf();

        Class<?> holder();

        Object newNode(String name, int value);

        Object newLeaf(String label, int weight);

        /** A holder of leaves only (no nodes, numbers or labels). */
        Object newHolder(String label, Object leaves);

        /** A holder of nodes, numbers and labels (no leaves). */
        Object newHolder(String label, Object nodes, int[] numbers, String[] labels);

        /** Reads a field the way the application does. */
        Object read(Object object, String field);

        /** Writes a field the way the application does. */
        void write(Object object, String field, Object value);
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
                classes.holder(), List.of("label", "labels", "leaves", "nodes", "numbers"));
        this.references = Map.of(
                classes.node(), List.of("any", "children", "next"),
                classes.leaf(), List.of("peer"),
                classes.holder(), List.of("labels", "leaves", "nodes", "numbers"));
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
     * A list in the model: an {@code ArrayList}, a {@code LinkedList} or an immutable list
     * ({@code List.copyOf}, never changed); a node's children hold nodes only.
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
    }

    /** A {@code HashMap} or a {@code TreeMap} with string keys in the model. */
    private static final class ShadowMap {
        final boolean sorted;
        final Map<String, Object> entries = new TreeMap<>();

        ShadowMap(boolean sorted) {
            this.sorted = sorted;
        }
    }

    /** @return true if the model holds {@code shadow} as a value: null, a string, a box, an enum */
    private static boolean isValue(Object shadow) {
        return !(shadow instanceof Shadow || shadow instanceof ShadowArray || shadow instanceof ShadowList
                || shadow instanceof ShadowMap);
    }

    /** The same thing seen twice: the persistent object (or value) and its model. */
    private record Pair(Object real, Object shadow) {
        static final Pair NULL = new Pair(null, null);
    }

    // ---- the program ----------------------------------------------------------------------------

    /** Runs {@code operations} random operations, then a last commit and reopen. */
    public void run(int operations) {
        store = PersistentStore.open(uri);
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
            store.collectGarbage();
            checkEquals(0L, store.collectGarbage(), "a second collection finds nothing more");
            compare(committed);
            store.beginTransaction();
        } else if (r < 94) {
            String name = pickName();
            log.add("preload " + name);
            store.preload(name);
        } else if (r < 96) {
            poison();
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
        store = PersistentStore.open(uri);
        compare(committed);
        store.beginTransaction();
    }

    private void bind(Pair p, String name) {
        if (isValue(p.shadow)) {
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

    private void mutate(Pair at) {
        if (at.shadow instanceof Shadow s) {
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
        } else if (at.shadow instanceof ShadowMap m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) at.real;
            String key = "k" + random.nextInt(6);
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
        int r = random.nextInt(depth > 0 ? 14 : 5);
        return switch (r) {
            case 0 -> Pair.NULL;
            case 1 -> switch (random.nextInt(4)) {
                case 0 -> same(java.time.DayOfWeek.of(1 + random.nextInt(7)));
                case 1 -> same((long) random.nextInt(50) << 40);
                default -> same(random.nextInt(50));
            };
            case 2 -> same("v" + random.nextInt(50));
            case 3 -> newLeaf();
            case 4 -> existingOr(classes.node(), false, () -> newNode(0));
            case 5 -> newNode(depth - 1);
            case 6 -> newHolder(depth - 1);
            case 7 -> newArray(int[].class, depth - 1);
            case 8 -> newArray(nodes(), depth - 1);
            case 9 -> newArray(Object[].class, depth - 1);
            case 10 -> newList(false, depth - 1);
            case 11 -> newMap(depth - 1);
            default -> existingOr(random.nextBoolean() ? ShadowList.class : Object[].class, false,
                    () -> newList(false, depth - 1));
        };
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
        List<Object> real = kind < 6 ? new ArrayList<>() : new LinkedList<>();
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

    private Pair newMap(int depth) {
        boolean sorted = random.nextInt(3) == 0;
        Map<String, Object> real = sorted ? new TreeMap<>() : new HashMap<>();
        ShadowMap s = new ShadowMap(sorted);
        for (int i = random.nextInt(4); i > 0; i--) {
            Pair e = newAny(Math.max(0, depth - 1));
            real.put("k" + i, e.real);
            s.entries.put("k" + i, e.shadow);
        }
        return new Pair(real, s);
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
                        || p.shadow instanceof ShadowList l && kind == ShadowList.class && (l.nodesOnly || !nodesOnly)) {
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
            return new Pair(((List<?>) at.real).get(i), l.elements.get(i));
        }
        ShadowMap m = (ShadowMap) at.shadow;
        if (m.entries.isEmpty()) {
            return null;
        }
        List<String> keys = new ArrayList<>(m.entries.keySet());
        String key = keys.get(random.nextInt(keys.size()));
        return new Pair(((Map<?, ?>) at.real).get(key), m.entries.get(key));
    }

    /** What a walk reaches is of the model's kind (the full comparison is {@link #compare}). */
    private static void checkKind(Pair at) {
        Object s = at.shadow;
        Class<?> expected = s instanceof Shadow o ? o.type : s instanceof ShadowArray a ? a.type
                : s instanceof ShadowList l ? l.type : ((ShadowMap) s).sorted ? TreeMap.class : HashMap.class;
        if (!expected.isInstance(at.real)) {
            throw new AssertionError("reached " + describe(at.real) + " where the model has a " + expected.getSimpleName());
        }
        if (s instanceof ShadowList l && l.immutable() && !at.real.getClass().getName().startsWith("java.util.ImmutableCollections$")) {
            throw new AssertionError("reached a " + at.real.getClass().getName() + " where the model has an immutable list");
        }
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
                    work.push(new Object[] {classes.read(real, f.getKey()), f.getValue(), path + "." + f.getKey()});
                }
            } else if (shadow instanceof ShadowArray a) {
                checkEquals(a.elements.length, Array.getLength(real), path + ".length");
                for (int i = 0; i < a.elements.length; i++) {
                    work.push(new Object[] {Array.get(real, i), a.elements[i], path + "[" + i + "]"});
                }
            } else if (shadow instanceof ShadowList l) {
                List<?> list = (List<?>) real;
                checkEquals(l.elements.size(), list.size(), path + ".size()");
                for (int i = 0; i < l.elements.size(); i++) {
                    work.push(new Object[] {list.get(i), l.elements.get(i), path + "[" + i + "]"});
                }
            } else {
                Map<?, ?> map = (Map<?, ?>) real;
                ShadowMap m = (ShadowMap) shadow;
                checkEquals(m.entries.keySet(), new TreeSet<>(map.keySet().stream().map(String.class::cast).toList()),
                        path + ".keySet()");
                for (Map.Entry<String, Object> e : m.entries.entrySet()) {
                    work.push(new Object[] {map.get(e.getKey()), e.getValue(), path + "[" + e.getKey() + "]"});
                }
            }
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
        ShadowMap m = (ShadowMap) shadow;
        ShadowMap c = new ShadowMap(m.sorted);
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
