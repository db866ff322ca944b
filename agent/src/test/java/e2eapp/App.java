package e2eapp;

import io.perpetua.PersistentStore;
import io.perpetua.runtime.Persistent;

/**
 * The program the end-to-end tests run in forked JVMs under the real {@code -javaagent}.
 * {@code App build URI}: builds the graph and commits it; {@code App touch URI}: fetches the
 * root, touches one employee, changes it and commits, printing how many records it read;
 * {@code App abort URI}: changes an employee and a dept, aborts, and prints what the program
 * then reads of them; {@code App dump URI}: prints the whole graph, one line per object;
 * {@code App preload URI}: preloads the graph, then prints how many records that read, how many
 * the dump then read, how many a second preload read, and the dump.
 */
public final class App {
    private App() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        try (PersistentStore store = PersistentStore.open(args[1])) {
            switch (mode) {
                case "build" -> build(store);
                case "touch" -> touch(store);
                case "abort" -> abort(store);
                case "dump" -> System.out.print(dump(store));
                case "preload" -> preload(store);
                default -> throw new IllegalArgumentException(mode);
            }
        }
    }

    private static void build(PersistentStore store) throws Exception {
        System.out.println("rewritten=" + (((Object) new Company("x", 0, 0)) instanceof Persistent));
        store.beginTransaction();
        Company c = new Company("acme", 10, 10);
        // persist(String) is added by the agent: call it through reflection (plain javac cannot see it)
        Company.class.getMethod("persist", String.class).invoke(c, "acme");
        store.commitTransaction();
        System.out.print(dump(store));
    }

    private static void touch(PersistentStore store) throws Exception {
        long before = store.statistics().recordsRead();
        store.beginTransaction();
        // the static fetch(String) added by the agent, returning the class's own type
        Company c = (Company) Company.class.getMethod("fetch", String.class).invoke(null, "acme");
        System.out.println("fetchType=" + Company.class.getMethod("fetch", String.class).getReturnType().getName());
        long afterFetch = store.statistics().recordsRead();
        Employee e = c.depts[3].staff[2];
        e.salary += 500;
        c.counter.increment();
        store.commitTransaction();
        long after = store.statistics().recordsRead();
        System.out.println("readByFetch=" + (afterFetch - before));
        System.out.println("readByTouch=" + (after - afterFetch));
        System.out.println("objects=" + store.statistics().objects());
        System.out.println("changed=" + e.line());
    }

    /** Field reads after an abort must see the committed values, not the aborted ones. */
    private static void abort(PersistentStore store) {
        Company c = store.fetch("acme", Company.class);
        Dept d = c.depts[3];
        Employee e = d.staff[2];
        store.beginTransaction();
        e.salary += 1000;
        e.name = "renamed";
        d.budget = 5;
        store.abortTransaction();
        // plain field reads from this class first (a method of the object would fill it on entry)
        int salary = e.salary;
        int budget = d.budget;
        System.out.println("afterAbort=salary " + salary + " budget " + budget + " " + e.line());
        // an array field read through this, inside a method of a dept never read in this JVM:
        // the fill leaves the array lazy, and the read must decode it rather than see its marker
        System.out.println("staffOfDept5=" + c.depts[5].staffNames());
    }

    private static void preload(PersistentStore store) {
        long read = store.preload("acme");
        long before = store.statistics().recordsRead();
        String dump = dump(store);
        System.out.println("readByPreload=" + read);
        System.out.println("readByDump=" + (store.statistics().recordsRead() - before));
        System.out.println("readBySecondPreload=" + store.preload("acme"));
        System.out.print(dump);
    }

    static String dump(PersistentStore store) {
        Company c = store.fetch("acme", Company.class);
        StringBuilder out = new StringBuilder();
        out.append("company ").append(c.name).append(" counter=").append(c.counter).append(" motto=")
                .append(c.motto).append('\n');
        for (Dept d : c.depts) {
            out.append("dept ").append(d.name).append(" budget=").append(d.budget).append(" head=")
                    .append(d.head.name).append(" company=").append(d.company == c).append('\n');
            for (Employee e : d.staff) {
                out.append("  ").append(e.line()).append(" sameHead=").append(e.manager == null || e.manager == d.head)
                        .append('\n');
            }
        }
        return out.toString();
    }
}
