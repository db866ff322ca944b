package io.perpetua.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each sample run as a user runs it: a fresh JVM with the real {@code -javaagent}, twice or
 * more, the later runs seeing what the earlier ones stored.
 */
class SamplesTest {
    /**
     * As the samples' usage says: RocksDB loads its JNI library through a restricted method,
     * which JDK 24 and newer warn about, on the output the tests compare, unless this is given.
     */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    @TempDir
    Path dir;

    @Test
    void notesSurviveRestarts() throws Exception {
        String store = dir.resolve("notes").toString();
        run("io.perpetua.samples.notes.NotesApp", store, "add", "buy", "tea");
        run("io.perpetua.samples.notes.NotesApp", store, "add", "call", "Ana");
        run("io.perpetua.samples.notes.NotesApp", store, "done", "1");
        List<String> lines = run("io.perpetua.samples.notes.NotesApp", store, "list");
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("1. [x] buy tea"), lines.toString());
        assertTrue(lines.get(1).startsWith("2. [ ] call Ana"), lines.toString());
    }

    @Test
    void theLibraryLivesInTheFileStore() throws Exception {
        // a name a URI must escape: until session 42 the sample pasted it after "file:", and
        // "my lib" was refused, "lib%41" opened "libA"
        String store = dir.resolve("my lib%41").toString();
        run("io.perpetua.samples.library.LibraryApp", store, "add", "Dune", "Herbert");
        run("io.perpetua.samples.library.LibraryApp", store, "add", "Emma", "Austen");
        run("io.perpetua.samples.library.LibraryApp", store, "lend", "Dune", "ana");
        assertEquals(List.of("Dune by Herbert, lent to ana", "Emma by Austen"),
                run("io.perpetua.samples.library.LibraryApp", store, "list"));
        assertTrue(Files.exists(Path.of(store)), "the file store's directory");
        assertFalse(Files.exists(dir.resolve("my libA")), "no other directory");
    }

    @Test
    void theLibraryIsBackedUpIntoRocksDbAndGoesOnThere() throws Exception {
        String store = dir.resolve("library").toString();
        String app = "io.perpetua.samples.library.LibraryApp";
        run(app, store, "add", "Dune", "Herbert");
        run(app, store, "add", "Emma", "Austen");
        run(app, store, "lend", "Dune", "ana");
        String backup = "rocksdb:" + dir.resolve("backup").toAbsolutePath().toUri().getRawPath();
        List<String> copied = run(app, store, "backup", backup);
        assertEquals(1, copied.size(), copied.toString());
        assertTrue(copied.get(0).matches("copied [1-9][0-9]* records to .*"), copied.toString());
        assertTrue(Files.isDirectory(dir.resolve("backup")), "the RocksDB copy's directory");
        run(app, backup, "add", "Kim", "Kipling");
        assertEquals(List.of("Dune by Herbert, lent to ana", "Emma by Austen", "Kim by Kipling"), run(app, backup, "list"));
        assertEquals(List.of("Dune by Herbert, lent to ana", "Emma by Austen"), run(app, store, "list"),
                "the file store did not change");
    }

    /** Runs a sample's main in a fresh JVM under the agent; returns its output lines. */
    static List<String> run(String mainClass, String... args) throws IOException, InterruptedException {
        String agent = System.getProperty("perpetua.agent.jar");
        assertTrue(agent != null && Files.isRegularFile(Path.of(agent)),
                "the agent jar is built first (mvn package in agent): " + agent);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                NATIVE_ACCESS, "-javaagent:" + agent, "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the sample finished");
        assertEquals(0, p.exitValue(), "exit status; output:\n" + out);
        return out.lines().filter(l -> !l.isBlank() && !l.startsWith("[perpetua")).toList();
    }
}
