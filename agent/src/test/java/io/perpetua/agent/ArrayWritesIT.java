package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.AGENT;
import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arrays changed in place, every way a program can, are committed, in forked JVMs with the real
 * {@code -javaagent} on the embedded default store. With the agent rewriting every class, a commit
 * compares only the arrays logged as written (the array write barrier), so a change the log missed
 * would be lost: each kind of array store, {@code System.arraycopy}, {@code Arrays.fill} and
 * {@code sort}, {@code String.getChars}, {@code Collection.toArray}, a stream's {@code read},
 * {@code java.lang.reflect.Array.setInt}, a method reference to {@code Arrays::fill}, a store from
 * another thread, a new persistent object stored into an array, and arrays that JDK objects keep
 * and write in a later transaction ({@code Arrays.asList}, {@code ByteBuffer.wrap}, one wrapped
 * before it became persistent). An abort puts a logged array back. A third JVM reads it all back.
 * Each array sits in an object of its own, so a missed change shows as a lost one.
 * The same program with an include list (the agent then leaves classes unrewritten, and the kernel
 * compares every resident array) stores the same.
 */
class ArrayWritesIT {
    /**
     * Each array sits in a box of its own (a record of its own), so that a change the log
     * missed is not saved by accident with another array of the same record.
     */
    private static final String HOLDER = """
            package arrays;
            import java.util.Arrays;
            public class Holder {
                Box ints = Box.of(new int[] {1, 2, 3});
                Box longs = new Box();
                Box bytes = Box.of(new byte[] {1, 2, 3, 4});
                Box flags = new Box();
                Box chars = Box.of(new char[] {'a', 'b', 'c'});
                Box shorts = new Box();
                Box floats = new Box();
                Box doubles = new Box();
                Box names = Box.of(new String[] {"a", "b", "c"});
                Box grid = new Box();
                Box copied = Box.of(new int[4]);
                Box filled = Box.of(new int[3]);
                Box sorted = Box.of(new String[] {"c", "a", "b"});
                Box viaList = Box.of(new String[] {"x", "y"});
                Box buffer = Box.of(new byte[4]);
                Box late = new Box();
                Box fromString = Box.of(new char[3]);
                Box viaRef = Box.of(new int[2]);
                Box viaReflect = Box.of(new int[2]);
                Box viaToArray = Box.of(new String[2]);
                Box viaStream = Box.of(new byte[3]);
                Box viaThread = Box.of(new int[1]);
                Box aborted = Box.of(new int[] {5});
                Box nodes = new Box();

                Holder() {
                    longs.l = new long[] {1, 2};
                    flags.z = new boolean[2];
                    shorts.s = new short[] {1, 2};
                    floats.f = new float[] {1f};
                    doubles.d = new double[] {1d};
                    grid.g = new int[][] {{1, 2}, {3, 4}};
                    nodes.n = new Node[] {new Node("n1"), new Node("n2")};
                }

                String describe() {
                    return Arrays.toString(ints.i) + Arrays.toString(longs.l) + Arrays.toString(bytes.b)
                            + Arrays.toString(flags.z) + Arrays.toString(chars.c) + Arrays.toString(shorts.s)
                            + Arrays.toString(floats.f) + Arrays.toString(doubles.d) + Arrays.toString(names.t)
                            + Arrays.deepToString(grid.g) + "\\n"
                            + Arrays.toString(copied.i) + Arrays.toString(filled.i) + Arrays.toString(sorted.t)
                            + Arrays.toString(viaList.t) + Arrays.toString(buffer.b) + Arrays.toString(late.b)
                            + Arrays.toString(fromString.c) + Arrays.toString(viaRef.i) + Arrays.toString(viaReflect.i)
                            + Arrays.toString(viaToArray.t) + Arrays.toString(viaStream.b) + Arrays.toString(viaThread.i)
                            + Arrays.toString(aborted.i) + nodes.n[0].name + nodes.n[1].name;
                }
            }
            """;

    private static final String BOX = """
            package arrays;
            public class Box {
                int[] i; long[] l; byte[] b; boolean[] z; char[] c; short[] s; float[] f; double[] d;
                String[] t; int[][] g; Node[] n;
                static Box of(int[] a) { Box x = new Box(); x.i = a; return x; }
                static Box of(byte[] a) { Box x = new Box(); x.b = a; return x; }
                static Box of(char[] a) { Box x = new Box(); x.c = a; return x; }
                static Box of(String[] a) { Box x = new Box(); x.t = a; return x; }
            }
            """;

    private static final String NODE = """
            package arrays;
            public class Node {
                String name;
                Node(String name) { this.name = name; }
            }
            """;

