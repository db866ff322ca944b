package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.AGENT;
import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application upgrade, as users meet it: version 1 of a program, run with the real
 * {@code -javaagent}, stores objects in the embedded default store (RocksDB, a path with no
 * scheme); later versions of the same class, compiled anew and run in new JVMs, read them. An
 * added field reads as its default and a removed one is dropped; fields pulled up into a new
 * superclass, and pushed down again, keep their values; a renamed class and field are read
 * under their new names once the application declares the renames; an {@code int} become a
 * {@code long} is widened; a field whose stored value may no longer fit (a {@code long} become an
 * {@code int}, a {@code String} an {@code Integer}, a {@code String[]} an {@code Integer[]}) is an
 * error naming the class and the field, and the store loses nothing.
 */
class ClassEvolutionIT {
    /** The program: {@code build} stores two linked items, {@code read} prints them, {@code bump} sets a field and commits. */
    private static final String MAIN = """
            package shop;
            import io.perpetua.IncompatibleClassChangeException;
            import io.perpetua.PersistentStore;
            public class Main {
                public static void main(String[] args) {
                    try (PersistentStore store = PersistentStore.open(java.nio.file.Path.of(args[1]))) {
                        switch (args[0]) {
                            case "build" -> {
                                store.beginTransaction();
                                store.persist(Item.build(), "item");
                                store.commitTransaction();
                            }
                            case "read" -> System.out.println(store.fetch("item", Item.class).describe());
                            case "bump" -> {
                                store.beginTransaction();
                                store.fetch("item", Item.class).bump();
                                store.commitTransaction();
                            }
                            default -> throw new IllegalArgumentException(args[0]);
                        }
                    } catch (IncompatibleClassChangeException e) {
                        System.out.println("incompatible " + e.className() + " " + e.fieldName());
                        System.exit(3);
                    }
                }
            }
            """;

    private static final String V1 = """
            package shop;
            import java.util.ArrayList;
            import java.util.List;
            public class Item {
                int count;
                String label;
                String note;
                List<String> tags = new ArrayList<>();
                String[] codes = {"x", "y"};
                Point at = new Point(1, 2);
                Item next;
                record Point(int x, int y) { }
                static Item build() {
                    Item a = new Item();
                    a.count = 3;
                    a.label = "first";
                    a.note = "dropped in v2";
                    a.tags.add("red");
                    a.next = new Item();
                    a.next.count = 4;
                    a.next.label = "second";
                    return a;
                }
                void bump() { count++; }
                String describe() {
                    return count + " " + label + " " + note + " " + tags + " " + String.join("", codes) + " -> " + next.count + " " + next.label + " " + at;
                }
            }
            """;

    /** Version 2: {@code note} removed, {@code added} added. */
    private static final String V2 = """
            package shop;
            import java.util.ArrayList;
            import java.util.List;
            public class Item {
                long added;
                int count;
                String label;
                List<String> tags = new ArrayList<>();
                String[] codes;
                Point at;
                Item next;
                record Point(long x, int y, int z) { } // x widened, z added
                static Item build() { throw new UnsupportedOperationException(); }
                void bump() { added += 10; next.added += 20; }
                String describe() {
                    return count + " " + label + " " + tags + " " + codes.length + " " + added + " -> " + next.count + " " + next.label + " " + next.added + " " + at;
                }
            }
            """;

