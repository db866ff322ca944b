package io.perpetua.kernel;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.ToolProvider;
import java.lang.reflect.Array;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Values whose record names a class by its name alone (an enum constant, an {@code EnumSet} or
 * {@code EnumMap}, a constant, an array, an exception stored by its serialization) are refused
 * at commit when the store's class loader does not find that class by its name, as objects of
 * rewritten classes and records are: stored, they could never be read back (a plug-in's class,
 * the store opened from the application's loader), or would be read back as another class of
 * that name (two copies of a plug-in).
 */
class ForeignClassesTest {
    @TempDir
    Path dir;

    @Test
    void aValueNamingAClassTheStoresLoaderDoesNotFindIsRefusedAtCommitAndNothingIsLost() throws Exception {
        ClassLoader plugin = plugin("a");
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) { // this test's loader: it does not see plug.*
            store.inTransaction(() -> store.persist(new Node("root"), "root"));
            Node root = store.fetch("root", Node.class);
            for (Map.Entry<String, Object> v : values(plugin).entrySet()) {
                store.beginTransaction();
                root.any(v.getValue());
                NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction,
                        v.getKey());
                assertTrue(e.path().startsWith("\"root\".any"), v.getKey() + ": " + e.getMessage());
                assertTrue(e.reason().contains("the class plug.") && e.reason().contains("does not find it")
                        && e.reason().contains("open the store with the thread's context class loader set to a loader"
                                + " that sees it"), v.getKey() + ": " + e.getMessage());
                store.abortTransaction();
            }
        }
        try (PersistentStore store = TestStores.open(uri)) { // nothing the store cannot read was committed
            assertEquals(null, store.fetch("root", Node.class).any());
        }
    }

    @Test
    void aValueOfAnotherCopyOfAClassIsRefusedAndOneOfTheStoresLoaderIsReadBackAsItself() throws Exception {
        ClassLoader a = plugin("a");
        ClassLoader b = plugin("b");
        String uri = TestStores.newUri();
        ClassEvolutionTest.withLoader(a, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                store.inTransaction(() -> store.persist(new Node("root"), "root"));
                Node root = store.fetch("root", Node.class);
                for (Map.Entry<String, Object> v : values(b).entrySet()) {
                    store.beginTransaction();
                    root.any(v.getValue());
                    NotPersistableException e = assertThrows(NotPersistableException.class, store::commitTransaction,
                            v.getKey());
                    assertTrue(e.reason().contains("finds another class of that name"), v.getKey() + ": " + e.getMessage());
                    store.abortTransaction();
                }
                Map<String, Object> ofA = values(a);
                store.inTransaction(() -> root.any(new java.util.ArrayList<>(ofA.values())));
            }
            try (PersistentStore store = TestStores.open(uri)) {
                List<?> back = (List<?>) store.fetch("root", Node.class).any();
                Class<?> color = a.loadClass("plug.Color");
                assertSame(color.getEnumConstants()[1], back.get(0));
                assertEquals(EnumSet.allOf(color.asSubclass(Enum.class)), back.get(1));
                assertSame(color, ((EnumMap<?, ?>) back.get(2)).keySet().iterator().next().getClass());
                assertSame(a.loadClass("plug.Unit").getField("KG").get(null), back.get(3));
                assertSame(a.loadClass("plug.Part"), back.get(4).getClass().getComponentType());
                assertSame(a.loadClass("plug.PluginEx"), back.get(5).getClass());
                assertSame(a.loadClass("plug.PluginEx"), ((Throwable) back.get(6)).getCause().getClass());
            }
            return null;
        });
    }

    /** @return a value of each kind that names a class of {@code plugin}, by what it is */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<String, Object> values(ClassLoader plugin) throws Exception {
        Class<? extends Enum> color = (Class<? extends Enum>) plugin.loadClass("plug.Color");
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("enum constant", color.getEnumConstants()[1]);
        values.put("EnumSet", EnumSet.allOf(color));
        EnumMap map = new EnumMap(color);
        map.put(color.getEnumConstants()[0], "red");
        values.put("EnumMap", map);
        values.put("constant", plugin.loadClass("plug.Unit").getField("KG").get(null));
        values.put("array of nulls", Array.newInstance(plugin.loadClass("plug.Part"), 2));
        Class<?> ex = plugin.loadClass("plug.PluginEx");
        values.put("exception", ex.getConstructor(String.class).newInstance("boom"));
        values.put("JDK exception caused by one of the plug-in",
                new IllegalStateException((Throwable) ex.getConstructor(String.class).newInstance("cause")));
        return values;
    }

    /** @return a plug-in's class loader (a child of this test's), over classes compiled here */
    private ClassLoader plugin(String name) throws Exception {
        Path src = Files.createDirectories(dir.resolve(name + "-src/plug"));
        Path out = Files.createDirectories(dir.resolve(name + "-classes"));
        Map<String, String> sources = Map.of(
                "Color", "public enum Color { RED, GREEN }",
                "Part", "public class Part { }",
                "PluginEx", "public class PluginEx extends RuntimeException {"
                        + " public PluginEx(String m) { super(m); } }",
                "Unit", """
                        public class Unit extends io.perpetua.testmodel.Base {
                          static { io.perpetua.runtime.PersistentClasses.register(Unit.class,
                              () -> new Unit((io.perpetua.runtime.HollowFactory) null)); }
                          public static final Unit KG = new Unit();
                          protected Unit(io.perpetua.runtime.HollowFactory proxy) { }
                          private Unit() { }
                        }""");
        List<String> args = new java.util.ArrayList<>(List.of("-d", out.toString(), "-cp",
                System.getProperty("java.class.path")));
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Path file = src.resolve(e.getKey() + ".java");
            Files.writeString(file, "package plug;\n" + e.getValue() + "\n");
            args.add(file.toString());
        }
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, args.toArray(String[]::new)));
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
    }
}