    private static final String MAIN = """
            package arrays;
            import io.perpetua.PersistentStore;
            import java.nio.ByteBuffer;
            import java.util.Arrays;
            import java.util.List;
            import java.util.function.BiConsumer;
            public class Main {
                public static void main(String[] args) throws Exception {
                    try (PersistentStore store = PersistentStore.open(java.nio.file.Path.of(args[1]))) {
                        switch (args[0]) {
                            case "build" -> {
                                store.beginTransaction();
                                store.persist(new Holder(), "h");
                                store.commitTransaction();
                            }
                            case "change" -> change(store);
                            case "read" -> System.out.println(store.fetch("h", Holder.class).describe());
                            default -> throw new IllegalArgumentException(args[0]);
                        }
                    }
                }

                static void change(PersistentStore store) throws Exception {
                    store.beginTransaction();
                    Holder h = store.fetch("h", Holder.class);
                    h.ints.i[0] = 10;
                    h.longs.l[1] = 20;
                    h.bytes.b[2] = 30;
                    h.flags.z[1] = true;
                    h.chars.c[0] = 'z';
                    h.shorts.s[0] = -5;
                    h.floats.f[0] = 2.5f;
                    h.doubles.d[0] = 3.5;
                    h.names.t[2] = "C";
                    h.grid.g[1][0] = 30;
                    System.arraycopy(new int[] {9, 8, 7, 6}, 0, h.copied.i, 0, 4);
                    Arrays.fill(h.filled.i, 7);
                    Arrays.sort(h.sorted.t);
                    List<String> view = Arrays.asList(h.viaList.t);
                    ByteBuffer wrapped = ByteBuffer.wrap(h.buffer.b);
                    byte[] late = new byte[2];
                    ByteBuffer lateWrapped = ByteBuffer.wrap(late);
                    h.late.b = late;
                    "hey".getChars(0, 3, h.fromString.c, 0);
                    BiConsumer<int[], Integer> fill = Arrays::fill;
                    fill.accept(h.viaRef.i, 4);
                    java.lang.reflect.Array.setInt(h.viaReflect.i, 1, 8);
                    List.of("p", "q").toArray(h.viaToArray.t);
                    new java.io.ByteArrayInputStream(new byte[] {5, 6, 7}).read(h.viaStream.b);
                    Thread t = new Thread(() -> h.viaThread.i[0] = 42);
                    t.start();
                    t.join();
                    h.nodes.n[0] = new Node("n3");
                    store.commitTransaction();

                    // JDK objects that kept the arrays write them now, in a later transaction
                    store.beginTransaction();
                    view.set(0, "X");
                    wrapped.put(0, (byte) 9);
                    lateWrapped.put(1, (byte) 7);
                    store.commitTransaction();

                    store.beginTransaction();
                    h.aborted.i[0] = 6;
                    store.abortTransaction();
                    System.out.println("aborted " + h.aborted.i[0] + ", compared " + store.statistics().comparedContainers());
                }
            }
            """;

    private static final String EXPECTED = "[10, 2, 3][1, 20][1, 2, 30, 4][false, true][z, b, c][-5, 2][2.5][3.5]"
            + "[a, b, C][[1, 2], [30, 4]]\n"
            + "[9, 8, 7, 6][7, 7, 7][a, b, c][X, y][9, 0, 0, 0][0, 7][h, e, y][4, 4][0, 8][p, q][5, 6, 7][42][5]n3n2\n";

    @Test
    void everyWayOfChangingAnArrayIsCommitted(@TempDir Path dir) throws Exception {
        Path classes = compile(dir);

        String tracked = dir.resolve("tracked").toString();
        assertOut("", run(classes, "", "build", tracked));
        // only the three arrays JDK objects keep are compared at every commit
        assertOut("aborted 5, compared 3\n", run(classes, "", "change", tracked));
        assertOut(EXPECTED, run(classes, "", "read", tracked));

        String compared = dir.resolve("compared").toString();
        assertOut("", run(classes, "include=arrays", "build", compared));
        Run change = run(classes, "include=arrays", "change", compared);
        assertEquals(0, change.exit(), change::toString);
        assertTrue(change.out().startsWith("aborted 5, compared "), change::toString);
        int all = Integer.parseInt(change.out().substring("aborted 5, compared ".length()).trim());
        assertTrue(all > 20, change::toString); // every non-empty resident array
        assertOut(EXPECTED, run(classes, "include=arrays", "read", compared));
    }

    private static void assertOut(String expected, Run run) {
        assertEquals(0, run.exit(), run::toString);
        assertEquals(expected, run.out(), run::toString);
    }

    private static Run run(Path classes, String options, String mode, String store) throws Exception {
        String cp = String.join(File.pathSeparator, classes.toString(), jarOnTestClassPath("perpetua-store-rocksdb"),
                jarOnTestClassPath("rocksdbjni"));
        return ForkedJvm.java(JDK17, List.of(agent(options.isEmpty() ? "failFast" : "failFast," + options)), cp, 180,
                "arrays.Main", mode, store);
    }

    private static Path compile(Path dir) throws Exception {
        Path src = dir.resolve("src/arrays");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Holder.java"), HOLDER);
        Files.writeString(src.resolve("Node.java"), NODE);
        Files.writeString(src.resolve("Box.java"), BOX);
        Files.writeString(src.resolve("Main.java"), MAIN);
        Path out = dir.resolve("classes");
        Process p = new ProcessBuilder(JDK17.resolve("bin/javac").toString(), "--release", "17", "-cp", AGENT.toString(),
                "-d", out.toString(), src.resolve("Holder.java").toString(), src.resolve("Node.java").toString(),
                src.resolve("Box.java").toString(), src.resolve("Main.java").toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "javac finished");
        assertEquals(0, p.exitValue(), output);
        return out;
    }
}
