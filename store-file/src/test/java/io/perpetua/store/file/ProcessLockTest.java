package io.perpetua.store.file;

import io.perpetua.StoreLockedException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.CrashHarness;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.store.file.Stores.bytes;
import static io.perpetua.store.file.Stores.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lock file against real second processes, and a lock left by a killed one. */
class ProcessLockTest {

    private static Process child(String mode, Path dir) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
                childClassPath(), LockChild.class.getName(), mode, "file:" + dir.toUri().getRawPath()))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    /** The class path the core harness computes for its children (Surefire's manifest jar expanded). */
    private static String childClassPath() {
        try {
            var m = CrashHarness.class.getDeclaredMethod("childClassPath");
            m.setAccessible(true);
            return (String) m.invoke(null);
        } catch (ReflectiveOperationException e) {
            return System.getProperty("java.class.path");
        }
    }

    private static String firstLine(Process p) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        return line == null ? "<no output, exit " + p.waitFor() + ">" : line;
    }

    @Test
    void anotherProcessIsLockedOutAndAKilledOwnersLockDoesNotBlock(@TempDir Path dir) throws Exception {
        try (Backend b = Stores.open(dir, "")) {
            b.commit(new WriteSet().put(b.allocateIds(1), bytes("from the parent")).bind("p", 1));
        }
        Process holder = child("hold", dir);
        try {
            assertEquals("OPEN", firstLine(holder));
            StoreLockedException e = assertThrows(StoreLockedException.class, () -> Stores.open(dir, ""));
            assertTrue(e.getCause().getMessage().contains("process " + holder.pid()), e.getCause().getMessage());
            // A third process is refused as clearly.
            Process third = child("try", dir);
            String line = firstLine(third);
            assertTrue(line.startsWith(StoreLockedException.class.getName()), line);
            assertTrue(third.waitFor(60, TimeUnit.SECONDS));
        } finally {
            holder.destroyForcibly(); // SIGKILL: the holder never closes the store
            assertTrue(holder.waitFor(60, TimeUnit.SECONDS));
        }
        try (Backend b = Stores.open(dir, "")) {
            assertEquals("from the parent", string(b.read(b.lookup("p"))));
        }
    }

    @Test
    void aChildCannotOpenWhatThisProcessHolds(@TempDir Path dir) throws Exception {
        try (Backend b = Stores.open(dir, "")) {
            b.commit(new WriteSet().put(b.allocateIds(1), bytes("held")));
            Process p = child("try", dir);
            String line = firstLine(p);
            assertTrue(line.startsWith(StoreLockedException.class.getName()), line);
            assertTrue(line.contains("process " + ProcessHandle.current().pid()), line);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        }
        Process p = child("try", dir);
        assertTrue(firstLine(p).startsWith("OPENED file:"));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    }
}
