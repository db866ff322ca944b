package io.perpetua.samples;

import io.perpetua.runtime.Persistent;
import io.perpetua.samples.jspin.Account;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sample 2, {@code io.perpetua.samples.jspin.BankApp}, run as a user runs it: fresh JVMs on one
 * RocksDB store. The abort puts the objects in memory back to their committed values; the
 * commit is what the next JVM sees. {@code Account} was rewritten by the build, so the program
 * runs with the real {@code -javaagent} and also without it.
 */
class JspinSampleTest {
    private static final String BANK = "io.perpetua.samples.jspin.BankApp";

    @TempDir
    Path dir;

    private static List<String> expected(long alice, long bob) {
        return List.of(
                "committed balances:   alice " + alice + ", bob " + bob,
                "after transfer of 30: alice " + (alice - 30) + ", bob " + (bob + 30),
                "after abort:          alice " + alice + ", bob " + bob,
                "after commit of 10:   alice " + (alice - 10) + ", bob " + (bob + 10));
    }

    @Test
    void abortRestoresTheObjectsInMemoryAndTheNextJvmSeesTheCommit() throws Exception {
        String store = dir.resolve("bank").toString();
        assertEquals(expected(100, 100), SamplesTest.run(BANK, store));
        assertEquals(expected(90, 110), SamplesTest.run(BANK, store));
    }

    @Test
    void rewrittenAtBuildTimeItRunsWithoutTheAgentToo() throws Exception {
        // Account.class in target/classes is the rewritten one: this JVM has no agent.
        assertTrue(Persistent.class.isAssignableFrom(Account.class), "Account rewritten by the build");
        Method fetch = Account.class.getMethod("fetch", String.class);
        assertTrue(Modifier.isStatic(fetch.getModifiers()));
        assertEquals(Account.class, fetch.getReturnType());

        String store = dir.resolve("bank").toString();
        assertEquals(expected(100, 100), withoutAgent(store));
        assertEquals(expected(90, 110), SamplesTest.run(BANK, store));
        assertEquals(expected(80, 120), withoutAgent(store));
    }

    /** Runs BankApp in a fresh JVM with no agent, and no agent jar on the class path. */
    private static List<String> withoutAgent(String store) throws IOException, InterruptedException {
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            boolean agent = p.getFileName().toString().startsWith("perpetua-agent")
                    || p.endsWith(Path.of("agent", "target", "classes"));
            if (!agent) {
                classPath.add(entry);
            }
        }
        assertTrue(classPath.stream().anyMatch(e -> e.contains("perpetua-core") || e.endsWith("core/target/classes")),
                classPath::toString);
        assertFalse(classPath.stream().anyMatch(e -> e.contains("perpetua-agent")), classPath::toString);
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                SamplesTest.NATIVE_ACCESS, "-cp", String.join(File.pathSeparator, classPath), BANK, store)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the sample finished");
        assertEquals(0, p.exitValue(), "exit status; output:\n" + out);
        assertFalse(out.contains("[perpetua"), "no agent ran: " + out);
        return out.lines().filter(l -> !l.isBlank()).toList();
    }
}
