package io.perpetua.agent.transform;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.agent.TooBig;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.MethodTooLargeException;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Class shapes that need special handling: JDK super-classes, class file versions, size limits. */
class ClassShapesTest {

    @Test
    void jdkSuperClassesWithStateAreRefusedWithTheReasonStatelessOnesAreHandled() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        List<String> refused = List.of("corpus.refused.Worker", "corpus.refused.Deadline", "corpus.refused.Jobs",
                "corpus.refused.Hits");
        for (String name : refused) {
            assertFalse(Persistent.class.isAssignableFrom(loader.load(name)), name);
        }
        loader.load("corpus.refused.Fixed");
        String events = String.join("\n", loader.events.skipped) + "\n" + String.join("\n", loader.events.rewritten);
        assertTrue(events.contains("corpus.refused.Worker: extends java.lang.Thread"), events);
        // state in transient fields that the JDK class serializes itself: Java serialization keeps it, so must a store
        assertTrue(events.contains("corpus.refused.Deadline: extends java.util.Date, which is not rewritten (JDK class)"
                + " and has state the generated codec cannot store (field transient java.util.Date.fastTime, which"
                + " java.util.Date.writeObject saves)"), events);
        assertTrue(events.contains("corpus.refused.Jobs: extends java.util.concurrent.ConcurrentLinkedQueue"), events);
        assertTrue(events.contains("(field transient java.util.concurrent.atomic.Striped64.cells, which"
                + " java.util.concurrent.atomic.LongAdder.writeReplace saves)"), events);
        assertEquals(List.of(), loader.events.failed);

