package io.perpetua.agent.transform;

import io.perpetua.PersistentStore;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transient fields under the real transformer and kernel (a {@code memory:} store, closed and
 * reopened): those of a class that serializes itself are stored, even when a subclass declares
 * the serialization method; a transient setter dirties such an object, but not for a view cached
 * in a transient field, which comes back made again; a {@code new Object()} marker comes back as itself;
 * the transient fields of other classes are not stored.
 */
class TransientStateTest {
    private static int stores;

    @Test
    void transientStateOfAClassThatSerializesItselfIsStored() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        Class<?> intList = loader.load("corpus.access.IntList");
        Class<?> hashed = loader.load("corpus.access.Hashed");
        Class<?> frozen = loader.load("corpus.access.Frozen");
        assertTrue(PersistentClasses.storesTransientFields(intList));
        assertTrue(PersistentClasses.storesTransientFields(hashed), "its subclass declares writeObject");
        assertFalse(PersistentClasses.storesTransientFields(frozen), "Serializable, but not serialized by hand");

        Object list = Reflect.make(intList);
        for (int i = 1; i <= 5; i++) {
            Reflect.call(list, "add", i); // grows its transient array twice
        }
        Object map = Reflect.make(hashed);
        Reflect.call(map, "put", "k", "v");
        Reflect.call(map, "put", null, "for null");
        Object view = Reflect.call(map, "keys"); // cached in a transient field
        Object cycle = Reflect.call(frozen, "cycle");
        setCache(cycle, 42);

        // the kernel resolves stored class names through the context loader: the rewritten ones
        Thread.currentThread().setContextClassLoader(loader);
        try {
            check(loader, list, map, view, cycle);
        } finally {
            Thread.currentThread().setContextClassLoader(TransientStateTest.class.getClassLoader());
        }
    }

    private static void check(RewritingClassLoader loader, Object list, Object map, Object view, Object cycle)
            throws Exception {
        String uri = "memory:transient-state-" + ++stores;
        try (PersistentStore store = PersistentStore.open(uri)) {
            store.inTransaction(() -> store.persist(new ArrayList<>(List.of(list, map, cycle)), "root"));
        }
        try (PersistentStore store = PersistentStore.open(uri)) {
            List<?> root = (List<?>) store.fetch("root");
            Object l = root.get(0);
            assertEquals(15, Reflect.call(l, "sum"));
            Object m = root.get(1);
            assertEquals("v", Reflect.call(m, "get", "k"));
            assertEquals("for null", Reflect.call(m, "get", (Object) null), "the marker came back as itself");
            Object v = Reflect.call(m, "keys");
            assertNotSame(view, v);
            assertEquals(2, Reflect.call(v, "size"), "the view was made again, of the map read back");
            assertEquals(ObjectState.CLEAN, ((Persistent) m).$perpetua$state(),
                    "caching the view, stored as null as the field was, changed nothing stored: not marked dirty");
            Object f = root.get(2);
            assertEquals(1, Reflect.call(f, "a"));
            assertEquals(0, cache(f), "a transient cache of a class that does not serialize itself is not stored");

            store.beginTransaction();
            assertEquals(ObjectState.CLEAN, ((Persistent) l).$perpetua$state());
            Reflect.call(l, "add", 6); // a write of its size and of its transient array
            assertEquals(ObjectState.DIRTY, ((Persistent) l).$perpetua$state());
            Reflect.call(m, "put", "k2", "v2"); // writes only transient fields
            assertEquals(ObjectState.DIRTY, ((Persistent) m).$perpetua$state(), "a transient setter dirtied it");
            setCache(f, 7);
            assertEquals(ObjectState.CLEAN, ((Persistent) f).$perpetua$state(), "this one's transient field is not stored");
            store.commitTransaction();
        }
        try (PersistentStore store = PersistentStore.open(uri)) {
            List<?> root = (List<?>) store.fetch("root");
            assertEquals(21, Reflect.call(root.get(0), "sum"));
            assertEquals("v2", Reflect.call(root.get(1), "get", "k2"));
        }
        assertEquals(List.of(), loader.events.failed);
        assertEquals("", loader.verifyAll());
    }

    /**
     * A set with a hash table of its own, in a transient array: stored as it is, so its elements
     * keep the slots their hash codes gave them. Elements with value hashes are found again;
     * one that hashes by identity (an enum constant) would not be, in the next JVM, and the
     * commit is refused, saying so.
     */
    @Test
    void aHashSetOfItsOwnIsStoredWithValueHashesAndRefusedWithIdentityHashes() throws Exception {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        Class<?> setClass = loader.load("corpus.access.SmallHashSet");
        Thread.currentThread().setContextClassLoader(loader);
        String uri = "memory:transient-state-" + ++stores;
        try {
            @SuppressWarnings("unchecked")
            java.util.Set<Object> strings = (java.util.Set<Object>) Reflect.make(setClass);
            strings.addAll(List.of("a", "b", 42));
            try (PersistentStore store = PersistentStore.open(uri)) {
                store.inTransaction(() -> store.persist(strings, "strings"));

                @SuppressWarnings("unchecked")
                java.util.Set<Object> enums = (java.util.Set<Object>) Reflect.make(setClass);
                enums.add(loader.load("corpus.access.Op").getEnumConstants()[0]);
                store.beginTransaction();
                store.persist(enums, "enums");
                io.perpetua.NotPersistableException e = org.junit.jupiter.api.Assertions.assertThrows(
                        io.perpetua.NotPersistableException.class, store::commitTransaction);
                assertEquals("corpus.access.SmallHashSet", e.className());
                assertEquals("\"enums\".table", e.path());
                assertTrue(e.reason().startsWith("it is a set that keeps a hash table of its own, stored as it is, and its"
                        + " element corpus.access.Op$1 (an enum constant) hashes by identity"), e::getMessage);
                store.abortTransaction();
            }
            try (PersistentStore store = PersistentStore.open(uri)) {
                java.util.Set<?> back = (java.util.Set<?>) store.fetch("strings");
                assertTrue(back.contains("a") && back.contains("b") && back.contains(42), back::toString);
                assertEquals(List.of("strings"), store.names());
            }
        } finally {
            Thread.currentThread().setContextClassLoader(TransientStateTest.class.getClassLoader());
        }
    }

    /** Frozen's transient cache, through its generated setter (as rewritten code writes it). */
    private static void setCache(Object frozen, int value) throws Exception {
        java.lang.reflect.Method set = frozen.getClass().getDeclaredMethod("$perpetua$set$cache", frozen.getClass(), int.class);
        set.setAccessible(true);
        set.invoke(null, frozen, value);
    }

    private static int cache(Object frozen) throws Exception {
        java.lang.reflect.Method get = frozen.getClass().getDeclaredMethod("$perpetua$get$cache", frozen.getClass());
        get.setAccessible(true);
        return (int) get.invoke(null, frozen);
    }
}
