package io.perpetua.samples.jspin;

/**
 * A bank account. Plain Java: nothing about persistence in it. The build rewrites this class
 * (see the samples' {@code pom.xml}), which adds {@code persist(String)} and the static, typed
 * {@code Account.fetch(String)} that {@link BankApp} calls.
 */
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

    /** Moves money from this account to another. */
    public void transfer(long amount, Account to) {
        balance -= amount;
        to.balance += amount;
    }

    @Override
    public String toString() {
        return owner + " " + balance;
    }
}
