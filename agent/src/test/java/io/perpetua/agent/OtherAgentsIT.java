package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Another agent after this one on the command line, in a forked JVM with the real agent: a
 * class the other agent's transformer loads for the first time while this agent's transformer
 * runs is never offered to this one (the JDK does not call a transformer from within itself), so
 * it stays as it was while the other agent's classes, rewritten, call its generated accessors.
 * JaCoCo's agent recorded no coverage that way. The agent loads everything its transformer
 * needs before it starts, so that it loads no class while it rewrites one.
 */
class OtherAgentsIT {

    /** The other agent: counts the classes offered to it in an object of a class it loads on first use. */
    private static final String SECOND_AGENT = """
            package second;
            public class SecondAgent {
                public static void premain(String args, java.lang.instrument.Instrumentation inst) {
                    inst.addTransformer(new Counting());
                }
            }
            """;

    private static final String COUNTING = """
            package second;
            public class Counting implements java.lang.instrument.ClassFileTransformer {
                static Lazy lazy;
                public byte[] transform(ClassLoader loader, String name, Class<?> redefined,
                                        java.security.ProtectionDomain domain, byte[] bytes) {
                    if (loader == null || name == null || name.startsWith("second/")) {
                        return null;
                    }
                    try {
                        if (lazy == null) {
                            lazy = new Lazy(); // loaded on first use, as JaCoCo loads its instrumenter
                        }
                        lazy.hits++;
                    } catch (Throwable t) {
                        System.err.println("second agent failed on " + name + ": " + t);
                    }
                    return null;
                }
            }
            """;

    private static final String LAZY = """
            package second;
            public class Lazy { public int hits; }
            """;

    /** The application: its string concatenation is an invokedynamic, which the agent meets here first. */
    private static final String MAIN = """
            package app;
            public class Main {
                public static void main(String[] args) {
                    System.out.println("ran with " + args.length + " arguments");
                }
            }
            """;

    @Test
    void aClassAnotherAgentLoadsWhileThisOneRewritesIsRewritten(@TempDir Path dir) throws Exception {
        // the other agent's own classes hold no invokedynamic, so that the application's is the
        // first the agent reads
        Path second = compile(dir, "second", List.of("-XDstringConcat=inline"), SECOND_AGENT, COUNTING, LAZY);
        Path manifest = dir.resolve("manifest.txt");
        Files.writeString(manifest, "Premain-Class: second.SecondAgent\n");
        Path jar = dir.resolve("second-agent.jar");
        exec(List.of(JDK17.resolve("bin/jar").toString(), "cfm", jar.toString(), manifest.toString(), "-C",
                second.toString(), "."));
        Path app = compile(dir, "app", List.of(), MAIN);
        Run run = ForkedJvm.java(JDK17, List.of(agent("verbose"), "-javaagent:" + jar), app.toString(), 120, "app.Main");
        assertEquals(0, run.exit(), run::toString);
        assertEquals("ran with 0 arguments\n", run.out(), run::toString);
        assertFalse(run.err().contains("second agent failed"), run::toString);
        assertTrue(run.err().contains("[perpetua] rewritten second.Lazy: persistent-capable"), run::toString);
    }

    private static Path compile(Path dir, String name, List<String> options, String... sources) throws Exception {
        Path src = dir.resolve(name + "-src");
        Path out = dir.resolve(name + "-classes");
        Files.createDirectories(src);
        List<String> cmd = new ArrayList<>(List.of(JDK17.resolve("bin/javac").toString(), "--release", "17",
                "-d", out.toString()));
        cmd.addAll(options);
        for (String source : sources) {
            Path file = src.resolve(source.replaceAll("(?s).*?public class (\\w+).*", "$1") + ".java");
            Files.writeString(file, source);
            cmd.add(file.toString());
        }
        exec(cmd);
        return out;
    }

    private static void exec(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, cmd + "\n" + output);
    }
}