        Class<?> fixed = loader.load("corpus.refused.Fixed");
        assertTrue(Persistent.class.isAssignableFrom(fixed));
        Object list = Reflect.make(fixed, (Object) new String[] {"a", "b"});
        MiniStore store = new MiniStore();
        Object hollow = store.fetch(store.save(list));
        assertEquals(List.of("a", "b"), hollow);
        assertEquals("", loader.verifyAll());
    }

    /**
     * A class extending a JDK collection stores its contents with its own fields, and each
     * method it inherits checks residency: a hollow one fills when any of them is called, and one
     * that may change it marks it dirty. A subclass of it is persistent-capable below it.
     */
    @Test
    void aClassExtendingAJdkCollectionStoresItsContentsAndChecksItsInheritedMethods() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        Class<?> myList = loader.load("corpus.refused.MyList");
        Class<?> subList = loader.load("corpus.refused.SubList");
        assertTrue(Persistent.class.isAssignableFrom(myList));
        assertTrue(Persistent.class.isAssignableFrom(subList));
        String events = String.join("\n", loader.events.rewritten);
        assertTrue(events.contains("corpus.refused.MyList: persistent-capable, top-most"), events);
        assertTrue(events.contains("corpus.refused.SubList: persistent-capable, below corpus.refused.MyList"), events);

        @SuppressWarnings("unchecked")
        List<String> original = (List<String>) Reflect.make(subList);
        original.add("a");
        original.add("b");
        MiniStore store = new MiniStore();
        long id = store.save(original);
        @SuppressWarnings("unchecked")
        List<String> hollow = (List<String>) store.fetch(id);
        assertEquals(ObjectState.HOLLOW, ((Persistent) hollow).$perpetua$state());
        assertEquals(2, hollow.size()); // an inherited method: the read check fills it
        assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state());
        assertEquals(List.of("a", "b"), hollow);
        assertEquals(3, Reflect.call(hollow, "extra"), "its own field, stored with the contents");
        assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state(), "reads mark nothing");
        hollow.add("c"); // an inherited mutator: the write check
        assertEquals(ObjectState.DIRTY, ((Persistent) hollow).$perpetua$state());

        MiniStore another = new MiniStore();
        @SuppressWarnings("unchecked")
        List<String> again = (List<String>) another.fetch(another.save(original));
        java.util.Iterator<String> it = again.iterator(); // wrapped: reading through it marks nothing
        assertEquals("a", it.next());
        assertEquals("[a, b]", again.toString());
        assertEquals(ObjectState.CLEAN, ((Persistent) again).$perpetua$state());
        it.remove(); // a change through it does
        assertEquals(ObjectState.DIRTY, ((Persistent) again).$perpetua$state());
        assertEquals(List.of("b"), again);
        assertEquals("", loader.verifyAll());
    }

    /**
     * Each JDK collection and map the agent supports as a super-class, on the JDK this test
     * runs on (its methods decide the overrides): the class rewrites and verifies, and a hollow
     * copy of a filled instance shows the same contents and field once touched.
     */
    @Test
    void everySupportedJdkCollectionAndMapRoundTrips() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        @SuppressWarnings("unchecked")
        List<Object> all = (List<Object>) Reflect.call(loader.load("corpus.inherited.Extending"), "all");
        assertEquals(InheritedContainer.supported().size(), all.size(), "one of each");
        for (Object original : all) {
            String name = original.getClass().getName();
            assertTrue(Persistent.class.isAssignableFrom(original.getClass()), name);
            MiniStore store = new MiniStore();
            Object hollow = store.fetch(store.save(original));
            assertEquals(ObjectState.HOLLOW, ((Persistent) hollow).$perpetua$state(), name);
            assertEquals(original.toString().length(), hollow.toString().length(), name); // PriorityQueue: heap order
            if (!(original instanceof java.util.Queue)) {
                assertEquals(original, hollow, name);
            }
            if (hollow instanceof java.util.Map<?, ?> m) {
                if (!(m instanceof java.util.concurrent.ConcurrentHashMap)) { // its keySet() is a KeySetView: not wrapped
                    m.keySet().forEach(k -> { });
                }
                m.values().forEach(v -> { });
                m.entrySet().iterator().next().getValue();
            }
            if (hollow instanceof java.util.NavigableMap<?, ?> m) {
                @SuppressWarnings("unchecked")
                java.util.NavigableMap<Object, Object> sorted = (java.util.NavigableMap<Object, Object>) m;
                sorted.navigableKeySet().higher(sorted.firstKey());
                sorted.keySet().iterator().next();
                sorted.descendingKeySet().first();
                sorted.descendingMap().firstKey();
                sorted.headMap(sorted.lastKey(), true).entrySet().iterator().next();
                sorted.tailMap(sorted.firstKey()).size();
                sorted.subMap(sorted.firstKey(), sorted.lastKey()).values().forEach(v -> { });
            }
            if (hollow instanceof java.util.NavigableSet<?> ns) {
                @SuppressWarnings("unchecked")
                java.util.NavigableSet<Object> sorted = (java.util.NavigableSet<Object>) ns;
                sorted.descendingSet().iterator().next();
                sorted.descendingIterator().next();
                sorted.headSet(sorted.last(), true).iterator().next();
                sorted.tailSet(sorted.first()).size();
                sorted.subSet(sorted.first(), sorted.last()).forEach(e -> { });
            }
            if (hollow instanceof List<?> l) {
                l.subList(0, l.size()).get(0);
                l.subList(0, 1).listIterator().next();
            }
            assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state(), name + ": reads mark nothing");
        }
        assertEquals(List.of(), loader.events.failed);
        assertEquals("", loader.verifyAll());
    }

    /**
     * A range or descending view of a sorted set or map, or a sub-list, taken before a commit
     * and changed through after it, marks the object dirty: until session 42 asking for the
     * view marked it (for that commit only), and a change through the JDK's view reached the
     * object's state without a check (a sub-list's {@code set}, a sub-map's {@code pollFirstEntry}).
     */
    @Test
    @SuppressWarnings("unchecked")
    void changesThroughViewsKeptAcrossACommitMarkTheObjectDirty() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        List<Object> all = (List<Object>) Reflect.call(loader.load("corpus.inherited.Extending"), "all");
        int checked = 0;
        for (Object original : all) {
            String name = original.getClass().getName();
            List<java.util.function.Function<Object, Runnable>> views = new ArrayList<>();
            if (original instanceof java.util.NavigableMap<?, ?>) {
                views.add(o -> ((java.util.NavigableMap<Object, Object>) o).headMap(lastKey(o), true)::pollFirstEntry);
                views.add(o -> ((java.util.NavigableMap<Object, Object>) o).descendingMap().entrySet().iterator()
                        .next()::hashCode); // a read: marks nothing (below)
                views.add(o -> {
                    java.util.Map.Entry<Object, Object> e = ((java.util.NavigableMap<Object, Object>) o)
                            .tailMap(lastKey(o)).entrySet().iterator().next();
                    return () -> e.setValue(e.getValue());
                });
            }
            if (original instanceof java.util.NavigableSet<?>) {
                views.add(o -> ((java.util.NavigableSet<Object>) o).tailSet(((java.util.NavigableSet<Object>) o).first(), true)::pollFirst);
                views.add(o -> ((java.util.NavigableSet<Object>) o).headSet(((java.util.NavigableSet<Object>) o).last())::clear);
            }
            if (original instanceof List<?>) {
                views.add(o -> {
                    List<Object> sub = ((List<Object>) o).subList(0, 1);
                    return () -> sub.set(0, sub.get(0));
                });
                views.add(o -> ((List<Object>) o).subList(0, 1)::clear);
            }
            for (int i = 0; i < views.size(); i++) {
                MiniStore store = new MiniStore();
                Object hollow = store.fetch(store.save(original));
                Runnable change = views.get(i).apply(hollow);
                ((Persistent) hollow).$perpetua$state(ObjectState.CLEAN); // committed, the view kept
                change.run();
                boolean read = i == 1 && original instanceof java.util.NavigableMap<?, ?>;
                assertEquals(read ? ObjectState.CLEAN : ObjectState.DIRTY, ((Persistent) hollow).$perpetua$state(),
                        name + ", view " + i);
                checked++;
            }
        }
        assertTrue(checked >= 15, "views checked: " + checked);
        assertEquals(List.of(), loader.events.failed);
    }

    private static Object lastKey(Object sortedMap) {
        return ((java.util.NavigableMap<?, ?>) sortedMap).lastKey();
    }

    /**
     * A {@code Vector} subclass's own code reaching {@code elementData} and {@code elementCount}
     * directly (on itself, or on another, hollow, one in a static method) fills the object and
     * marks it dirty first: until session 39 such a change was never written, and a hollow
     * object's count read 0.
     */
    @Test
    @SuppressWarnings("unchecked")
    void protectedFieldsOfAJdkCollectionAreWriteChecked() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        Class<?> pile = loader.load("corpus.inherited.Pile");
        List<String> original = (List<String>) Reflect.make(pile);
        original.addAll(List.of("a", "b", "c"));
        MiniStore store = new MiniStore();
        long id = store.save(original);

        Object hollow = store.fetch(id);
        assertEquals(3, Reflect.call(pile, "countOf", hollow));
        assertEquals(ObjectState.DIRTY, ((Persistent) hollow).$perpetua$state(), "a read of elementCount may be a write");

        List<String> dropped = (List<String>) store.fetch(id);
        Reflect.call(dropped, "dropTop");
        assertEquals(ObjectState.DIRTY, ((Persistent) dropped).$perpetua$state());
        Reflect.call(dropped, "replaceTop", "B");
        MiniStore again = new MiniStore();
        assertEquals(List.of("a", "B"), again.fetch(again.save(dropped)), "what a commit would write");
        assertEquals(List.of(), loader.events.failed);
        assertEquals("", loader.verifyAll());
    }

    /**
     * Java serialization of a hollow object of a class two below a JDK collection or map: the
     * JDK part is written filled, as for the class right below it (until session 39 only that
     * class got the agent's private {@code writeReplace}, which does not apply to a subclass,
     * and the stream held no elements). A plain {@code ObjectInputStream} reads it back.
     */
    @Test
    void javaSerializationOfAHollowSubclassOfASubclassWritesItsContents() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        @SuppressWarnings("unchecked")
        List<String> list = (List<String>) Reflect.make(loader.load("corpus.refused.SubList"));
        list.add("a");
        list.add("b");
        @SuppressWarnings("unchecked")
        Map<String, Integer> map = (Map<String, Integer>) Reflect.make(loader.load("corpus.inherited.SalePrices"));
        map.put("x", 1);
        for (Object original : List.of(list, map)) {
            MiniStore store = new MiniStore();
            Object hollow = store.fetch(store.save(original));
            assertEquals(ObjectState.HOLLOW, ((Persistent) hollow).$perpetua$state());
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
                out.writeObject(hollow);
            }
            try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
                    new java.io.ByteArrayInputStream(bytes.toByteArray())) {
                @Override
                protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws ClassNotFoundException {
                    return Class.forName(desc.getName(), false, loader);
                }
            }) {
                Object copy = in.readObject();
                assertEquals(original.getClass(), copy.getClass());
                assertEquals(original, copy, original.getClass().getName());
            }
        }
        assertEquals(List.of(), loader.events.failed);
        assertEquals("", loader.verifyAll());
    }

    /**
     * The read-only methods {@code Stack}, {@code Vector} and {@code ConcurrentHashMap} add to
     * the collection and map interfaces fill a hollow object and mark nothing (until session 39
     * each got the write check, and a read-only transaction wrote the object).
     */
    @Test
    @SuppressWarnings("unchecked")
    void readOnlyMethodsOfStackVectorAndConcurrentHashMapMarkNothing() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        List<Object> all = (List<Object>) Reflect.call(loader.load("corpus.inherited.Extending"), "all");
        for (Object original : all) {
            if (!(original instanceof java.util.Vector) && !(original instanceof java.util.concurrent.ConcurrentHashMap)) {
                continue;
            }
            String name = original.getClass().getName();
            MiniStore store = new MiniStore();
            Object hollow = store.fetch(store.save(original));
            StringBuilder seen = new StringBuilder();
            if (hollow instanceof java.util.Stack<?> s) {
                seen.append(s.peek()).append(s.empty()).append(s.search("a"));
            }
            if (hollow instanceof java.util.Vector<?> v) {
                Object[] copy = new Object[v.size()];
                v.copyInto(copy);
                seen.append(v.elementAt(0)).append(v.firstElement()).append(v.lastElement())
                        .append(java.util.Collections.list(v.elements())).append(v.capacity()).append(copy.length)
                        .append(v.indexOf("a", 1)).append(v.lastIndexOf("a", 2));
            }
            if (hollow instanceof java.util.concurrent.ConcurrentHashMap<?, ?> raw) {
                java.util.concurrent.ConcurrentHashMap<String, String> m =
                        (java.util.concurrent.ConcurrentHashMap<String, String>) raw;
                seen.append(m.mappingCount()).append(java.util.Collections.list(m.keys()))
                        .append(java.util.Collections.list(m.elements()));
                m.forEachKey(1, k -> seen.append(k));
                m.forEachValue(1, v -> seen.append(v));
                m.forEachEntry(1, e -> seen.append(e.getKey()));
                m.forEach(1, (k, v) -> seen.append(k));
                m.forEach(1, (k, v) -> k + v, kv -> seen.append(kv));
                String reduced = m.reduce(1, (k, v) -> k, (x, y) -> x + y);
                String found = m.search(1, (k, v) -> k);
                String foundKey = m.searchKeys(1, k -> k);
                String foundValue = m.searchValues(1, v -> v);
                String foundEntry = m.searchEntries(1, Map.Entry::getKey);
                seen.append(reduced).append(m.reduceKeys(1, (x, y) -> x + y)).append(m.reduceValues(1, (x, y) -> x + y))
                        .append(m.reduceEntries(1, (x, y) -> x).getKey())
                        .append(m.reduceValuesToInt(1, String::length, 0, Integer::sum))
                        .append(found).append(foundKey).append(foundValue).append(foundEntry);
            }
            assertTrue(seen.length() > 0, name);
            assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state(), name + ": reads mark nothing");
        }
        assertEquals("", loader.verifyAll());
    }

    @Test
    void aClassGivingItsJdkMapAnAccessOrderIsRewrittenButItsInstancesCannotPersist() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        Class<?> cache = loader.load("corpus.refused.AccessOrdered");
        assertTrue(Persistent.class.isAssignableFrom(cache));
        String events = String.join("\n", loader.events.rewritten);
        assertTrue(events.contains("its instances cannot persist: it passes an access order to LinkedHashMap's constructor"),
                events);
        java.lang.reflect.Field refused = cache.getDeclaredField("$perpetua$refused");
        refused.setAccessible(true);
        assertTrue(((String) refused.get(null)).contains("access order"));
        assertEquals("", loader.verifyAll());
    }

    /** @return why the agent refused the instances of {@code c}, or null if it did not */
    private static String refusal(Class<?> c) throws IllegalAccessException {
        try {
            java.lang.reflect.Field refused = c.getDeclaredField("$perpetua$refused");
            refused.setAccessible(true);
            return (String) refused.get(null);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    /**
     * A constructor passing the JDK's default spelled out, as a constant (insertion order
     * {@code false}, a {@code null} comparator), fixes nothing a read-back object would lack: its
     * class is stored as one calling the no-argument constructor. One passing a value it is given
     * or chooses is refused.
     */
    @Test
    void aClassPassingItsJdkMapTheDefaultOrderOrNoComparatorCanPersist() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        String outer = "corpus.inherited.DefaultsSpelledOut$";
        for (String accepted : List.of("InsertionOrdered", "NoComparatorMap", "NoComparatorSet", "NoComparatorQueue")) {
            Class<?> c = loader.load(outer + accepted);
            assertTrue(Persistent.class.isAssignableFrom(c), accepted);
            assertNull(refusal(c), accepted);
        }
        assertTrue(refusal(loader.load(outer + "OrderGiven")).contains("access order"));
        assertTrue(refusal(loader.load(outer + "OrderChosen")).contains("access order"));
        assertTrue(refusal(loader.load(outer + "ComparatorChosen")).contains("comparator"));
        @SuppressWarnings("unchecked")
        Map<String, Integer> ordered = (Map<String, Integer>) Reflect.make(loader.load(outer + "InsertionOrdered"));
        ordered.put("b", 2);
        ordered.put("a", 1);
        MiniStore store = new MiniStore();
        @SuppressWarnings("unchecked")
        Map<String, Integer> back = (Map<String, Integer>) store.fetch(store.save(ordered));
        assertEquals(List.of("b", "a"), List.copyOf(back.keySet()));
        assertEquals("", loader.verifyAll());
    }

    /**
     * A class reading a field of a class whose name has a letter outside the Basic Multilingual
     * Plane is rewritten: the JDK cannot open the URL of that class's file (it escapes the letter
     * as two surrogates, which its own decoding rejects), so the agent opens the file itself,
     * from a directory or from a jar.
     */
    @Test
    void aClassReadingAFieldOfAClassNamedOutsideTheBasicPlaneIsRewritten(@TempDir Path dir) throws Exception {
        String counter = "corpus.access.Supplementary$\uD835\uDC9Eounter";
        Path classes = Path.of(corpus.access.Supplementary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path file = classes.resolve(counter.replace('.', '/') + ".class");
        URL url = getClass().getClassLoader().getResource(counter.replace('.', '/') + ".class");
        assertThrows(IllegalArgumentException.class, () -> url.openStream().close(), "the JDK's failure this works around");

        RewritingClassLoader loader = new RewritingClassLoader("corpus.access.Supplementary");
        loader.add(counter, Files.readAllBytes(file)); // the test's own loader cannot read it by its URL either
        Class<?> owner = loader.load("corpus.access.Supplementary$Owner");
        assertEquals(List.of(), loader.events.failed);
        assertTrue(Persistent.class.isAssignableFrom(owner));
        Object o = Reflect.make(owner);
        MiniStore store = new MiniStore();
        Object back = store.fetch(store.save(o));
        assertEquals(0, Reflect.call(back, "value"));
        assertEquals("", loader.verifyAll());

        Path jar = dir.resolve("classes.jar");
        try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new java.util.jar.JarEntry(counter.replace('.', '/') + ".class"));
            out.write(Files.readAllBytes(file));
        }
        try (URLClassLoader fromJar = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            TypeResolver resolver = TypeResolver.unshared(fromJar, ClassFilter.everything());
            ClassInfo info = resolver.find(counter.replace('.', '/'));
            assertNotNull(info);
            assertNotNull(info.field("v", "I"));
        }
    }

    @Test
    void ownPersistAndFetchMethodsAreKept() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        Class<?> c = loader.load("corpus.refused.OwnPersist");
        Object o = Reflect.make(c);
        assertEquals("own n", c.getMethod("persist", String.class).invoke(o, "n"));
        assertEquals("own fetch n", c.getMethod("fetch", String.class).invoke(null, "n"));
        assertNotNull(c.getMethod("persist")); // the no-argument one is still added
        assertTrue(loader.events.rewritten.get(0).contains("persist(Ljava/lang/String;) not added"),
                loader.events.rewritten::toString);
    }

    @Test
    void rewritingIsIdempotent() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        loader.load("corpus.shapes.Square");
        byte[] once = loader.defined.get("corpus.shapes.Square");
        ClassRewriter rewriter = new ClassRewriter(ClassFilter.everything());
        ClassRewriter.Result again = rewriter.rewrite(
                TypeResolver.unshared(getClass().getClassLoader(), ClassFilter.everything()), "corpus/shapes/Square", once);
        assertEquals(ClassRewriter.Outcome.UNCHANGED, again.outcome());
        assertEquals("already rewritten", again.detail());
        // Square writes no array, yet it is known for a class this version rewrote: the JVM keeps
        // trusting the array write log (a build-time rewritten class no longer turns it off)
        assertNull(again.arraysUntracked());
    }

    @Test
    void aClassFileTooNewForAsmIsReportedLoudly() throws Exception {
        byte[] bytes = resource("corpus/graph/Part.class");
        bytes[6] = 0;
        bytes[7] = (byte) (ClassRewriter.NEWEST_CLASS_FILE_VERSION + 1);
        RewritingClassLoader.Events events = new RewritingClassLoader.Events();
        PerpetuaTransformer transformer = new PerpetuaTransformer(new ClassRewriter(ClassFilter.everything()), events,
                false, null);
        assertNull(transformer.transform(getClass().getClassLoader(), "corpus/graph/Part", null, null, bytes));
        assertEquals(1, events.failed.size());
        assertTrue(events.failed.get(0).contains("class file version " + (ClassRewriter.NEWEST_CLASS_FILE_VERSION + 1)
                + " (Java " + (ClassRewriter.NEWEST_CLASS_FILE_VERSION - 43) + ") is newer than"), events.failed::toString);
    }

    /**
     * Methods near the 64 KB limit are rewritten; a class with one pushed over it by the entry
     * check fails loudly, and is loaded with only the generated members and its own code as it was.
     */
    @Test
    void methodsNearTheCodeSizeLimit() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        loader.add("corpus.graph.Big", bigClass("corpus/graph/Big", 12_900, true));
        loader.add("corpus.graph.Bigger", bigClass("corpus/graph/Bigger", 13_106, false));
        Object part = Reflect.make(loader.load("corpus.graph.Part"), 2, "t", 1);
        assertEquals(2 * 12_900, Reflect.call(loader.load("corpus.graph.Big"), "sum", part));
        MiniStore store = new MiniStore();
        Object hollow = store.fetch(store.save(part));
        assertEquals(2 * 12_900, Reflect.call(loader.load("corpus.graph.Big"), "sum", hollow));
        assertEquals(List.of(), loader.events.failed);

        Class<?> bigger = loader.load("corpus.graph.Bigger");
        assertEquals(1, loader.events.failed.size(), loader.events.failed::toString);
        RewriteException failure = assertInstanceOf(RewriteException.class, loader.events.failures.get(0));
        assertInstanceOf(MethodTooLargeException.class, failure.getCause());
        assertTrue(failure.linkOnly());
        assertTrue(failure.getMessage().contains("given only the members other rewritten classes link against"),
                failure::getMessage);
        assertTrue(Persistent.class.isAssignableFrom(bigger));
        assertEquals(2 * 13_106, Reflect.call(Reflect.make(bigger), "sum", part));
        assertEquals("", loader.verifyAll());
    }

    /**
     * The JVM rewrites a subclass before it loads its super-class, and a class that reads a
     * field links against the accessors of the field's class. A persistent-capable super-class
     * that then fails to be rewritten whole (here: its method is pushed over 64 KB by the entry
     * check) used to be left as it was, and the code rewritten before it failed with
     * {@code NoSuchFieldError} and {@code NoSuchMethodError}. It now gets those members, with its
     * own code unchanged: everything links and behaves as before, and the kernel refuses to store
     * its instances or its subclass's, saying why and by what path; the store is left as it was.
     */
    @Test
    void aClassThatCannotBeRewrittenWholeStillLinksAndIsRefusedByTheKernel(@TempDir Path dir) throws Exception {
        Path tall = Files.createDirectories(dir.resolve("corpus/tall"));
        Files.write(tall.resolve("Tall.class"), TooBig.classFile("corpus/tall/Tall", Opcodes.ACC_PROTECTED, false));
        Files.writeString(tall.resolve("Taller.java"), """
                package corpus.tall;
                public class Taller extends Tall {
                    public int y;
                    public void set(int a, int b) { x = a; y = b; }
                    public int both() { return x + y; }
                }
                """);
        Files.writeString(tall.resolve("TallReader.java"), """
                package corpus.tall;
                public class TallReader {
                    public static int read(Tall t) { return t.x; }
                }
                """);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, err, "-cp", dir.toString(), "-d", dir.toString(),
                tall.resolve("Taller.java").toString(), tall.resolve("TallReader.java").toString());
        assertEquals(0, rc, err::toString);
        try (URLClassLoader parent = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            RewritingClassLoader loader = new RewritingClassLoader(parent, ClassFilter.everything(), "corpus.tall.");
            Class<?> taller = loader.load("corpus.tall.Taller"); // rewritten first, against Tall's members
            Object t = Reflect.make(taller);
            Reflect.call(t, "set", 3, 4);
            assertEquals(7, Reflect.call(t, "both"));
            assertEquals(3 * TooBig.READS, Reflect.call(t, "sum"));
            assertEquals(3, Reflect.call(loader.load("corpus.tall.TallReader"), "read", t));
            assertEquals(ObjectState.TRANSIENT, ((Persistent) t).$perpetua$state());

            assertEquals(1, loader.events.failed.size(), loader.events.failed::toString);
            assertTrue(loader.events.failed.get(0).startsWith("corpus.tall.Tall: "), loader.events.failed::toString);
            RewriteException failure = assertInstanceOf(RewriteException.class, loader.events.failures.get(0));
            assertTrue(failure.linkOnly());
            assertInstanceOf(MethodTooLargeException.class, failure.getCause());
            assertTrue(loader.events.rewritten.stream().anyMatch(r -> r.startsWith("corpus.tall.Taller: persistent-capable")),
                    loader.events.rewritten::toString);
            assertEquals("", loader.verifyAll());

            try (PersistentStore store = PersistentStore.open("memory:")) {
                store.beginTransaction();
                store.persist(new ArrayList<>(List.of("first", t)), "list");
                NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
                assertEquals("corpus.tall.Taller", e.className());
                assertTrue(e.reason().startsWith("class corpus.tall.Tall could not be rewritten by the Perpetua agent ("),
                        e::getMessage);
                assertTrue(e.reason().contains("Method too large"), e::getMessage);
                assertTrue(e.path().contains("[1]"), e::getMessage);
                assertTrue(store.inTransaction()); // nothing was written; the transaction goes on
                store.abortTransaction();
                assertEquals(List.of(), store.names());
                store.beginTransaction();
                assertThrows(NotPersistableException.class, () -> {
                    Reflect.call(t, "persist", "t");
                    store.commitTransaction();
                });
                store.abortTransaction();
                assertEquals(List.of(), store.names());
            }
        }
    }

    /**
     * A static initializer of literal tables that fits the 64 KB limit, but not once each of its
     * array stores (1 byte) becomes a logging call (3 bytes), as in Apache Commons Math's
     * {@code FastMathLiteralArrays}: the class is rewritten with that one method left without
     * the array write barrier, behaves as before, and tells the agent the log cannot be trusted.
     */
    @Test
    void aMethodTheArrayBarrierWouldMakeTooLargeIsLeftWithoutIt() throws Exception {
        byte[] bytes = tableClass("corpus/graph/Table", 6_000);
        ClassRewriter.Result result = new ClassRewriter(ClassFilter.everything())
                .rewrite(getClass().getClassLoader(), "corpus/graph/Table", bytes);
        assertEquals(ClassRewriter.Outcome.REWRITTEN, result.outcome());
        assertNotNull(result.arraysUntracked());
        assertTrue(result.arraysUntracked().contains("corpus.graph.Table.<clinit>()V is too large"),
                result.arraysUntracked());

        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        loader.add("corpus.graph.Table", bytes);
        Class<?> table = loader.load("corpus.graph.Table");
        assertEquals(List.of(), loader.events.failed);
        assertTrue(Persistent.class.isAssignableFrom(table));
        int[] values = (int[]) table.getField("VALUES").get(null);
        assertEquals(6_000, values.length);
        for (int i = 0; i < values.length; i++) {
            assertEquals(i % 1000 * 7, values[i]);
        }
        assertEquals("", loader.verifyAll());
    }

    /**
     * An array literal's element stores keep no barrier (until its last store the array is only
     * on the operand stack: nothing persistent can hold it), so a literal table as large as the
     * limit allows is rewritten whole and the log stays trusted; a store into an array that came
     * from anywhere else is logged, as is one after a jump target inside the pattern.
     */
    @Test
    void anArrayLiteralsStoresNeedNoBarrier() throws Exception {
        byte[] bytes = literalTableClass("corpus/graph/Literal", 7_000);
        ClassRewriter.Result result = new ClassRewriter(ClassFilter.everything())
                .rewrite(getClass().getClassLoader(), "corpus/graph/Literal", bytes);
        assertEquals(ClassRewriter.Outcome.REWRITTEN, result.outcome());
        assertNull(result.arraysUntracked());
        // poke's store, and the store after the jump target in branchy(); none of the literal's 7,002
        assertTrue(result.detail().contains(" 2 array writes logged"), result.detail());

        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        loader.add("corpus.graph.Literal", bytes);
        Class<?> literal = loader.load("corpus.graph.Literal");
        int[] values = (int[]) literal.getField("VALUES").get(null);
        assertEquals(7_000, values.length);
        assertEquals(6_999 % 1000 * 7, values[6_999]);
        int[] branchy = (int[]) literal.getMethod("branchy", boolean.class).invoke(null, true);
        assertEquals(List.of(1, 2), List.of(branchy[0], branchy[1]));
        assertEquals("", loader.verifyAll());
    }

    /**
     * A class whose static initializer sets {@code VALUES} to an n-element literal (9 bytes an
     * element, as javac writes one), with {@code poke(int[])}, a store into a parameter, and
     * {@code branchy(boolean)}, a two-element literal whose second store follows a jump target.
     */
    private static byte[] literalTableClass(String name, int n) {
        ClassWriter cw = publicClass(name);
        cw.visitField(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "VALUES", "[I", null, null).visitEnd();
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        mv.visitIntInsn(Opcodes.SIPUSH, n);
        mv.visitIntInsn(Opcodes.NEWARRAY, Opcodes.T_INT);
        for (int i = 0; i < n; i++) {
            mv.visitInsn(Opcodes.DUP);
            mv.visitIntInsn(Opcodes.SIPUSH, i);
            mv.visitIntInsn(Opcodes.SIPUSH, i % 1000 * 7);
            mv.visitInsn(Opcodes.IASTORE);
        }
        mv.visitFieldInsn(Opcodes.PUTSTATIC, name, "VALUES", "[I");
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();

        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "poke", "([I)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitInsn(Opcodes.ICONST_5);
        mv.visitInsn(Opcodes.IASTORE);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();

        // int[] a = new int[2]; a[0] = 1 as a literal; then a jump lands on the second store's DUP
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "branchy", "(Z)[I", null, null);
        mv.visitCode();
        org.objectweb.asm.Label target = new org.objectweb.asm.Label();
        mv.visitInsn(Opcodes.ICONST_2);
        mv.visitIntInsn(Opcodes.NEWARRAY, Opcodes.T_INT);
        mv.visitInsn(Opcodes.DUP);
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitInsn(Opcodes.ICONST_1);
        mv.visitInsn(Opcodes.IASTORE);
        mv.visitVarInsn(Opcodes.ILOAD, 0);
        mv.visitJumpInsn(Opcodes.IFEQ, target);
        mv.visitLabel(target);
        mv.visitFrame(Opcodes.F_SAME1, 0, null, 1, new Object[] {"[I"});
        mv.visitInsn(Opcodes.DUP);
        mv.visitInsn(Opcodes.ICONST_1);
        mv.visitInsn(Opcodes.ICONST_2);
        mv.visitInsn(Opcodes.IASTORE);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** A class whose static initializer fills {@code VALUES} element by element: 10 bytes per element. */
    private static byte[] tableClass(String name, int n) {
        ClassWriter cw = publicClass(name);
        cw.visitField(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "VALUES", "[I", null, null).visitEnd();
        cw.visitField(Opcodes.ACC_PUBLIC, "count", "I", null, null).visitEnd();
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        mv.visitIntInsn(Opcodes.SIPUSH, n);
        mv.visitIntInsn(Opcodes.NEWARRAY, Opcodes.T_INT);
        mv.visitFieldInsn(Opcodes.PUTSTATIC, name, "VALUES", "[I");
        for (int i = 0; i < n; i++) {
            mv.visitFieldInsn(Opcodes.GETSTATIC, name, "VALUES", "[I");
            mv.visitIntInsn(Opcodes.SIPUSH, i);
            mv.visitIntInsn(Opcodes.SIPUSH, i % 1000 * 7);
            mv.visitInsn(Opcodes.IASTORE);
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** @return a writer holding a public class with a public no-argument constructor */
    private static ClassWriter publicClass(String name) {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, "java/lang/Object", null);
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        return cw;
    }

    /** A class whose one method reads {@code p.id} n times (5 bytes each). */
    private static byte[] bigClass(String name, int n, boolean isStatic) {
        ClassWriter cw = publicClass(name);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | (isStatic ? Opcodes.ACC_STATIC : 0), "sum",
                "(Lcorpus/graph/Part;)I", null, null);
        mv.visitCode();
        int p = isStatic ? 0 : 1;
        mv.visitInsn(Opcodes.ICONST_0);
        for (int i = 0; i < n; i++) {
            mv.visitVarInsn(Opcodes.ALOAD, p);
            mv.visitFieldInsn(Opcodes.GETFIELD, "corpus/graph/Part", "id", "I");
            mv.visitInsn(Opcodes.IADD);
        }
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    private static final String JAVA8_SOURCE = """
            package mv;
            public class Outer8 {
                private int secret = 3;
                private String word = "w";
                public class Inner {
                    public int peek() { return secret; }
                    public void poke(int v) { secret = v; }
                }
                public static String run() {
                    Outer8 o = new Outer8();
                    Inner i = o.new Inner();
                    i.poke(i.peek() + 4);
                    String s = o.word;
                    switch (s) {
                        case "w": o.secret++; break;
                        default: o.secret--;
                    }
                    try {
                        return "secret=" + o.secret;
                    } finally {
                        o.word = "done";
                    }
                }
            }
            """;

    /**
     * The same source compiled for several class file versions (javac of the running JDK): Java 8
     * output reaches private fields through synthetic {@code access$NNN} methods, Java 11 and
     * later through nestmate access; both are redirected.
     */
    @ParameterizedTest
    @ValueSource(ints = {8, 11, 17})
    void classFilesOfEveryVersionAreRewritten(int release, @TempDir Path dir) throws Exception {
        Path src = dir.resolve("mv/Outer8.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, JAVA8_SOURCE);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = javac.run(null, null, err, "--release", Integer.toString(release), "-nowarn", "-d",
                dir.toString(), src.toString());
        assertEquals(0, rc, err::toString);
        try (URLClassLoader parent = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            RewritingClassLoader loader = new RewritingClassLoader(parent, ClassFilter.everything(), "mv.");
            Class<?> outer = loader.load("mv.Outer8");
            assertEquals("secret=8", Reflect.call(outer, "run"));
            assertEquals(List.of(), loader.events.failed);
            assertEquals("", loader.verifyAll());

            Object o = Reflect.make(outer);
            MiniStore store = new MiniStore();
            Object hollow = store.fetch(store.save(o));
            Object inner = loader.load("mv.Outer8$Inner").getDeclaredConstructor(outer).newInstance(hollow);
            assertEquals(3, Reflect.call(inner, "peek"));
            assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state());
            Reflect.call(inner, "poke", 9);
            assertEquals(ObjectState.DIRTY, ((Persistent) hollow).$perpetua$state());
        }
    }

    /**
     * Classes of an unmodified third-party jar from Maven Central, compiled for Java 1.3 (class
     * file version 47): upgraded to version 51 with computed frames, persistent-capable.
     */
    @Test
    void oldThirdPartyClassFilesAreUpgradedAndRewritten() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("org.apache.commons.lang.");
        Class<?> mutableInt = loader.load("org.apache.commons.lang.mutable.MutableInt");
        assertTrue(Persistent.class.isAssignableFrom(mutableInt)); // extends Number: no state
        Object seven = Reflect.make(mutableInt, 7);
        Reflect.call(seven, "add", 5);
        MiniStore store = new MiniStore();
        Object hollow = store.fetch(store.save(seven));
        assertEquals(12, Reflect.call(hollow, "intValue"));
        assertEquals(seven, hollow); // MutableInt.equals reads the other's field
        assertEquals(List.of(), loader.events.failed);
        assertEquals("", loader.verifyAll());
        assertTrue(loader.events.rewritten.stream().anyMatch(r -> r.contains("upgraded from version 47 to 51")),
                loader.events.rewritten::toString);
    }

    private static byte[] resource(String name) throws Exception {
        try (InputStream in = ClassShapesTest.class.getClassLoader().getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    @Test
    void unresolvableTypesFailTheClassInsteadOfGuessing() {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "corpus/Orphan", null, "corpus/DoesNotExist", null);
        cw.visitEnd();
        ClassRewriter rewriter = new ClassRewriter(ClassFilter.everything());
        RewriteException e = assertThrows(RewriteException.class,
                () -> rewriter.rewrite(getClass().getClassLoader(), "corpus/Orphan", cw.toByteArray()));
        assertTrue(e.getMessage().contains("cannot find the class file of corpus.DoesNotExist"), e::getMessage);
    }
}
