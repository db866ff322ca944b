package io.perpetua.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.AGENT;
import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Build-time rewriting with the real shaded jar, in forked JVMs, as a build uses it: javac the
 * domain class; {@code java -jar perpetua-agent.jar rewrite}; javac the program against the
 * rewritten class (it calls the added {@code persist(String)} and typed static
 * {@code fetch(String)}); rewrite again (the domain class is skipped, the program is rewritten);
 * then run the program on the {@code file:} store without the agent (perpetua-core on the class
 * path), with {@code -javaagent} (which skips the rewritten classes), and without it again, each
 * run seeing the previous one's commit. Also the exit statuses of the real {@code main}.
 */
class RewriteCommandIT {
    @TempDir
    Path dir;

    private record Run(int exit, String out) {
        @Override
        public String toString() {
            return "exit " + exit + "\n" + out;
        }
    }

    private static Run exec(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new Run(p.exitValue(), out);
    }

    private static Run java(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JDK17.resolve("bin/java").toString(), "-Xshare:auto"));
        command.addAll(List.of(args));
        return exec(command);
    }

    private static Run javac(String classPath, Path out, Path source) throws Exception {
        return exec(List.of(JDK17.resolve("bin/javac").toString(), "--release", "17", "-cp", classPath,
                "-d", out.toString(), source.toString()));
    }

    private Path source(String name, String text) throws Exception {
        Path file = dir.resolve("src/bank/" + name + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    @Test
    void rewrittenAtBuildTimeTheProgramRunsWithAndWithoutTheAgent() throws Exception {
        assertTrue(Files.isRegularFile(AGENT), "the shaded agent jar: " + AGENT);
        String core = jarOnTestClassPath("perpetua-core-");
        String fileStore = jarOnTestClassPath("perpetua-store-file");
        Path classes = dir.resolve("classes");
        Path account = source("Account", """
                package bank;
                public class Account {
                    private final String owner;
                    private long balance;
                    public Account(String owner, long balance) {
                        this.owner = owner;
                        this.balance = balance;
                    }
                    public long balance() {
                        return balance;
                    }
                    public void deposit(long amount) {
                        balance += amount;
                    }
                }
                """);
        Run compileAccount = javac(core, classes, account);
        assertEquals(0, compileAccount.exit, compileAccount::toString);

        Run rewrite = java("-jar", AGENT.toString(), "rewrite", "--verbose", classes.toString());
        assertEquals(0, rewrite.exit, rewrite::toString);
        assertTrue(rewrite.out.contains("[perpetua] rewritten bank.Account: persistent-capable"), rewrite::toString);

        Path main = source("Main", """
                package bank;
                import io.perpetua.PersistentStore;
                public class Main {
                    public static void main(String[] args) {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            store.beginTransaction();
                            if (!store.isBound("ann")) {
                                new Account("ann", 100).persist("ann");   // added by the rewriting
                            }
                            Account ann = Account.fetch("ann");           // static, typed: added too
                            ann.deposit(Long.parseLong(args[1]));
                            store.commitTransaction();
                            System.out.println("balance=" + ann.balance() + " agent=" + System.getProperty("perpetua.agent"));
                        }
                    }
                }
                """);
        Run plainJavac = javac(core, dir.resolve("unused"), main);
        assertFalse(plainJavac.exit == 0, "javac cannot see the added methods in the original class: " + plainJavac);
        Run compileMain = javac(classes + File.pathSeparator + core, classes, main);
        assertEquals(0, compileMain.exit, compileMain::toString);

        Run again = java("-jar", AGENT.toString(), "rewrite", "--verbose", classes.toString());
        assertEquals(0, again.exit, again::toString);
        assertTrue(again.out.contains("[perpetua] skipped bank.Account: already rewritten"), again::toString);
        assertTrue(again.out.contains("[perpetua] rewritten bank.Main: persistent-capable"), again::toString);

        String store = "file:" + dir.resolve("store");
        Run withoutAgent = java("-cp", String.join(File.pathSeparator, classes.toString(), core, fileStore),
                "bank.Main", store, "10");
        assertEquals(0, withoutAgent.exit, withoutAgent::toString);
        assertEquals("balance=110 agent=null\n", withoutAgent.out);

        Run withAgent = java(agent("verbose,failFast"),
                "-cp", classes + File.pathSeparator + fileStore, "bank.Main", store, "20");
        assertEquals(0, withAgent.exit, withAgent::toString);
        assertTrue(withAgent.out.contains("[perpetua] skipped bank.Account: already rewritten"), withAgent::toString);
        assertTrue(withAgent.out.contains("balance=130 agent="), withAgent::toString);
        assertFalse(withAgent.out.contains("agent=null"), withAgent::toString);

        Run withoutAgentAgain = java("-cp", String.join(File.pathSeparator, classes.toString(), core, fileStore),
                "bank.Main", store, "30");
        assertEquals(0, withoutAgentAgain.exit, withoutAgentAgain::toString);
        assertEquals("balance=160 agent=null\n", withoutAgentAgain.out);
    }

    @Test
    void exitStatusesOfTheRealMain() throws Exception {
        Run noCommand = java("-jar", AGENT.toString());
        assertEquals(Main.USAGE, noCommand.exit, noCommand::toString);
        assertTrue(noCommand.out.contains("usage: java -jar perpetua-agent.jar rewrite"), noCommand::toString);

        Path classes = dir.resolve("classes/bad");
        Files.createDirectories(classes);
        Files.write(classes.resolve("Broken.class"), new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE,
                0, 0, 0, 61, 0, 0, 0});
        Run bad = java("-jar", AGENT.toString(), "rewrite", dir.resolve("classes").toString());
        assertEquals(Main.FAILED, bad.exit, bad::toString);
        assertTrue(bad.out.contains("[perpetua] FAILED bad.Broken"), bad::toString);
        assertTrue(bad.out.contains("1 failed"), bad::toString);
    }
}
