package io.perpetua.benchmarks.startup;

import io.perpetua.benchmarks.AgentJar;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real libraries, unmodified, under the real agent in forked JVMs: every class of each is loaded
 * and initialized, and each is either rewritten or fails only because a class it needs from an
 * optional dependency is not on the class path; and H2, EclipseStore and Commons Math each do
 * some work with the agent and answer as they do without. Skipped when the agent module was not
 * packaged.
 */
class LibrariesUnderTheAgentTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "org/h2, org.h2.Driver",
        "org/postgresql, org.postgresql.Driver",
        "org/eclipse/store/storage, org.eclipse.store.storage.types.StorageManager",
        "org/apache/commons/math3, org.apache.commons.math3.util.FastMath",
        "org/openjdk/jmh, org.openjdk.jmh.Main",
    })
    void everyClassIsRewrittenOrNamesTheMissingDependency(String pkg, String anchor) throws Exception {
        Path agent = AgentJar.find();
        assumeTrue(agent != null, "no agent jar in agent/target");
        String plain = run(null, AgentStartup.class.getName(), "--child", pkg, anchor);
        String rewritten = run("-javaagent:" + agent + "=verbose", AgentStartup.class.getName(), "--child", pkg, anchor);
        // the same classes loaded, and the same initializers failed (optional dependencies missing)
        assertEquals(counts(plain), counts(rewritten), rewritten);
        int failed = 0;
        int made = 0;
        for (String line : rewritten.split("\n")) {
            if (line.startsWith("[perpetua] FAILED ")) {
                failed++;
                assertTrue(line.contains("cannot find the class file of"), line);
            } else if (line.startsWith("[perpetua] rewritten ")) {
                made++;
            }
        }
        assertTrue(made > 0, rewritten);
        assertTrue(failed <= 8, "failed: " + failed + "\n" + rewritten);
    }

    /** Each workout prints its results; with the agent (which halts the JVM if a class fails to rewrite) they must not change. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {H2Workout.class, EclipseStoreWorkout.class, CommonsMathWorkout.class})
    void aLibraryAnswersTheSameWithTheAgent(Class<?> workout) throws Exception {
        Path agent = AgentJar.find();
        assumeTrue(agent != null, "no agent jar in agent/target");
        String plain = run(null, workout.getName());
        String rewritten = run("-javaagent:" + agent + "=failFast", workout.getName());
        assertTrue(plain.lines().count() >= 2, plain);
        // and the agent says nothing: no class failed, and the array write log is still trusted
        // (Commons Math's literal tables once made it give up on the log for the whole JVM)
        assertEquals(plain, rewritten);
    }

    /** "loaded N classes (F initializers failed)", without the time. */
    private static String counts(String output) {
        for (String line : output.split("\n")) {
            if (line.startsWith("loaded ")) {
                return line.substring(0, line.indexOf(')') + 1);
            }
        }
        throw new AssertionError("no count in:\n" + output);
    }

    /** Runs a main class in a new JVM with this class path; @return its output, standard error included */
    private static String run(String agentArgument, String... mainAndArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (agentArgument != null) {
            cmd.add(agentArgument);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.addAll(List.of(mainAndArgs));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), output);
        return output;
    }
}
