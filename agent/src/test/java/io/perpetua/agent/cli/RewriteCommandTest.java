package io.perpetua.agent.cli;

import io.perpetua.agent.TooBig;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code java -jar perpetua-agent.jar rewrite} in process ({@link Main#run}): the test corpus
 * (compiled by javac into the test class path) is copied to a temporary directory, rewritten in
 * place, verified by ASM's {@code CheckClassAdapter}, compared byte for byte with what the agent
 * produces at load time, and run without any agent. The forked-JVM runs of the real jar are in
 * {@code RewriteCommandIT}.
 */
class RewriteCommandTest {
    @TempDir
    Path dir;

    private record Run(int status, String out, String err) {
        @Override
        public String toString() {
            return "status " + status + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private static Run rewrite(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> command = new ArrayList<>(List.of("rewrite"));
        command.addAll(List.of(args));
        int status = Main.run(command.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Path testClasses() throws Exception {
        return Path.of(RewriteCommandTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Copies the compiled corpus (or one package of it) into {@code target}. */
    private static void copyCorpus(String pkg, Path target) throws Exception {
        Path from = testClasses();
        try (Stream<Path> files = Files.walk(from.resolve(pkg.replace('.', '/')))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path to = target.resolve(from.relativize(f).toString());
                Files.createDirectories(to.getParent());
                Files.copy(f, to);
            }
        }
    }

    private static Map<String, byte[]> classFiles(Path root) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = root.relativize(f).toString().replace(File.separatorChar, '/');
                files.put(name.substring(0, name.length() - ".class".length()), Files.readAllBytes(f));
            }
        }
        return files;
    }

    @Test
    void rewritesTheDirectoryInPlaceExactlyAsTheAgentDoesAtLoadTime() throws Exception {
        copyCorpus("corpus", dir);
        Map<String, byte[]> originals = classFiles(dir);
        Run run = rewrite("--verbose", dir.toString());
        assertEquals(Main.OK, run.status, run::toString);
        assertFalse(run.err.contains("FAILED"), run::toString);
        assertTrue(run.err.contains("[perpetua] rewritten corpus.shapes.Square: persistent-capable, below"
                + " corpus.shapes.Polygon"), run::toString);
        assertTrue(run.err.contains("[perpetua] skipped corpus.refused.Worker: extends java.lang.Thread"), run::toString);
        assertTrue(run.out.contains("0 failed"), run::toString);
        // one line per class, as the agent reports
        assertEquals(originals.size(), run.err.lines().filter(l -> l.startsWith("[perpetua] rewritten ")
                || l.startsWith("[perpetua] skipped ")).count(), run::toString);

        Map<String, byte[]> rewritten = classFiles(dir);
        assertEquals(originals.keySet(), rewritten.keySet(), "no file added or lost");
        assertFalse(java.util.Arrays.equals(originals.get("corpus/shapes/Shape"), rewritten.get("corpus/shapes/Shape")));
        assertArrayEquals(originals.get("corpus/refused/Worker"), rewritten.get("corpus/refused/Worker"),
                "a refused class without field accesses to redirect is left as it was");

        // Loaded from the directory, with no agent: persistent-capable, valid, and behaving as the originals.
        ChildFirstLoader built = ChildFirstLoader.fromDirectory("corpus.", dir);
        for (String scenario : List.of("corpus.shapes.Scenario", "corpus.access.Scenario")) {
            assertEquals(Class.forName(scenario).getMethod("run").invoke(null), built.callStatic(scenario, "run"));
        }
        assertTrue(Persistent.class.isAssignableFrom(built.load("corpus.shapes.Square")));
        assertTrue(Persistent.class.isAssignableFrom(built.load("corpus.graph.Part")));
        StringBuilder problems = new StringBuilder();
        for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
            StringWriter sw = new StringWriter();
            CheckClassAdapter.verify(new ClassReader(e.getValue()), built, false, new PrintWriter(sw));
            if (!sw.toString().isBlank()) {
                problems.append(e.getKey()).append(":\n").append(sw);
            }
        }
        assertEquals("", problems.toString());

        // The agent's transformer, at load time, on the originals, produces the same bytes.
        ChildFirstLoader agent = ChildFirstLoader.underTheAgent("corpus.");
        for (String name : rewritten.keySet()) {
            agent.load(name.replace('/', '.'));
        }
        assertEquals(List.of(), agent.failed);
        assertEquals(rewritten.keySet(), agent.defined.keySet());
        for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
            assertArrayEquals(agent.defined.get(e.getKey()), e.getValue(), e.getKey());
        }
    }

    @Test
    void aSecondRunChangesNothing() throws Exception {
        copyCorpus("corpus", dir);
        Run first = rewrite(dir.toString());
        assertEquals(Main.OK, first.status, first::toString);
        assertEquals("", first.err, "not verbose: nothing but failures is printed per class");
        Map<String, byte[]> once = classFiles(dir);

        Run second = rewrite("--verbose", dir.toString());
        assertEquals(Main.OK, second.status, second::toString);
        assertTrue(second.out.contains(": 0 classes made persistent-capable, 0 with field accesses redirected, "
                + once.size() + " unchanged, 0 failed"), second::toString);
        assertTrue(second.err.contains("[perpetua] skipped corpus.shapes.Square: already rewritten"), second::toString);
        Map<String, byte[]> twice = classFiles(dir);
        assertEquals(once.keySet(), twice.keySet());
        for (String name : once.keySet()) {
            assertArrayEquals(once.get(name), twice.get(name), name);
        }
        try (Stream<Path> s = Files.walk(dir)) {
            assertEquals(List.of(), s.filter(p -> p.toString().endsWith(".tmp")).toList(), "no temporary file left");
        }
    }

    @Test
    void badClassesFailTheRunLoudlyAndTheOthersAreStillRewritten() throws Exception {
        copyCorpus("corpus.shapes", dir);
        Path garbage = dir.resolve("corpus/shapes/Garbage.class");
        Files.write(garbage, "not a class file".getBytes(StandardCharsets.UTF_8));
        Path orphan = dir.resolve("corpus/shapes/Orphan.class");
        Files.write(orphan, classExtending("corpus/shapes/Orphan", "missing/Base"));
        Path misplaced = dir.resolve("META-INF/versions/21/corpus/shapes/Circle.class");
        Files.createDirectories(misplaced.getParent());
        Files.copy(dir.resolve("corpus/shapes/Circle.class"), misplaced);
        byte[] orphanBefore = Files.readAllBytes(orphan);
        Path tooBig = dir.resolve("corpus/shapes/TooBig.class");
        Files.write(tooBig, TooBig.classFile("corpus/shapes/TooBig", 0, false));

        Run run = rewrite(dir.toString());
        assertEquals(Main.FAILED, run.status, run::toString);
        assertTrue(run.err.contains("[perpetua] FAILED corpus.shapes.Garbage") && run.err.contains("not a class file"),
                run::toString);
        assertTrue(run.err.contains("[perpetua] FAILED corpus.shapes.Orphan")
                && run.err.contains("cannot find the class file of missing.Base"), run::toString);
        assertTrue(run.err.contains("[perpetua] FAILED META-INF.versions.21.corpus.shapes.Circle")
                && run.err.contains("holds class corpus.shapes.Circle"), run::toString);
        assertTrue(run.err.contains("[perpetua] FAILED corpus.shapes.TooBig") && run.err.contains("Method too large")
                && run.err.contains("given only the members other rewritten classes link against"), run::toString);
        assertTrue(run.out.contains(", 4 failed"), run::toString);
        assertArrayEquals(orphanBefore, Files.readAllBytes(orphan), "a failed class is left as it was");
        // a persistent-capable one gets the members rewritten classes link against, and the reason
        Class<?> linkOnly = ChildFirstLoader.fromDirectory("corpus.", dir).load("corpus.shapes.TooBig");
        assertTrue(Persistent.class.isAssignableFrom(linkOnly));
        assertTrue(Modifier.isStatic(linkOnly.getDeclaredField(PersistentClasses.REWRITE_REFUSAL).getModifiers()));
        assertTrue(Persistent.class.isAssignableFrom(
                ChildFirstLoader.fromDirectory("corpus.", dir).load("corpus.shapes.Square")), "the others are rewritten");
    }

    @Test
    void typesOutsideTheDirectoryComeFromTheClassPath() throws Exception {
        Path base = dir.resolve("base");
        copyCorpus("corpus.shapes", base);
        Path app = dir.resolve("app");
        Files.createDirectories(app.resolve("corpus/shapes"));
        Files.move(base.resolve("corpus/shapes/Square.class"), app.resolve("corpus/shapes/Square.class"));

        Run alone = rewrite(app.toString());
        assertEquals(Main.FAILED, alone.status, alone::toString);
        assertTrue(alone.err.contains("cannot find the class file of corpus.shapes.Polygon"), alone::toString);

        Run withClassPath = rewrite("--verbose", app.toString(), "--classpath", dir.resolve("nowhere") + File.pathSeparator
                + base);
        assertEquals(Main.OK, withClassPath.status, withClassPath::toString);
        assertTrue(withClassPath.err.contains("rewritten corpus.shapes.Square: persistent-capable, below corpus.shapes.Polygon"),
                withClassPath::toString);
        assertEquals(List.of("corpus/shapes/Square"), List.copyOf(classFiles(app).keySet()));
        assertFalse(Files.readString(base.resolve("corpus/shapes/Polygon.class"), StandardCharsets.ISO_8859_1)
                .contains("$perpetua$"), "the class path is only read");
    }

    @Test
    void includeAndExcludeAreTheAgentsFilter() throws Exception {
        copyCorpus("corpus", dir);
        Map<String, byte[]> originals = classFiles(dir);
        Run run = rewrite("--verbose", "--include=corpus.shapes:corpus.access", "--exclude", "corpus.access.Outer",
                dir.toString());
        assertEquals(Main.OK, run.status, run::toString);
        assertTrue(run.err.contains("skipped corpus.graph.Part: not in option include"), run::toString);
        assertTrue(run.err.contains("skipped corpus.access.Outer$Inner: excluded by option exclude=corpus.access.Outer"),
                run::toString);
        Map<String, byte[]> after = classFiles(dir);
        assertArrayEquals(originals.get("corpus/graph/Part"), after.get("corpus/graph/Part"));
        assertArrayEquals(originals.get("corpus/access/Outer"), after.get("corpus/access/Outer"));
        assertFalse(java.util.Arrays.equals(originals.get("corpus/access/Box"), after.get("corpus/access/Box")));
    }

    @Test
    void commandLineMistakesExitWithStatusTwo() throws Exception {
        Files.createDirectories(dir.resolve("classes"));
        String classes = dir.resolve("classes").toString();
        assertEquals(Main.USAGE, Main.run(new String[0], new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream())));
        List<List<String>> mistakes = List.of(
                List.of(),
                List.of("--verbose"),
                List.of(dir.resolve("missing").toString()),
                List.of(classes, classes),
                List.of("--fast", classes),
                List.of("--include", classes),
                List.of(classes, "--include", "not a name"),
                List.of(classes, "--include", "a,b"),
                List.of(classes, "--classpath"));
        for (List<String> args : mistakes) {
            Run run = rewrite(args.toArray(String[]::new));
            assertEquals(Main.USAGE, run.status, () -> args + ": " + run);
            assertTrue(run.err.contains("usage: java -jar perpetua-agent.jar rewrite"), () -> args + ": " + run);
        }
        Run unknown = new Run(Main.run(new String[] {"enhance", classes}, System.out, new PrintStream(
                new ByteArrayOutputStream())), "", "");
        assertEquals(Main.USAGE, unknown.status);
        Run empty = rewrite(classes);
        assertEquals(Main.OK, empty.status, empty::toString);
    }

    private static byte[] classExtending(String name, String superName) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, superName, null);
        cw.visitField(0, "x", "I", null, null).visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }
}