    @Test
    void fieldsAddedAndRemovedEvolveAndIncompatibleChangesNameTheFieldAndLoseNothing(@TempDir Path dir) throws Exception {
        String store = dir.resolve("store").toString();
        Path v1 = compile(dir, "v1", V1);
        Path v2 = compile(dir, "v2", V2);
        Path countIsLong = compile(dir, "count-long", V2.replace("int count;", "long count;"));
        Path addedIsInt = compile(dir, "added-int", V2.replace("long added;", "int added;")
                .replace("added += 10; next.added += 20;", ""));
        Path labelIsInteger = compile(dir, "label-integer", V2.replace("String label;", "Integer label;"));
        Path codesAreIntegers = compile(dir, "codes-integers", V2.replace("String[] codes;", "Integer[] codes;"));
        // count and label pulled up into a new superclass: their values follow them
        Path pulledUp = compile(dir, "pulled-up", V2.replace("public class Item {", "public class Item extends Base {")
                .replace("int count;", "").replace("String label;", ""),
                "package shop; public class Base { int count; String label; }");

        assertOut("", run(v1, "build", store));
        assertOut("3 first dropped in v2 [red] xy -> 4 second Point[x=1, y=2]\n", run(v1, "read", store));

        assertOut("3 first [red] 2 0 -> 4 second 0 Point[x=1, y=2, z=0]\n", run(v2, "read", store));
        assertOut("", run(v2, "bump", store)); // written back under version 2's layout
        assertOut("3 first [red] 2 10 -> 4 second 20 Point[x=1, y=2, z=0]\n", run(v2, "read", store));

        assertOut("3 first [red] 2 10 -> 4 second 20 Point[x=1, y=2, z=0]\n", run(countIsLong, "read", store)); // widened
        Run kind = run(addedIsInt, "read", store); // narrowed: a long may not fit
        assertEquals(3, kind.exit(), kind::toString);
        assertEquals("incompatible shop.Item added\n", kind.out(), kind::toString);
        Run type = run(labelIsInteger, "read", store);
        assertEquals(3, type.exit(), type::toString);
        assertEquals("incompatible shop.Item label\n", type.out(), type::toString);
        Run array = run(codesAreIntegers, "read", store); // an array field, read lazily on first touch
        assertEquals(3, array.exit(), array::toString);
        assertEquals("incompatible shop.Item codes\n", array.out(), array::toString);

        assertOut("3 first [red] 2 10 -> 4 second 20 Point[x=1, y=2, z=0]\n", run(v2, "read", store)); // nothing lost
        String copy = dir.resolve("store-copy").toString(); // for the renames below, as version 2 left it
        copyDirectory(Path.of(store), Path.of(copy));

        assertOut("3 first [red] 2 10 -> 4 second 20 Point[x=1, y=2, z=0]\n", run(pulledUp, "read", store));
        assertOut("", run(pulledUp, "bump", store)); // written back with the fields in Base
        assertOut("3 first [red] 2 20 -> 4 second 40 Point[x=1, y=2, z=0]\n", run(pulledUp, "read", store));
        assertOut("3 first [red] 2 20 -> 4 second 40 Point[x=1, y=2, z=0]\n", run(v2, "read", store)); // and pushed down again

        // shop.Item renamed shop.Article, and its field label renamed title: an error until the
        // application declares it
        Path renamed = compileClass(dir, "renamed", "Article",
                V2.replaceAll("\\bItem\\b", "Article").replaceAll("\\blabel\\b", "title"),
                MAIN.replaceAll("\\bItem\\b", "Article"));
        Run undeclared = run(renamed, "read", copy);
        assertEquals(3, undeclared.exit(), undeclared::toString);
        assertEquals("incompatible shop.Item null\n", undeclared.out(), undeclared::toString);
        Path declaration = renamed.resolve("META-INF/perpetua/renamed-classes.properties");
        Files.createDirectories(declaration.getParent());
        Files.writeString(declaration, "shop.Item = shop.Article\nshop.Article#label = title\n");
        assertOut("3 first [red] 2 10 -> 4 second 20 Point[x=1, y=2, z=0]\n", run(renamed, "read", copy));
        assertOut("", run(renamed, "bump", copy)); // written back under the new names
        assertOut("3 first [red] 2 20 -> 4 second 40 Point[x=1, y=2, z=0]\n", run(renamed, "read", copy));
    }

