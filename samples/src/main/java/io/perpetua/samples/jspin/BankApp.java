package io.perpetua.samples.jspin;

import io.perpetua.PersistentStore;

import java.nio.file.Path;

/**
 * The JSPIN style (Java persistence as in JSPIN, 1997): objects name themselves as roots with
 * {@code account.persist("alice")}, come back with {@code Account.fetch("alice")}, typed, and
 * transactions commit or abort. An abort does not only leave the store alone: it puts the very
 * objects the program holds back to their last committed values.
 *
 * <p>Each run: fetch alice and bob and print them; transfer 30 and print (changed in memory);
 * abort and print (back to the committed values); transfer 10 and commit. The first run opens
 * both accounts with 100; the next run, in a fresh JVM, starts from the committed 90 and 110.
 *
 * <p>{@code persist(String)} and the static {@code fetch(String)} are added to {@link Account} by
 * the rewriting, which {@code javac} cannot see: the build rewrites {@code Account} first
 * ({@code java -jar perpetua-agent.jar rewrite}, see the samples' {@code pom.xml}) and compiles
 * this class against the result. Since {@code Account} is rewritten on disk, the program also
 * runs without the agent, with perpetua-core on the class path.
 *
 * <pre>
 * java -javaagent:perpetua-agent.jar -cp ... io.perpetua.samples.jspin.BankApp bank.db
 * java -cp ...:perpetua-core.jar io.perpetua.samples.jspin.BankApp bank.db
 * </pre>
 * On JDK 24 or newer, with RocksDB, add {@code --enable-native-access=ALL-UNNAMED} (see the README).
 */
public final class BankApp {
    private BankApp() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: BankApp <store directory>");
            System.exit(2);
        }
        try (PersistentStore store = PersistentStore.open(Path.of(args[0]))) {    // RocksDB, the default
            store.beginTransaction();
            if (!store.isBound("alice")) {
                new Account("alice", 100).persist("alice");                       // a named root
                new Account("bob", 100).persist("bob");
                store.commitTransaction();
                store.beginTransaction();
            }
            Account alice = Account.fetch("alice");                               // typed: no cast
            Account bob = Account.fetch("bob");
            System.out.println("committed balances:   " + alice + ", " + bob);

            alice.transfer(30, bob);
            System.out.println("after transfer of 30: " + alice + ", " + bob);
            store.abortTransaction();                                             // changes undone in memory too
            System.out.println("after abort:          " + alice + ", " + bob);

            store.beginTransaction();
            alice.transfer(10, bob);
            store.commitTransaction();
            System.out.println("after commit of 10:   " + alice + ", " + bob);
        }
    }
}
