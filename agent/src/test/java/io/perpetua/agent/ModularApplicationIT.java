package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A modular application under the real {@code -javaagent}: its domain classes in a named module
 * that knows nothing of persistence (it neither requires perpetua-core nor opens a package),
 * perpetua-core and the file store on the module path. Rewritten, the classes implement
 * {@code io.perpetua.runtime.Persistent}: the agent makes their module read perpetua-core and
 * open its packages to it, records-only ones too. Until session 41 the first
 * {@code new Order(...)} failed with {@code IllegalAccessError: ... module shop.model does not
 * read module perpetua.core}.
 */
class ModularApplicationIT {
    private static final Map<String, String> SOURCES = Map.of(
            "shop.model/module-info.java", "module shop.model { exports shop.model; exports shop.model.money; }",
            "shop.model/shop/model/Order.java", """
                    package shop.model;
                    import java.util.ArrayList;
                    import java.util.List;
                    public class Order {
                        private final String customer;
                        private final List<Line> lines = new ArrayList<>();
                        public Order(String customer) { this.customer = customer; }
                        public void add(String item, int quantity) { lines.add(new Line(item, quantity)); }
                        @Override public String toString() { return customer + " " + lines; }
                    }
                    """,
            "shop.model/shop/model/Line.java", "package shop.model; public record Line(String item, int quantity) { }",
            "shop.model/shop/model/money/Money.java",
            "package shop.model.money; public record Money(long cents, String currency) { }",
            "shop.app/module-info.java", "module shop.app { requires shop.model; requires perpetua.core; }",
            "shop.app/shop/app/Main.java", """
                    package shop.app;
                    import io.perpetua.PersistentStore;
                    import shop.model.Order;
                    import shop.model.money.Money;
                    public class Main {
                        public static void main(String[] a) {
                            try (PersistentStore s = PersistentStore.open("file:" + a[1])) {
                                if (a[0].equals("write")) {
                                    // a record of a package no rewritten class was loaded from, first
                                    s.inTransaction(() -> s.persist(new Money(250, "EUR"), "price"));
                                    Order o = new Order("ada");
                                    o.add("tea", 2);
                                    s.inTransaction(() -> s.persist(o, "order"));
                                } else {
                                    System.out.println(s.fetch("price", Money.class) + " " + s.fetch("order", Order.class));
                                }
                            }
                        }
                    }
                    """);

    @Test
    void domainClassesOfANamedModuleArePersistedWithNoFlagOfTheirOwn(@TempDir Path dir) throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.copy(Path.of(jarOnTestClassPath("perpetua-core")), lib.resolve("perpetua-core.jar"));
        Files.copy(Path.of(jarOnTestClassPath("perpetua-store-file")), lib.resolve("perpetua-store-file.jar"));
        Path mods = compile(dir, lib);
        for (String mode : List.of("write", "read")) { // the read in a new JVM: the record is the first class it loads
            Run run = ForkedJvm.java(JDK17, List.of(agent("failFast"), "-p", mods + File.pathSeparator + lib),
                    dir.toString(), 120, "-m", "shop.app/shop.app.Main", mode, dir.resolve("store").toString());
            assertEquals(0, run.exit(), run::toString);
            assertEquals(mode.equals("write") ? "" : "Money[cents=250, currency=EUR] ada [Line[item=tea, quantity=2]]\n",
                    run.out(), run::toString);
        }
    }

    private static Path compile(Path dir, Path lib) throws Exception {
        Path src = dir.resolve("src");
        Path out = dir.resolve("mods");
        List<String> cmd = new ArrayList<>(List.of(JDK17.resolve("bin/javac").toString(), "--release", "17",
                "--module-source-path", src.toString(), "-p", lib.toString(), "-d", out.toString()));
        for (Map.Entry<String, String> e : SOURCES.entrySet()) {
            Path file = src.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
            cmd.add(file.toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, output);
        return out;
    }
}
