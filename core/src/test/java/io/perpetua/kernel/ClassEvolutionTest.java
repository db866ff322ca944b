package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A class changes between the JVM that stored its objects and the one that reads them. Each
 * version of {@code evo.Item} is compiled here and loaded in a class loader of its own, the
 * kernel finding it through the thread's context class loader, as in a real upgrade.
 */
class ClassEvolutionTest {
    @TempDir
    Path dir;

    @Test
    void anAddedFieldTakesItsDefaultAndARemovedOneIsDropped() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int", "label", "String"), "");
        withLoader(v1, () -> store(uri, v1, item -> {
            set(item, "count", 3);
            set(item, "label", "old");
        }));
        ClassLoader v2 = compile("v2", Map.of("count", "int", "added", "long", "note", "String"), "");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                Object item = store.fetch("item");
                assertEquals("added=0,count=3,note=null", describe(item));
                store.inTransaction(() -> set(item, "added", 9L)); // written back under the new layout
            }
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("added=9,count=3,note=null", describe(store.fetch("item")));
            }
            return null;
        });
    }

    @Test
    void aFieldWidenedOrBoxedKeepsItsValue() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int", "total", "Integer", "size", "int"), "");
        withLoader(v1, () -> store(uri, v1, item -> {
            set(item, "count", 3);
            set(item, "total", 40);
            set(item, "size", 5);
        }));
        // int to long, Integer to long (unboxed, widened), int to Integer (boxed)
        ClassLoader v2 = compile("v2", Map.of("count", "long", "total", "long", "size", "Integer"), "");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                Object item = store.fetch("item");
                assertEquals("count=3,size=5,total=40", describe(item));
                store.inTransaction(() -> set(item, "count", 1L << 40)); // written back under the new layout
            }
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("count=1099511627776,size=5,total=40", describe(store.fetch("item")));
            }
            return null;
        });
    }

    @Test
    void aFieldThatChangedItsKindIsAClearError() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "long"), "");
        withLoader(v1, () -> store(uri, v1, item -> set(item, "count", 3L)));
        ClassLoader v2 = compile("v2", Map.of("count", "int"), "");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> store.fetch("item"));
                assertEquals("evo.Item", e.className());
                assertEquals("count", e.fieldName());
                assertTrue(e.getMessage().contains("int") && e.getMessage().contains("long"), e.getMessage());
            }
            return null;
        });
    }

    /**
     * A class whose objects were stored and that is now a record, an enum, an interface or
     * abstract: an incompatible change of the class, not a program run without the agent.
     */
    @Test
    void aClassThatBecameARecordAnEnumAnInterfaceOrAbstractIsAClearError() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int"), "");
        withLoader(v1, () -> store(uri, v1, item -> set(item, "count", 3)));
        Map<String, String> now = new TreeMap<>(Map.of(
                "a record", "public record Item(int count) { }",
                "an enum", "public enum Item { ONE }",
                "an interface", "public interface Item { }",
                "abstract", "public abstract class Item extends io.perpetua.testmodel.Base { }"));
        int version = 2;
        for (Map.Entry<String, String> e : now.entrySet()) {
            ClassLoader v2 = compile("v" + version++, "Other", Map.of(), e.getValue());
            withLoader(v2, () -> {
                try (PersistentStore store = TestStores.open(uri)) {
                    IncompatibleClassChangeException thrown = assertThrows(IncompatibleClassChangeException.class,
                            () -> store.fetch("item"));
                    assertEquals("evo.Item", thrown.className());
                    assertNull(thrown.fieldName());
                    assertTrue(thrown.getMessage().endsWith("is an object of an ordinary class, and the class is now "
                            + e.getKey()), thrown.getMessage());
                }
                return null;
            });
        }
        // a plain class the agent did not rewrite (run without it, or left out by its options): a read that cannot be
        ClassLoader plain = compile("v" + version, "Other", Map.of(), "public class Item { }");
        withLoader(plain, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                NotPersistableException thrown = assertThrows(NotPersistableException.class, () -> store.fetch("item"));
                assertTrue(thrown.getMessage().startsWith("cannot read stored object #"), thrown.getMessage());
                assertTrue(thrown.reason().contains("include and exclude options"), thrown.getMessage());
            }
            return null;
        });
        withLoader(v1, () -> { // nothing was lost
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("count=3", describe(store.fetch("item")));
            }
            return null;
        });
    }

    /**
     * An object of a class the store's class loader cannot find by name (a plug-in's, with the
     * store opened from the application's loader) is refused at commit: stored, it could not be
     * read back, not even by the program that wrote it.
     */
    @Test
    void anObjectOfAClassTheStoresLoaderCannotFindIsRefusedAtCommit() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader plugin = compile("v1", Map.of("count", "int"), "");
        Object item = plugin.loadClass("evo.Item").getConstructor().newInstance();
        try (PersistentStore store = TestStores.open(uri)) { // this test's loader: it does not see evo.Item
            store.beginTransaction();
            java.util.List<Object> holder = new ArrayList<>(List.of("kept", item));
            store.persist(holder, "holder");
            NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
            assertEquals("evo.Item", e.className());
            assertEquals("\"holder\"[1]", e.path());
            assertTrue(e.getMessage().contains("and the store's class loader (") && e.getMessage().contains("does not find it"),
                    e.getMessage());
            holder.remove(item);
            store.commitTransaction();
        }
        withLoader(plugin, () -> { // opened with the plug-in's loader as the context loader: stored and read back
            try (PersistentStore store = TestStores.open(uri)) {
                store.inTransaction(() -> store.persist(item, "item"));
            }
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("count=0", describe(store.fetch("item")));
                assertEquals(List.of("kept"), store.fetch("holder"));
            }
            return null;
        });
    }

    @Test
    void aReferenceFieldWhoseStoredValueNoLongerFitsIsAClearErrorNamingTheField() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int", "label", "String", "note", "String"), "");
        withLoader(v1, () -> store(uri, v1, item -> {
            set(item, "count", 3);
            set(item, "label", "old");
            set(item, "note", "kept");
        }));
        // the same layout (three fields of the same kinds): the record is read as it is
        ClassLoader sameLayout = compile("v2", Map.of("count", "int", "label", "Integer", "note", "String"), "");
        // a field added too: the record is read through the older layout
        ClassLoader evolved = compile("v3", Map.of("count", "int", "label", "Integer", "note", "String", "added", "long"), "");
        for (ClassLoader v2 : List.of(sameLayout, evolved)) {
            withLoader(v2, () -> {
                try (PersistentStore store = TestStores.open(uri)) {
                    IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                            () -> describe(store.fetch("item")));
                    assertEquals("evo.Item", e.className());
                    assertEquals("label", e.fieldName(), e.getMessage());
                    assertTrue(e.getMessage().contains("java.lang.String") && e.getMessage().contains("java.lang.Integer"),
                            e.getMessage());
                }
                return null;
            });
        }
        withLoader(v1, () -> { // nothing was lost
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("count=3,label=old,note=kept", describe(store.fetch("item")));
            }
            return null;
        });
    }

    @Test
    void aRenamedClassIsReadUnderItsNewNameWhenTheApplicationDeclaresIt() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int", "label", "String", "peers", "Object"), "");
        withLoader(v1, () -> store(uri, v1, item -> {
            Object peer = newInstance(v1, "evo.Item");
            set(peer, "count", 4);
            Object peers = java.lang.reflect.Array.newInstance(peer.getClass(), 1);
            java.lang.reflect.Array.set(peers, 0, peer);
            set(item, "count", 3);
            set(item, "label", "old");
            set(item, "peers", peers);
        }));

        ClassLoader undeclared = compile("v2", "Article", Map.of("count", "int", "label", "String", "peers", "Object"), "");
        withLoader(undeclared, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> store.fetch("item"));
                assertEquals("evo.Item", e.className());
                assertTrue(e.getMessage().contains("META-INF/perpetua/renamed-classes.properties"), e.getMessage());
            }
            return null;
        });

        ClassLoader declared = compile("v3", "Article", Map.of("count", "int", "label", "String", "peers", "Object"), "");
        declareRenames("v3", "# a comment\nevo.Item = evo.Article\n");
        withLoader(declared, () -> {
            for (int round = 0; round < 2; round++) { // as stored, then as written back under the new name
                try (PersistentStore store = TestStores.open(uri)) {
                    Object item = store.fetch("item");
                    assertEquals("evo.Article", item.getClass().getName());
                    assertTrue(describe(item).startsWith("count=" + (3 + round) + ",label=old,peers=[Levo.Article;"),
                            describe(item));
                    Object peer = ((Object[]) get(item, "peers"))[0];
                    assertEquals("evo.Article", peer.getClass().getName());
                    assertTrue(describe(peer).startsWith("count=4,"), describe(peer));
                    store.inTransaction(() -> set(item, "count", 4));
                }
            }
            return null;
        });
    }

    /**
     * A name declared renamed, taken again by a new class or field: what the store holds under
     * it still reads as the rename says, and an object that would write the name again is
     * refused at commit (it would be read back as the other class or field).
     */
    @Test
    void aNewClassOrFieldUnderAnOldNameOfARenameIsRefusedAndOldObjectsStillRead() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int", "label", "String"), "");
        withLoader(v1, () -> store(uri, v1, item -> {
            set(item, "count", 3);
            set(item, "label", "old");
        }));
        // v2: the old Item is now Article, and a new, unrelated Item takes its name
        ClassLoader v2 = compile("v2", Map.of("zip", "String"), """
                public class Article extends io.perpetua.testmodel.Base {
                  static { io.perpetua.runtime.PersistentClasses.register(Article.class,
                      () -> new Article((io.perpetua.runtime.HollowFactory) null)); }
                  public int count;
                  public String label;
                  protected Article(io.perpetua.runtime.HollowFactory proxy) { }
                  public String describe() { readCheck(); return "count=" + count + ",label=" + label; }
                  @Override public void $perpetua$write(io.perpetua.runtime.RecordWriter out) {
                    super.$perpetua$write(out); out.writeInt(count); out.writeObject(label); }
                  @Override public void $perpetua$read(io.perpetua.runtime.RecordReader in) {
                    super.$perpetua$read(in); count = in.readInt(); label = (String) in.readObject(); }
                }""");
        declareRenames("v2", "evo.Item = evo.Article\n");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                Object item = store.fetch("item");
                assertEquals("evo.Article", item.getClass().getName());
                assertEquals("count=3,label=old", describe(item));
                store.beginTransaction();
                store.persist(newInstance(v2, "evo.Item"), "new");
                NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
                assertEquals("evo.Item", e.className());
                assertTrue(e.reason().startsWith("its name is declared renamed (evo.Item = evo.Article in"), e.reason());
                store.abortTransaction();
                assertFalse(store.isBound("new"));
            }
            return null;
        });
        // v3 (from v1's store): Item's count is now total, and a new field takes the name count
        String uri3 = TestStores.newUri();
        withLoader(v1, () -> store(uri3, v1, item -> set(item, "count", 5)));
        ClassLoader v3 = compile("v3", Map.of("count", "int", "label", "String", "total", "int"), "");
        declareRenames("v3", "evo.Item#count = total\n");
        withLoader(v3, () -> {
            try (PersistentStore store = TestStores.open(uri3)) {
                Object item = store.fetch("item");
                assertEquals("count=0,label=null,total=5", describe(item));
                store.beginTransaction();
                set(item, "label", "changed");
                NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction);
                assertTrue(e.reason().startsWith("its field evo.Item.count has a name declared renamed (evo.Item#count"
                        + " = total in"), e.reason());
                store.abortTransaction();
            }
            try (PersistentStore store = TestStores.open(uri3)) {
                assertEquals("count=0,label=null,total=5", describe(store.fetch("item")), "the store is as it was");
            }
            return null;
        });
    }

    /**
     * A constant (an object that is the value of a static final field of its class, stored as
     * the field's name) whose field was renamed: an error until the rename is declared, then
     * read as the constant of the new name, itself.
     */
    @Test
    void aRenamedConstantFieldIsReadWhenTheApplicationDeclaresIt() throws Exception {
        String uri = TestStores.newUri();
        String special = """
                public class Special extends Item {
                  static { io.perpetua.runtime.PersistentClasses.register(Special.class,
                      () -> new Special((io.perpetua.runtime.HollowFactory) null)); }
                  public static final Special NAME = new Special();
                  protected Special(io.perpetua.runtime.HollowFactory proxy) { super(proxy); }
                  public Special() { }
                }""";
        ClassLoader v1 = compile("v1", Map.of("other", "Object"), special.replace("NAME", "ONE"));
        withLoader(v1, () -> store(uri, v1, item -> set(item, "other", constant(v1, "ONE"))));
        ClassLoader v2 = compile("v2", Map.of("other", "Object"), special.replace("NAME", "FIRST"));
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> get(store.fetch("item"), "other"));
                assertEquals("ONE", e.fieldName());
            }
            return null;
        });
        declareRenames("v2", "evo.Special#ONE = FIRST\n");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                assertSame(constant(v2, "FIRST"), get(store.fetch("item"), "other"));
            }
            return null;
        });
    }

    private static Object constant(ClassLoader loader, String field) {
        try {
            return loader.loadClass("evo.Special").getField(field).get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void renamesThatContradictRunInACircleOrNameNoFieldAreAClearErrorAtOpen() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int"), "");
        declareRenames("v1", "evo.Old = evo.Item\nevo.Older = evo.Old\n"); // a chain is fine
        withLoader(v1, () -> store(uri, v1, item -> set(item, "count", 3)));
        declareRenames("v1", "evo.A = evo.B\nevo.B = evo.A\n");
        withLoader(v1, () -> {
            PersistentStoreException e = assertThrows(PersistentStoreException.class, () -> TestStores.open(uri));
            assertTrue(e.getMessage().contains("circle"), e.getMessage());
            return null;
        });
        declareRenames("v1", "evo.Item#count = 9lives\n");
        withLoader(v1, () -> {
            PersistentStoreException e = assertThrows(PersistentStoreException.class, () -> TestStores.open(uri));
            assertTrue(e.getMessage().contains("evo.Item#count") && e.getMessage().contains("not a field or enum constant name"),
                    e.getMessage());
            return null;
        });
        Path other = dir.resolve("other-classes/META-INF/perpetua");
        Files.createDirectories(other);
        Files.writeString(other.resolve("renamed-classes.properties"), "evo.A = evo.C\n");
        declareRenames("v1", "evo.A = evo.B\n");
        ClassLoader both = new URLClassLoader(new URL[] {dir.resolve("other-classes").toUri().toURL()}, v1);
        withLoader(both, () -> {
            PersistentStoreException e = assertThrows(PersistentStoreException.class, () -> TestStores.open(uri));
            assertTrue(e.getMessage().contains("evo.A") && e.getMessage().contains("evo.B")
                    && e.getMessage().contains("evo.C"), e.getMessage());
            return null;
        });
        withLoader(v1, () -> { // nothing was lost
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("count=3", describe(store.fetch("item")));
            }
            return null;
        });
    }

    @Test
    void aClassThatIsGoneIsAClearError() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int"), "");
        withLoader(v1, () -> store(uri, v1, item -> set(item, "count", 3)));
        withLoader(new URLClassLoader(new URL[0], getClass().getClassLoader()), () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> store.fetch("item"));
                assertEquals("evo.Item", e.className());
                assertNull(e.fieldName());
            }
            return null;
        });
    }

    /** A stored Class value names its class as a stored object does: renames apply, and a class gone is an error naming it. */
    @Test
    void aClassValueFollowsARenameAndOneWhoseClassIsGoneIsAClearError() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("count", "int", "peers", "Object"), "public class Kind { }");
        withLoader(v1, () -> store(uri, v1, item -> {
            Class<?> type = item.getClass();
            set(item, "peers", new Object[] {type, java.lang.reflect.Array.newInstance(type, 0).getClass()});
        }));
        ClassLoader declared = compile("v3", "Article", Map.of("count", "int", "peers", "Object"), "");
        declareRenames("v3", "evo.Item = evo.Article\n");
        withLoader(declared, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                Object[] peers = (Object[]) get(store.fetch("item"), "peers");
                assertSame(declared.loadClass("evo.Article"), peers[0]);
                assertSame(declared.loadClass("evo.Article").arrayType(), peers[1]);
            }
            return null;
        });

        String other = TestStores.newUri();
        Class<?> kind = v1.loadClass("evo.Kind");
        withLoader(v1, () -> store(other, v1, item -> set(item, "peers", new Object[] {kind})));
        ClassLoader v2 = compile("v2", Map.of("count", "int", "peers", "Object"), "");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(other)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> get(store.fetch("item"), "peers"));
                assertEquals("evo.Kind", e.className());
                assertTrue(e.getMessage().contains("Class value"), e.getMessage());
            }
            return null;
        });
        withLoader(v1, () -> { // nothing was lost
            try (PersistentStore store = TestStores.open(other)) {
                assertSame(kind, ((Object[]) get(store.fetch("item"), "peers"))[0]);
            }
            return null;
        });
    }

    @Test
    void aRemovedEnumConstantIsAClearError() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("size", "Size"), "public enum Size { S, M, L }");
        withLoader(v1, () -> store(uri, v1, item -> set(item, "size", enumConstant(v1, "L"))));
        ClassLoader v2 = compile("v2", Map.of("size", "Size"), "public enum Size { S, M }");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> describe(store.fetch("item")));
                assertEquals("evo.Size", e.className());
                assertEquals("L", e.fieldName());
            }
            return null;
        });
    }

    @Test
    void aRenamedEnumConstantIsReadWhenTheApplicationDeclaresIt() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", Map.of("size", "Size", "sizes", "java.util.Set"), "public enum Size { S, M, L }");
        withLoader(v1, () -> store(uri, v1, item -> {
            set(item, "size", enumConstant(v1, "L"));
            set(item, "sizes", enumSetOf(enumConstant(v1, "S"), enumConstant(v1, "L")));
        }));
        ClassLoader v2 = compile("v2", Map.of("size", "Size", "sizes", "java.util.Set"), "public enum Size { S, M, LARGE }");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> describe(store.fetch("item")));
                assertEquals("L", e.fieldName());
                assertTrue(e.getMessage().contains("evo.Size#L = its new name"), e.getMessage());
            }
            return null;
        });
        declareRenames("v2", "evo.Size#L = LARGE\n");
        withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                assertEquals("size=LARGE,sizes=[S, LARGE]", describe(store.fetch("item"))); // a field and an EnumSet
            }
            return null;
        });
    }

    /**
     * Random changes between two versions of a class (fields kept, removed, added, renamed, of a
     * new kind, and the class renamed), checked against what the rules say each field reads as:
     * its value (converted), its default, or an error naming the first field at fault; then,
     * when it reads, written back under the new layout and read again. 24 rounds of a fixed seed;
     * {@code -Dperpetua.evolution.seed=N} and {@code -Dperpetua.evolution.rounds=N} run others
     * (six seeds of 30 rounds were run when this was written).
     */
    @Test
    void randomLayoutChangesReadAsTheRulesSay() throws Exception {
        long seed = Long.getLong("perpetua.evolution.seed", 20261126L);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < Integer.getInteger("perpetua.evolution.rounds", 24); round++) {
            String where = "seed " + seed + ", round " + round;
            String uri = TestStores.newUri();
            Map<String, String> before = new TreeMap<>();
            Map<String, Object> values = new TreeMap<>();
            for (int f = random.nextInt(1, 7); f > 0; f--) {
                String kind = KINDS[random.nextInt(KINDS.length)];
                before.put("f" + before.size(), kind);
                values.put("f" + (before.size() - 1), randomValue(kind, random));
            }
            ClassLoader v1 = compile("r" + round + "v1", before, "");
            withLoader(v1, () -> store(uri, v1, item -> values.forEach((f, v) -> set(item, f, v))));

            String className = random.nextBoolean() ? "Item" : "Thing";
            StringBuilder renames = new StringBuilder(className.equals("Item") ? "" : "evo.Item = evo.Thing\n");
            Map<String, String> after = new TreeMap<>();
            Map<String, Object> expected = new TreeMap<>(); // by current field: its value, FAILS or CAST_FAILS
            for (Map.Entry<String, String> e : before.entrySet()) {
                int change = random.nextInt(4);
                if (change == 0) {
                    continue; // removed
                }
                String name = e.getKey();
                if (change == 1) {
                    name = "r" + e.getKey().substring(1);
                    renames.append("evo.").append(className).append('#').append(e.getKey()).append(" = ").append(name).append('\n');
                }
                String kind = change == 2 ? KINDS[random.nextInt(KINDS.length)] : e.getValue();
                after.put(name, kind);
                expected.put(name, readAs(values.get(e.getKey()), e.getValue(), kind));
            }
            for (int added = random.nextInt(3); added > 0; added--) {
                String kind = KINDS[random.nextInt(KINDS.length)];
                after.put("a" + added, kind);
                expected.put("a" + added, defaultOf(kind));
            }
            ClassLoader v2 = compile("r" + round + "v2", className, after, "");
            declareRenames("r" + round + "v2", renames.toString());

            String failing = firstFailing(expected);
            withLoader(v2, () -> {
                try (PersistentStore store = TestStores.open(uri)) {
                    if (failing != null) {
                        IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                                () -> describe(store.fetch("item")), where);
                        assertEquals(failing, e.fieldName(), where + ": " + e.getMessage());
                        return null;
                    }
                    Object item = store.fetch("item");
                    assertEquals(describe(after, expected), describe(item), where + ", " + before + " -> " + after);
                    if (!after.isEmpty()) { // written back under the new layout
                        String first = after.keySet().iterator().next();
                        store.inTransaction(() -> set(item, first, expected.get(first)));
                    }
                }
                try (PersistentStore store = TestStores.open(uri)) {
                    assertEquals(describe(after, expected), describe(store.fetch("item")), where + ", written back");
                }
                return null;
            });
            if (failing != null) {
                withLoader(v1, () -> { // nothing was lost
                    try (PersistentStore store = TestStores.open(uri)) {
                        assertEquals(describe(before, values), describe(store.fetch("item")), where + ", after the error");
                    }
                    return null;
                });
            }
        }
    }

    private static final String[] KINDS = {"boolean", "byte", "char", "short", "int", "long", "float", "double",
            "String", "Integer", "Long", "Object"};
    /** What a field expects when its stored value cannot be read as its new kind. */
    private static final Object FAILS = new Object() {
        @Override
        public String toString() {
            return "FAILS";
        }
    };

    private static Object randomValue(String kind, SplittableRandom random) {
        int n = random.nextInt(-100, 100);
        return switch (kind) {
            case "boolean" -> n > 0;
            case "byte" -> (byte) n;
            case "char" -> (char) ('a' + Math.abs(n) % 26);
            case "short" -> (short) (n * 300);
            case "int" -> n * 1_000_003;
            case "long", "Long" -> n * 10_000_000_019L;
            case "float" -> n + 0.25f;
            case "double" -> n + 0.125;
            case "String" -> "s" + n;
            case "Integer" -> n;
            default -> random.nextBoolean() ? (Object) n : "o" + n; // Object
        };
    }

    private static Object defaultOf(String kind) {
        return PRIMITIVES.containsKey(kind) ? RecordDecoder.defaultValue(primitiveCode(kind)) : null;
    }

    private static char primitiveCode(String kind) {
        return switch (kind) {
            case "boolean" -> 'Z';
            case "byte" -> 'B';
            case "char" -> 'C';
            case "short" -> 'S';
            case "int" -> 'I';
            case "long" -> 'J';
            case "float" -> 'F';
            case "double" -> 'D';
            default -> 'L';
        };
    }

    /**
     * The model: what a value stored as one kind reads as under another, written from the
     * language's own conversions rather than from the kernel's code. A primitive reads as a
     * wider primitive when every value of it fits exactly; a box as the primitive it holds, by
     * the same rule; a primitive's box, or a reference, into a reference field if its class fits.
     */
    private static Object readAs(Object v, String from, String to) {
        if (from.equals(to)) {
            return v;
        }
        boolean fromPrimitive = PRIMITIVES.containsKey(from);
        if (!PRIMITIVES.containsKey(to)) { // a reference field: the codec's cast decides
            Class<?> type = switch (to) {
                case "String" -> String.class;
                case "Integer" -> Integer.class;
                case "Long" -> Long.class;
                default -> Object.class;
            };
            return v == null || type.isInstance(v) ? v : CAST_FAILS;
        }
        String held = fromPrimitive ? from : v instanceof Integer ? "int" : v instanceof Long ? "long" : null;
        if (held == null) {
            return FAILS; // a String, null, or another reference into a primitive field
        }
        if (held.equals(to)) {
            return v;
        }
        List<String> exact = switch (held) { // JLS 5.1.2, without the conversions that may round
            case "byte" -> List.of("short", "int", "long", "float", "double");
            case "short", "char" -> List.of("int", "long", "float", "double");
            case "int" -> List.of("long", "double");
            case "float" -> List.of("double");
            default -> List.of();
        };
        if (!exact.contains(to)) {
            return FAILS;
        }
        long asLong = v instanceof Character c ? c : ((Number) v).longValue();
        double asDouble = v instanceof Character c ? c : ((Number) v).doubleValue();
        return switch (to) {
            case "short" -> (short) asLong;
            case "int" -> (int) asLong;
            case "long" -> asLong;
            case "float" -> (float) asDouble;
            default -> asDouble;
        };
    }

    /** What a field expects when its stored value is read but does not fit the field's class. */
    private static final Object CAST_FAILS = new Object() {
        @Override
        public String toString() {
            return "CAST_FAILS";
        }
    };

    /**
     * @return the field the read must name: the first, in layout order, whose value cannot be
     *         converted (found before the object's codec runs); else the first whose value its
     *         codec cannot cast; null if every field reads
     */
    private static String firstFailing(Map<String, Object> expected) {
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            if (e.getValue() == FAILS) {
                return e.getKey();
            }
        }
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            if (e.getValue() == CAST_FAILS) {
                return e.getKey();
            }
        }
        return null;
    }

    /** @return what the generated {@code describe()} prints for these values */
    private static String describe(Map<String, String> fields, Map<String, Object> values) {
        StringBuilder sb = new StringBuilder();
        for (String name : fields.keySet()) {
            sb.append(sb.length() == 0 ? "" : ",").append(name).append('=').append(values.get(name));
        }
        return sb.toString();
    }

    // ---- helpers ----

    interface Body {
        Object run() throws Exception;
    }

    /** Runs {@code body} with {@code loader} as the thread's context class loader: the one a store opened in it reads with. */
    static void withLoader(ClassLoader loader, Body body) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            body.run();
        } finally {
            t.setContextClassLoader(saved);
        }
    }

    private static Object store(String uri, ClassLoader loader, java.util.function.Consumer<Object> init) throws Exception {
        Object item = loader.loadClass("evo.Item").getConstructor().newInstance();
        init.accept(item);
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> store.persist(item, "item"));
        }
        return null;
    }

    /** Writes the renamed classes a compiled version declares, as an application would ship them. */
    private void declareRenames(String version, String properties) throws IOException {
        Path file = dir.resolve(version + "-classes/META-INF/perpetua/renamed-classes.properties");
        Files.createDirectories(file.getParent());
        Files.writeString(file, properties);
    }

    private static Object newInstance(ClassLoader loader, String className) {
        try {
            return loader.loadClass(className).getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Object get(Object item, String field) {
        try {
            return item.getClass().getField(field).get(item);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumSetOf(Object first, Object second) {
        return java.util.EnumSet.of((Enum) first, (Enum) second);
    }

    private static Object enumConstant(ClassLoader loader, String name) {
        try {
            for (Object c : loader.loadClass("evo.Size").getEnumConstants()) {
                if (((Enum<?>) c).name().equals(name)) {
                    return c;
                }
            }
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError(name);
    }

    private static void set(Object item, String field, Object value) {
        try {
            item.getClass().getMethod("set", String.class, Object.class).invoke(item, field, value);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static String describe(Object item) {
        try {
            return (String) item.getClass().getMethod("describe").invoke(item);
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new AssertionError(e);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Each primitive field type: its box and the suffix of its RecordWriter / RecordReader methods. */
    private static final Map<String, String[]> PRIMITIVES = Map.of("boolean", new String[] {"Boolean", "Boolean"},
            "byte", new String[] {"Byte", "Byte"}, "char", new String[] {"Character", "Char"},
            "short", new String[] {"Short", "Short"}, "int", new String[] {"Integer", "Int"},
            "long", new String[] {"Long", "Long"}, "float", new String[] {"Float", "Float"},
            "double", new String[] {"Double", "Double"});

    /**
     * Compiles a version of {@code evo.Item} that implements the persistence protocol exactly
     * as the agent generates it, with the given fields, plus extra top-level types.
     */
    private ClassLoader compile(String version, Map<String, String> fields, String extraType) throws IOException {
        return compile(version, "Item", fields, extraType);
    }

    /** As above, for a class of another simple name in package {@code evo}. */
    private ClassLoader compile(String version, String className, Map<String, String> fields, String extraType)
            throws IOException {
        Path src = dir.resolve(version + "-src/evo");
        Path out = dir.resolve(version + "-classes");
        Files.createDirectories(src);
        Files.createDirectories(out);
        Map<String, String> sorted = new TreeMap<>(fields); // layout order: by name
        StringBuilder decl = new StringBuilder();
        StringBuilder write = new StringBuilder();
        StringBuilder read = new StringBuilder();
        StringBuilder describe = new StringBuilder("readCheck(); return \"\"");
        StringBuilder set = new StringBuilder("writeCheck(); switch (f) {");
        String sep = "";
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            String n = e.getKey();
            String t = e.getValue();
            decl.append("  public ").append(t).append(' ').append(n).append(";\n");
            String[] primitive = PRIMITIVES.get(t); // {box, codec method suffix}
            if (primitive != null) {
                write.append("out.write").append(primitive[1]).append('(').append(n).append(");");
                read.append(n).append(" = in.read").append(primitive[1]).append("();");
            } else {
                write.append("out.writeObject(").append(n).append(");");
                read.append(n).append(" = (").append(t).append(") in.readObject();");
            }
            describe.append(" + \"").append(sep).append(n).append("=\" + ").append(n);
            sep = ",";
            set.append("case \"").append(n).append("\" -> ").append(n).append(" = (")
                    .append(primitive != null ? primitive[0] : t).append(") v;");
        }
        set.append("default -> throw new IllegalArgumentException(f); }");
        String source = "package evo;\n"
                + "import io.perpetua.runtime.*;\n"
                + "public class " + className + " extends io.perpetua.testmodel.Base {\n"
                + "  static { PersistentClasses.register(" + className + ".class, () -> new " + className + "((HollowFactory) null)); }\n"
                + decl
                + "  protected " + className + "(HollowFactory proxy) { }\n"
                + "  public " + className + "() { }\n"
                + "  public String describe() { " + describe + "; }\n"
                + "  public void set(String f, Object v) { " + set + " }\n"
                + "  @Override public void $perpetua$write(RecordWriter out) { super.$perpetua$write(out); " + write + " }\n"
                + "  @Override public void $perpetua$read(RecordReader in) { super.$perpetua$read(in); " + read + " }\n"
                + "}\n";
        Files.writeString(src.resolve(className + ".java"), source);
        List<String> args = new ArrayList<>(List.of("-d", out.toString(), "-cp", System.getProperty("java.class.path"),
                src.resolve(className + ".java").toString()));
        if (!extraType.isEmpty()) {
            String name = extraType.replaceAll("(?s).*?(?:class|enum|record|interface)\\s+(\\w+).*", "$1");
            Files.writeString(src.resolve(name + ".java"), "package evo;\n" + extraType + "\n");
            args.add(src.resolve(name + ".java").toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "compiles");
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
    }
}
