package randomapp;

import io.perpetua.modelcheck.FlakyBackendProvider;
import io.perpetua.modelcheck.RandomProgram;
import io.perpetua.runtime.Persistent;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs random programs ({@link RandomProgram}) over this package's classes, as rewritten by the
 * agent this JVM was started with, on stores in a folder. Prints {@code rewritten=true} first
 * (the classes were rewritten), then {@code seed N ok} for each program; the first failure
 * prints its stack trace and exits with status 1.
 *
 * <p>Arguments: the folder, the store scheme ({@code rocksdb} or {@code file}), the first and
 * last seed, the operations per program, and optionally {@code faults}: the backend then fails
 * reads and commits at random points ({@code flaky:}, from core's test jar).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        Path folder = Path.of(args[0]);
        String scheme = args[1];
        long first = Long.parseLong(args[2]);
        long last = Long.parseLong(args[3]);
        int operations = Integer.parseInt(args[4]);
        RandomProgram.Faults faults = args.length > 5 && args[5].equals("faults") ? FlakyBackendProvider.FAULTS : null;
        System.out.println("rewritten=" + (new Node("probe", 0) instanceof Persistent && (Object) new Items() instanceof Persistent));
        AtomicInteger stores = new AtomicInteger();
        for (long seed = first; seed <= last; seed++) {
            try {
                new RandomProgram(seed, new AppClasses(),
                        () -> scheme + ":" + folder.resolve("store-" + stores.incrementAndGet()), false, 40, faults)
                        .run(operations);
            } catch (Throwable e) {
                e.printStackTrace();
                System.exit(1);
            }
            System.out.println("seed " + seed + " ok");
        }
        System.out.println("items made " + (Items.MADE.get() - 1)); // the probe above was one
    }
}
