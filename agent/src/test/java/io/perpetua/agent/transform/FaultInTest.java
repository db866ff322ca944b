package io.perpetua.agent.transform;

import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drives rewritten corpus classes through the runtime protocol with {@link MiniStore}: hollow
 * shells made by the creation proxies, filled by the generated codec when a residency check
 * fires. Shows that every kind of field access reaches the check, and that only what is touched
 * is loaded.
 */
class FaultInTest {
    private RewritingClassLoader loader;
    private MiniStore store;

    @BeforeEach
    void setUp() {
        loader = new RewritingClassLoader("corpus.");
        store = new MiniStore();
    }

    /** A hollow shell of the object as saved now, in a fresh store (which becomes {@link #store}). */
    private Object hollowCopy(Object original) {
        store = new MiniStore();
        return store.fetch(store.save(original));
    }

    private Class<?> type(String name) {
        return loader.load(name);
    }

    @Test
    void onlyTheTouchedPartOfAGraphIsLoaded() {
        Class<?> graphs = type("corpus.graph.Graphs");
        Object root = Reflect.call(graphs, "build", 1000);
        Object hollowRoot = hollowCopy(root);
        assertEquals(Set.of(), store.loaded);
        assertEquals(Reflect.call(graphs, "walk", root, 5), Reflect.call(graphs, "walk", hollowRoot, 5));
        assertEquals(6, store.loaded.size(), store.loaded::toString);
        // a second walk finds them resident
        Reflect.call(graphs, "walk", hollowRoot, 5);
        assertEquals(6, store.loaded.size());
        assertEquals(Reflect.call(graphs, "traverse", root, 7), Reflect.call(graphs, "traverse", hollowRoot, 7));
        assertTrue(store.loaded.size() < 1000);
        assertEquals(Set.of(), store.dirtied);
    }

    @Test
    void writesFaultInAndMarkDirtyExactlyTheWrittenObjects() {
        Class<?> graphs = type("corpus.graph.Graphs");
        Object hollowRoot = hollowCopy(Reflect.call(graphs, "build", 50));
        Reflect.call(graphs, "touch", hollowRoot, 2);
        assertEquals(3, store.dirtied.size());
        assertEquals(Boolean.TRUE, Reflect.call(graphs, "visited", hollowRoot));
        assertEquals(ObjectState.DIRTY, ((Persistent) hollowRoot).$perpetua$state());
    }

    @Test
    void innerAnonymousLocalNestedAndLambdaAccessesToPrivateFieldsFaultIn() throws Exception {
        Class<?> outerType = type("corpus.access.Outer");
        Object original = Reflect.make(outerType, 5, "L");

        Object o = hollowCopy(original); // inner class reading Outer.this.secret
        Object inner = type("corpus.access.Outer$Inner").getDeclaredConstructor(outerType).newInstance(o);
        assertEquals(ObjectState.HOLLOW, ((Persistent) o).$perpetua$state());
        assertEquals(12, Reflect.call(inner, "peek"));
        assertEquals(ObjectState.CLEAN, ((Persistent) o).$perpetua$state());
        Reflect.call(inner, "poke", 6); // inner class writing a private field: marks dirty
        assertEquals(ObjectState.DIRTY, ((Persistent) o).$perpetua$state());

        o = hollowCopy(original); // static nested class
        Object nested = Reflect.make(type("corpus.access.Outer$Nested"), o);
        assertEquals("L:5", Reflect.call(nested, "read"));

        o = hollowCopy(original); // static lambda body
        IntSupplier s = (IntSupplier) Reflect.call(outerType, "staticLambda", o);
        assertEquals(ObjectState.HOLLOW, ((Persistent) o).$perpetua$state());
        assertEquals(20, s.getAsInt());

        o = hollowCopy(original); // another instance of the same class reading private fields
        assertEquals(Boolean.TRUE, Reflect.call(original, "sameAs", o));
        o = hollowCopy(original); // receiver chosen by a ternary
        assertEquals(5, Reflect.call(original, "pick", o, false));
        o = hollowCopy(original); // anonymous and local classes (after the entry check of o's method)
        assertEquals(10, ((IntSupplier) Reflect.call(o, "anonymous")).getAsInt());
        assertEquals("local=8", Reflect.call(hollowCopy(original), "local", 3));
    }

    @Test
    void aCloneOfAPersistentObjectIsAFilledTransientCopy() {
        Object square = Reflect.make(type("corpus.shapes.Square"), "sq", 7, 3.0);
        Persistent h = (Persistent) hollowCopy(square);
        Persistent copy = (Persistent) Reflect.call(h, "clone"); // Polygon.clone: super.clone(), then the hook
        assertEquals(ObjectState.TRANSIENT, copy.$perpetua$state());
        assertNull(copy.$perpetua$handle());
        assertEquals(ObjectState.CLEAN, h.$perpetua$state(), "the entry check filled the original; nothing marked it");
        assertEquals(Reflect.call(square, "describe"), Reflect.call(copy, "describe"));
        assertEquals(Set.of(), store.dirtied);
    }

    @Test
    void subclassStaticInterfaceRecordAndEnumAccessesFaultIn() {
        Object square = Reflect.make(type("corpus.shapes.Square"), "sq", 7, 3.0);
        Object other = Reflect.make(type("corpus.shapes.Square"), "o", 1, 1.0);

        Object h = hollowCopy(square); // protected fields through another instance, from a subclass
        assertEquals(7 + 1 + 4 + 4, Reflect.call(other, "sumIds", h));
        h = hollowCopy(square); // static method taking the object
        assertEquals("sq", Reflect.call(type("corpus.shapes.Shape"), "rename", h, "new"));
        assertEquals(ObjectState.DIRTY, ((Persistent) h).$perpetua$state());
        h = hollowCopy(square); // interface static method
        assertEquals(7, Reflect.call(type("corpus.shapes.Named"), "idOf", h));
        h = hollowCopy(square); // super.field and a hidden field
        assertEquals("polygon/shape/shape", Reflect.call(h, "kinds"));

        Object counter = Reflect.make(type("corpus.access.Counter"));
        Reflect.call(counter, "apply", "plus", 4);
        Object hc = hollowCopy(counter); // record method reading a rewritten class's field
        Object pair = Reflect.make(type("corpus.access.Pair"), hc, Reflect.make(type("corpus.access.Counter")));
        assertEquals(4, Reflect.call(pair, "total"));
        hc = hollowCopy(counter); // enum constant body writing a field
        Object plus = Enum.valueOf(type("corpus.access.Op").asSubclass(Enum.class), "PLUS");
        assertEquals(9, Reflect.call(plus, "apply", hc, 5));
        assertEquals(ObjectState.DIRTY, ((Persistent) hc).$perpetua$state());
    }

    @Test
    void arraysCyclesFinalFieldsAndGenericsSurviveTheCodec() {
        Object frozen = Reflect.call(type("corpus.access.Frozen"), "cycle");
        Object h = hollowCopy(frozen);
        assertEquals(Reflect.call(frozen, "walk"), Reflect.call(h, "walk"));
        Object box = Reflect.make(type("corpus.access.IntBox"), 4);
        Object hb = hollowCopy(box);
        assertEquals(5, Reflect.call(hb, "get"));
        Object list = Reflect.make(type("corpus.shapes.Square"), "sq", 7, 3.0);
        Reflect.call(list, "grow", 1.0);
        assertEquals(List.of("grow 1.0"), Reflect.call(hollowCopy(list), "log"));
    }
}
