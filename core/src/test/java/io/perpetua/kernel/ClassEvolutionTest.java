package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
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
import java.util.TreeMap;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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

    // ---- helpers ----

    private interface Body {
        Object run() throws Exception;
    }

    private static void withLoader(ClassLoader loader, Body body) throws Exception {
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
        Function<String, String> box = t -> switch (t) {
            case "int" -> "Integer";
            case "long" -> "Long";
            default -> t;
        };
        String sep = "";
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            String n = e.getKey();
            String t = e.getValue();
            decl.append("  public ").append(t).append(' ').append(n).append(";\n");
            switch (t) {
                case "int" -> {
                    write.append("out.writeInt(").append(n).append(");");
                    read.append(n).append(" = in.readInt();");
                }
                case "long" -> {
                    write.append("out.writeLong(").append(n).append(");");
                    read.append(n).append(" = in.readLong();");
                }
                default -> {
                    write.append("out.writeObject(").append(n).append(");");
                    read.append(n).append(" = (").append(t).append(") in.readObject();");
                }
            }
            describe.append(" + \"").append(sep).append(n).append("=\" + ").append(n);
            sep = ",";
            set.append("case \"").append(n).append("\" -> ").append(n).append(" = (").append(box.apply(t)).append(") v;");
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
            String name = extraType.replaceAll(".*(?:class|enum|record|interface)\\s+(\\w+).*", "$1");
            Files.writeString(src.resolve(name + ".java"), "package evo;\n" + extraType + "\n");
            args.add(src.resolve(name + ".java").toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "compiles");
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
    }
}