    /**
     * A small object stored inside its owner's record (a satellite), whose class has gained an
     * array field since: a change to another field, with the array never read, is written with
     * the array's stored value. It was a failed commit ("holds its lazy marker but has no stored
     * value"), every time, until the array was read.
     */
    @Test
    void aSatelliteWhoseClassGainedAnArrayFieldIsStillWritten(@TempDir Path dir) throws Exception {
        String store = dir.resolve("store").toString();
        String v1 = """
                package shop;
                import java.util.ArrayList;
                import java.util.List;
                public class Item {
                    List<Leaf> leaves = new ArrayList<>();
                    static class Leaf { int v; }
                    static Item build() {
                        Item a = new Item();
                        for (int i = 0; i < 2; i++) {
                            Leaf l = new Leaf();
                            l.v = i;
                            a.leaves.add(l);
                        }
                        return a;
                    }
                    void bump() { leaves.get(0).v += 10; }
                    String describe() { return leaves.get(0).v + " " + leaves.get(1).v; }
                }
                """;
        String v2 = v1.replace("static class Leaf { int v; }", "static class Leaf { int v; int[] arr; }")
                // the first bump gives both an array; the next changes leaf 0's int only, reading leaf 1's array
                .replace("void bump() { leaves.get(0).v += 10; }", """
                        void bump() {
                            if (leaves.get(1).arr == null) {
                                leaves.get(0).arr = new int[] {7};
                                leaves.get(1).arr = new int[] {8};
                            } else {
                                leaves.get(0).v += 10;
                            }
                        }""")
                .replace("return leaves.get(0).v + \" \" + leaves.get(1).v;",
                        "return leaves.get(0).v + \" \" + leaves.get(1).v + \" \" + java.util.Arrays.toString(leaves.get(0).arr)"
                                + " + java.util.Arrays.toString(leaves.get(1).arr);");
        Path first = compile(dir, "sat-v1", v1);
        Path second = compile(dir, "sat-v2", v2);
        assertOut("", run(first, "build", store));
        assertOut("", run(second, "bump", store));
        assertOut("", run(second, "bump", store));
        assertOut("10 1 [7][8]\n", run(second, "read", store));
    }

    /**
     * A field removed together with its class (and one of an enum removed with it) is dropped
     * as any removed field is: its stored value is stepped over, not read, so nothing asks for
     * the class; the object reads, changes and commits under its new layout.
     */
    @Test
    void aFieldRemovedWithItsClassIsDropped(@TempDir Path dir) throws Exception {
        String store = dir.resolve("store").toString();
        String v1 = """
                package shop;
                public class Item {
                    String name = "tea";
                    Coupon coupon = new Coupon();
                    Kind kind = Kind.OLD;
                    int qty = 2;
                    static class Coupon { int percent = 10; }
                    enum Kind { OLD }
                    static Item build() { return new Item(); }
                    void bump() { qty++; }
                    String describe() { return name + " " + qty + " " + coupon.percent + " " + kind; }
                }
                """;
        String v2 = """
                package shop;
                public class Item {
                    String name;
                    int qty;
                    static Item build() { throw new UnsupportedOperationException(); }
                    void bump() { qty++; }
                    String describe() { return name + " " + qty; }
                }
                """;
        assertOut("", run(compile(dir, "gone-v1", v1), "build", store));
        Path second = compile(dir, "gone-v2", v2);
        assertOut("tea 2\n", run(second, "read", store));
        assertOut("", run(second, "bump", store));
        assertOut("tea 3\n", run(second, "read", store));
    }

    private static void copyDirectory(Path from, Path to) throws Exception {
        try (var files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        }
    }

    private static void assertOut(String expected, Run run) {
        assertEquals(0, run.exit(), run::toString);
        assertEquals(expected, run.out(), run::toString);
    }

    private static Run run(Path classes, String mode, String store) throws Exception {
        String cp = String.join(File.pathSeparator, classes.toString(), jarOnTestClassPath("perpetua-store-rocksdb"),
                jarOnTestClassPath("rocksdbjni"));
        return ForkedJvm.java(JDK17, List.of(agent("failFast")), cp, 180, "shop.Main", mode, store);
    }

    /**
     * Compiles one version of {@code shop.Item} with the program, against the API in the agent
     * jar, and a superclass {@code shop.Base} if one is given.
     */
    private static Path compile(Path dir, String version, String item, String... base) throws Exception {
        return compileClass(dir, version, "Item", item, MAIN, base);
    }

    /** As above, for a class of another simple name and a program that uses it. */
    private static Path compileClass(Path dir, String version, String className, String item, String main, String... base)
            throws Exception {
        Path src = dir.resolve(version + "-src/shop");
        Files.createDirectories(src);
        Files.writeString(src.resolve(className + ".java"), item);
        Files.writeString(src.resolve("Main.java"), main);
        Path out = dir.resolve(version + "-classes");
        List<String> cmd = new ArrayList<>(List.of(JDK17.resolve("bin/javac").toString(), "--release", "17",
                "-cp", AGENT.toString(), "-d", out.toString(),
                src.resolve(className + ".java").toString(), src.resolve("Main.java").toString()));
        for (String b : base) {
            Files.writeString(src.resolve("Base.java"), b);
            cmd.add(src.resolve("Base.java").toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "javac finished");
        assertEquals(0, p.exitValue(), output);
        return out;
    }
}
