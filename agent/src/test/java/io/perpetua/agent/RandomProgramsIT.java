package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.NEWEST;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static io.perpetua.agent.ForkedJvm.testClasses;
import static io.perpetua.agent.ForkedJvm.testJarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Core's random programs checked against a model ({@code io.perpetua.modelcheck.RandomProgram}),
 * run on plain classes ({@code randomapp}) that the real {@code -javaagent} rewrites as they load,
 * on stores on disk, in a forked JVM: what core's {@code RandomOperationsTest} checks with
 * hand-written classes and the in-memory store, here through the generated accessors (field
 * accesses redirected, lazy array fields, a final field, a transient one, a list class extending
 * {@code ArrayList}), the generated codecs
 * and the real backends; one run with a backend that fails reads and commits at random points
 * ({@code faults}). {@code -Dperpetua.random.seeds=N} and {@code -Dperpetua.random.operations=N}
 * (given to Maven) run more.
 */
class RandomProgramsIT {
    private static final int SEEDS = Integer.getInteger("perpetua.random.seeds", 12);
    private static final int OPERATIONS = Integer.getInteger("perpetua.random.operations", 400);

    @ParameterizedTest(name = "JDK {0}, {1} store, seeds {2}+ {3}")
    @CsvSource({"17, rocksdb, 1, ''", "17, file, 1001, ''", "newest, rocksdb, 2001, ''", "17, rocksdb, 3001, faults"})
    void randomProgramsOnRewrittenClassesLeaveTheStoreAsTheModelSays(String jdkName, String scheme, long firstSeed,
                                                                      String faults, @TempDir Path dir) throws Exception {
        Path jdk = jdkName.equals("17") ? JDK17 : NEWEST;
        assumeTrue(Files.isExecutable(jdk.resolve("bin/java")), "no JDK at " + jdk);
        String cp = String.join(File.pathSeparator, testClasses(), testJarOnTestClassPath("perpetua-core-"),
                jarOnTestClassPath("perpetua-store-" + scheme), jarOnTestClassPath("rocksdbjni"));
        long lastSeed = firstSeed + SEEDS - 1;
        Run run = ForkedJvm.java(jdk, List.of(agent("failFast"), "-Xmx512m"), cp, 600, "randomapp.Main",
                dir.toString(), scheme, Long.toString(firstSeed), Long.toString(lastSeed), Integer.toString(OPERATIONS),
                faults);
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().startsWith("rewritten=true\n"), run::toString);
        for (long seed = firstSeed; seed <= lastSeed; seed++) {
            assertTrue(run.out().contains("seed " + seed + " ok\n"), run::toString);
        }
        // some of the programs' lists were of randomapp.Items, an application class extending ArrayList
        java.util.regex.Matcher items = java.util.regex.Pattern.compile("items made (\\d+)").matcher(run.out());
        assertTrue(items.find() && Integer.parseInt(items.group(1)) > 0, run::toString);
    }
}
