package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.NEWEST;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static io.perpetua.agent.ForkedJvm.testClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Threads reading one store at once ({@code readersapp}): one forked JVM with the real agent
 * writes a graph of 3,000 parts to a RocksDB store; a second opens it 20 times, and each time 8
 * threads walk every part from hollow, faulting the same objects in together, through the
 * value-first getters the agent generates, lazy array fields, and hash sets of objects equal by
 * a key that live in their part's record. Every thread must get the writer's digest, find every
 * tag by its key, and see one object per stored part. Then a third JVM has 4 threads change
 * every part at once in one transaction (a field, an array element, a hash set and a map, each
 * thread its own parts) and commits, and the readers must see what it committed. Before the
 * getters read a default value again after the state check, a thread could get the default of
 * a field another thread was filling (null names, in 3 of 5 runs of 40 rounds).
 */
class ConcurrentReadersIT {

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(strings = {"17", "newest"})
    void threadsReadingOneStoreAtOnceAllSeeWhatWasCommitted(String jdkName, @TempDir Path dir) throws Exception {
        Path jdk = jdkName.equals("17") ? JDK17 : NEWEST;
        assumeTrue(Files.isExecutable(jdk.resolve("bin/java")), "no JDK at " + jdk);
        String cp = String.join(File.pathSeparator, testClasses(), jarOnTestClassPath("perpetua-store-rocksdb"),
                jarOnTestClassPath("rocksdbjni"));
        String uri = "rocksdb:" + dir.resolve("store");
        List<String> jvm = List.of(agent("failFast"), "-Xmx512m");

        Run write = ForkedJvm.java(jdk, jvm, cp, 300, "readersapp.Main", "write", uri, "3000", "1997");
        assertEquals(0, write.exit(), write::toString);
        Matcher digest = Pattern.compile("digest=(-?\\d+)").matcher(write.out());
        assertTrue(write.out().startsWith("rewritten=true\n") && digest.find(), write::toString);

        read(jdk, jvm, cp, uri, digest.group(1));

        Run update = ForkedJvm.java(jdk, jvm, cp, 300, "readersapp.Main", "update", uri, "4");
        assertEquals(0, update.exit(), update::toString);
        Matcher updated = Pattern.compile("digest=(-?\\d+)").matcher(update.out());
        assertTrue(updated.find() && !updated.group(1).equals(digest.group(1)), update::toString);
        read(jdk, jvm, cp, uri, updated.group(1));
    }

    private static void read(Path jdk, List<String> jvm, String cp, String uri, String digest) throws Exception {
        Run read = ForkedJvm.java(jdk, jvm, cp, 600, "readersapp.Main", "read", uri, "8", "20", digest);
        assertEquals(0, read.exit(), read::toString);
        for (int r = 0; r < 20; r++) {
            assertTrue(read.out().contains("round " + r + " ok\n"), read::toString);
        }
    }
}
