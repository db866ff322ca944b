package io.perpetua.benchmarks.startup;

import io.perpetua.benchmarks.AgentJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real libraries, unmodified, under the real agent in forked JVMs: every class of each is loaded
 * and initialized, and each is either rewritten or fails only because a class it needs from an
 * optional dependency is not on the class path; H2, EclipseStore, Commons Math, Jackson, Gson
 * and Guava each do some work with the agent and answer as they do without; and Jackson writes
 * persistent objects read back from a store as it wrote them before. Skipped when the agent
 * module was not packaged.
 */
class LibrariesUnderTheAgentTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "org/h2, org.h2.Driver",
        "org/postgresql, org.postgresql.Driver",
        "org/eclipse/store/storage, org.eclipse.store.storage.types.StorageManager",
        "org/apache/commons/math3, org.apache.commons.math3.util.FastMath",
        "org/openjdk/jmh, org.openjdk.jmh.Main",
        "com/google/common, com.google.common.collect.ImmutableList",
        "com/fasterxml/jackson, com.fasterxml.jackson.databind.ObjectMapper",
        "com/google/gson, com.google.gson.Gson",
        "scala, scala.Predef",
        "kotlin, kotlin.Unit",
        "org/joda/time, org.joda.time.DateTime",
        "org/apache/commons/collections4, org.apache.commons.collections4.CollectionUtils",
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
    @ValueSource(classes = {H2Workout.class, EclipseStoreWorkout.class, CommonsMathWorkout.class,
        SerializersWorkout.class, GuavaWorkout.class})
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

    /**
     * PostgreSQL's JDBC driver against a real server, when one is given (CI starts one): the
     * driver could not even start under the agent before its added fields became protected.
     */
    @Test
    void postgresAnswersTheSameWithTheAgent() throws Exception {
        Path agent = AgentJar.find();
        assumeTrue(agent != null, "no agent jar in agent/target");
        assumeTrue(System.getenv("PERPETUA_OO1_PG_URL") != null,
                "no PostgreSQL server: set PERPETUA_OO1_PG_URL (and _USER, _PASSWORD)");
        String plain = run(null, PostgresWorkout.class.getName());
        String rewritten = run("-javaagent:" + agent + "=failFast", PostgresWorkout.class.getName());
        assertTrue(plain.startsWith("part-type0 200 "), plain);
        assertEquals(plain, rewritten);
    }

    /**
     * Jackson writes beans read back from a store, hollow, as it wrote them before they were
     * stored: its getters are rewritten code, so each fills its object.
     */
    @Test
    void jacksonWritesPersistentObjectsReadBackAsItWroteThem() throws Exception {
        Path agent = AgentJar.find();
        assumeTrue(agent != null, "no agent jar in agent/target");
        String[] lines = run("-javaagent:" + agent + "=failFast", "--enable-native-access=ALL-UNNAMED",
                PersistedJsonWorkout.class.getName()).split("\n");
        assertTrue(lines[0].startsWith("{\"codes\":[5,25,-5],\"id\":5,\"name\":\"customer-5\""), lines[0]);
        assertEquals(lines[0], lines[1]);
        assertTrue(lines[2].matches("[1-9][0-9]* records read"), lines[2]);
    }

    /**
     * Objects of Scala's, Kotlin's, Joda-Time's, Guava's and Commons Collections' classes stored
     * by one JVM, changed in place by another, and read by a third ({@link LibraryObjectsWorkout}).
     * Before session 23: the Scala list ended in a copy of {@code Nil} and failed ("tail of empty
     * list"), the Joda-Time dates and the Guava list failed with a {@code NullPointerException},
     * and the {@code LRUMap} came back empty. Before session 33, Guava's immutable maps were
     * refused.
     */
    @Test
    void objectsOfOtherLanguagesAndLibrariesComeBackAsTheyWere(@TempDir Path dir) throws Exception {
        Path agent = AgentJar.find();
        assumeTrue(agent != null, "no agent jar in agent/target");
        String written = workout(agent, "write", dir);
        String objects = "[List(a, b, c), None, [], (left, 1), 2024-02-29, 2024-02-29T12:30:00.000Z,"
                + " 2024-07-01T09:00:00.000+02:00, [x, y], {k=[1, 2]}, {one=1}, ArrayBuffer(p), 19.99, {x=1, y=2, z=3},"
                + " {p=1, q=2}, [{p=1, q=2}]]";
        assertEquals("written " + objects + "\n", written);
        String common = """
                scala list length 3, ends with Nil itself true, List(aa, bb, cc)
                scala None itself true
                kotlin EmptyList itself true
                kotlin companion itself true
                joda 2024-03-01, chronology itself true, Paris 2025-01-01T09:00:00.000+01:00 Europe/Paris
                """;
        assertEquals("read " + objects + "\n" + common + """
                guava [y] [1, 2] {k=[1, 2]} 2
                lru 1 null [one] full false
                scala buffer ArrayBuffer(p)
                scala BigDecimal 39.98 34
                guava maps 2 RegularImmutableMap, {1=p, 2=q} RegularImmutableBiMap, held twice as one true
                records written for guava's view 0
                """, workout(agent, "read", dir));
        assertEquals("changed\n", workout(agent, "change", dir));
        assertEquals("read " + objects.replace("[1, 2]", "[1, 2, 3]").replace("{one=1}",
                "{two=2, three=3}").replace("ArrayBuffer(p)", "ArrayBuffer(p, q)").replace("z=3}", "z=3, w=4}") + "\n"
                + common + """
                guava [y] [1, 2, 3] {k=[1, 2, 3]} 3
                lru null 3 [two, three] full true
                scala buffer ArrayBuffer(p, q)
                scala BigDecimal 39.98 34
                guava maps 2 RegularImmutableMap, {1=p, 2=q} RegularImmutableBiMap, held twice as one true
                records written for guava's view 0
                """, workout(agent, "read", dir));
    }

    private static String workout(Path agent, String step, Path dir) throws IOException, InterruptedException {
        return run("-javaagent:" + agent + "=failFast", "--enable-native-access=ALL-UNNAMED",
                LibraryObjectsWorkout.class.getName(), step, dir.toString());
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

    /**
     * Runs a main class in a new JVM with this class path ({@link AgentStartup#java}).
     *
     * @param agentArgument the {@code -javaagent} option, or null for none
     * @param jvmOptionsAndMain more JVM options, if any (each starting with {@code -}), then the
     *        main class and its arguments
     * @return its output, standard error included
     */
    private static String run(String agentArgument, String... jvmOptionsAndMain) throws IOException, InterruptedException {
        List<String> options = new ArrayList<>();
        if (agentArgument != null) {
            options.add(agentArgument);
        }
        int main = 0;
        while (jvmOptionsAndMain[main].startsWith("-")) {
            options.add(jvmOptionsAndMain[main++]);
        }
        return AgentStartup.java(options, Arrays.copyOfRange(jvmOptionsAndMain, main, jvmOptionsAndMain.length));
    }
}
