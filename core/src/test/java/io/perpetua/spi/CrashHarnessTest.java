package io.perpetua.spi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@link CrashHarness} for real (forked JVMs killed with SIGKILL) against
 * {@link RenamingFileBackend}, and checks that its verification catches a damaged store.
 */
class CrashHarnessTest {

    private static CrashHarness.Builder harness(Path dir) {
        return CrashHarness.builder("renaming-file:" + dir)
                .mainClass(RenamingFileCrashWriter.class.getName())
                .opener(uri -> RenamingFileBackend.open(Paths.get(uri.getSchemeSpecificPart())))
                .maxPayload(64)
                .maxDelayMillis(300);
    }

    @Test
    void killedWritersLoseNothingAcknowledgedOnAnAtomicRenameStore(@TempDir Path dir) {
        CrashHarness.Report report = harness(dir).kills(3).seed(7).run();
        System.out.println(report + ", child class path: " + CrashHarness.childClassPath()
                + ", java.class.path: " + System.getProperty("java.class.path"));
        assertEquals(3, report.kills());
        assertTrue(report.acknowledged() >= 3, "each round acknowledges at least one transaction: " + report);
        // Each round adds the acknowledged ones, possibly one unacknowledged, and the parent's own.
        assertEquals(report.acknowledged() + report.unacknowledgedFound() + report.kills(), report.lastTransaction(),
                report.toString());
        try (Backend backend = RenamingFileBackend.open(dir)) {
            assertEquals(report.lastTransaction(), CrashWriter.verify(backend).last());
        }
    }

    @Test
    void killsCatchABackendWhoseCommitsAreNotAtomic(@TempDir Path dir) {
        // Each commit is written in two steps with a pause between: most kills land in the pause.
        AssertionError e = assertThrows(AssertionError.class, () -> harness(dir)
                .jvmArgs("-D" + RenamingFileCrashWriter.TORN_PAUSE_PROPERTY + "=20")
                .kills(8).seed(3).run());
        assertTrue(e.getMessage().contains("damaged"), e.getMessage());
    }

    @Test
    void verifyFindsATransactionPresentInPart(@TempDir Path dir) {
        try (Backend backend = RenamingFileBackend.open(dir)) {
            CrashWriter.State state = CrashWriter.State.EMPTY;
            for (long n = 1; n <= 20; n++) {
                state = CrashWriter.commitTransaction(backend, n, state, 32);
            }
            assertEquals(20, CrashWriter.verify(backend).last());
            // Tear the last transaction: one slot goes back to an older content.
            byte[] older = backend.read(state.slotsFirst() + 1);
            older[12] ^= 1;
            backend.commit(new WriteSet().put(state.slotsFirst() + 1, older));
            assertThrows(AssertionError.class, () -> CrashWriter.verify(backend));
        }
    }

    @Test
    void verifyFindsALostTransaction(@TempDir Path dir) {
        try (Backend backend = RenamingFileBackend.open(dir)) {
            CrashWriter.State state = CrashWriter.State.EMPTY;
            long middleLog = 0;
            for (long n = 1; n <= 10; n++) {
                state = CrashWriter.commitTransaction(backend, n, state, 32);
                if (n == 5) {
                    middleLog = state.logId();
                }
            }
            backend.commit(new WriteSet().delete(middleLog));
            AssertionError e = assertThrows(AssertionError.class, () -> CrashWriter.verify(backend));
            assertTrue(e.getMessage().contains("missing"), e.getMessage());
        }
    }

    @Test
    void manifestOnlyJarsAreExpanded(@TempDir Path dir) throws Exception {
        // The shape of Surefire's booter jar: no classes, a manifest whose Class-Path names the
        // real entries relative to the jar (URL-encoded, directories with a trailing slash).
        Path lib = Files.createDirectories(dir.resolve("lib dir"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Path other = Files.createFile(lib.resolve("other.jar"));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, "lib%20dir/other.jar classes/");
        Path booter = dir.resolve("booter.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(booter), manifest)) {
            out.flush();
        }
        String classPath = CrashHarness.childClassPath(booter.toString(), null);
        assertEquals(List.of(booter.toString(), other.toString(), classes.toString()),
                List.of(classPath.split(File.pathSeparator)));
    }

    @Test
    void urlClassLoaderEntriesAreAdded(@TempDir Path dir) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            String classPath = CrashHarness.childClassPath("", loader);
            assertEquals(List.of(dir.toString()), List.of(classPath.split(File.pathSeparator)));
        }
    }

    @Test
    void childClassPathCoversThisModulesClasses() {
        String classPath = CrashHarness.childClassPath();
        String here = Paths.get(URI.create(CrashHarnessTest.class.getProtectionDomain().getCodeSource()
                .getLocation().toString())).toString();
        assertTrue(classPath.contains(here), classPath);
    }
}
