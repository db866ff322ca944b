package readersapp;

import io.perpetua.PersistentStore;
import io.perpetua.runtime.Persistent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Threads reading one store at once, through classes the agent rewrote: each thread walks every
 * part of a graph that starts hollow, so the threads fault the same objects in at the same time,
 * and each checks what it reads against a digest of the graph as written.
 *
 * <ul>
 *   <li>{@code write <uri> <parts> <seed>}: builds the graph, binds its array of parts to
 *       {@code "all"}, commits, and prints {@code digest=N};</li>
 *   <li>{@code update <uri> <threads>}: in one transaction, the threads change every part at
 *       once, each its own share (a field, an array element in place, the hash set, the map),
 *       then the main thread commits and prints {@code digest=N} of what the parts hold;</li>
 *   <li>{@code read <uri> <threads> <rounds> <digest>}: per round, opens the store and has every
 *       thread compute the digest, each from its own starting part; prints {@code round R ok}.
 *       A wrong digest, a set that does not find its own element, or one part read back as two
 *       objects prints the error and exits with status 1.</li>
 * </ul>
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("rewritten=" + (new Part(0) instanceof Persistent));
        try {
            if (args[0].equals("write")) {
                write(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
            } else if (args[0].equals("update")) {
                update(args[1], Integer.parseInt(args[2]));
            } else {
                read(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Long.parseLong(args[4]));
            }
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void write(String uri, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Part[] all = new Part[n];
        for (int i = 0; i < n; i++) {
            all[i] = new Part(i);
        }
        for (Part p : all) {
            p.links = new Part[] {all[random.nextInt(n)], all[random.nextInt(n)], all[random.nextInt(n)]};
            p.kids = new ArrayList<>(List.of(all[random.nextInt(n)], all[random.nextInt(n)]));
            p.tags = new HashSet<>();
            for (int t = 0; t < 3; t++) {
                p.tags.add(new Tag("t" + p.id + "-" + t, 1 + random.nextInt(100)));
            }
            p.counts = new HashMap<>(Map.of("a", random.nextInt(1000), "b", random.nextInt(1000)));
        }
        try (PersistentStore store = PersistentStore.open(uri)) {
            store.inTransaction(() -> store.persist(all, "all"));
        }
        System.out.println("digest=" + digest(all, 0));
    }

    private static void update(String uri, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (PersistentStore store = PersistentStore.open(uri)) {
            store.beginTransaction();
            Part[] all = (Part[]) store.fetch("all");
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int share = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = share; i < all.length; i += threads) {
                        Part p = all[i];
                        p.name = p.name + "'";
                        p.links[0] = all[(i + 1) % all.length];
                        p.tags.add(new Tag("u" + i, i % 7 + 1));
                        p.counts.put("c", i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            store.commitTransaction();
            System.out.println("digest=" + digest(all, 0));
        } finally {
            pool.shutdownNow();
        }
    }

    private static void read(String uri, int threads, int rounds, long expected) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int r = 0; r < rounds; r++) {
                try (PersistentStore store = PersistentStore.open(uri)) {
                    Part[] all = (Part[]) store.fetch("all");
                    CyclicBarrier start = new CyclicBarrier(threads);
                    List<Future<long[][]>> views = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        int from = t * all.length / threads;
                        views.add(pool.submit(() -> {
                            start.await();
                            long[][] seen = new long[all.length][];
                            digest(all, from, seen);
                            return seen;
                        }));
                    }
                    for (Future<long[][]> v : views) {
                        long[][] seen = v.get(120, TimeUnit.SECONDS);
                        if (sum(seen) != expected) {
                            throw new AssertionError("round " + r + ": digest " + sum(seen) + ", expected " + expected
                                    + differences(all, seen));
                        }
                    }
                }
                System.out.println("round " + r + " ok");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long sum(long[][] parts) {
        long sum = 0;
        for (long[] part : parts) {
            for (long component : part) {
                sum += component;
            }
        }
        return sum;
    }

    /** @return what a thread saw that differs from what the parts hold now, all resident, part by part */
    private static String differences(Part[] all, long[][] seen) {
        long[][] now = new long[all.length][];
        digest(all, 0, now);
        StringBuilder b = new StringBuilder();
        String[] names = {"id and name", "links", "kids", "tags", "counts"};
        for (int i = 0; i < all.length; i++) {
            for (int c = 0; c < names.length; c++) {
                if (seen[i][c] != now[i][c]) {
                    b.append("\n  part ").append(i).append(' ').append(names[c]).append(": seen ").append(seen[i][c])
                            .append(", now ").append(now[i][c]);
                }
            }
        }
        return b.length() == 0 ? " (each part's components agree with a second walk: only the sum differs)" : b.toString();
    }

    /** @return a sum over every part of what it holds (the same in any order), checking identity and lookups */
    static long digest(Part[] all, int from) {
        long[][] parts = new long[all.length][];
        digest(all, from, parts);
        return sum(parts);
    }

    /** Fills {@code parts[id]} with the components of each part's digest, walking from part {@code from}. */
    static void digest(Part[] all, int from, long[][] parts) {
        for (int i = 0; i < all.length; i++) {
            Part p = all[(from + i) % all.length];
            long[] d = new long[5];
            parts[(from + i) % all.length] = d;
            d[0] = p.id * 1_000_003L + p.name.hashCode();
            Part[] links = p.links;
            for (int j = 0; j < links.length; j++) {
                Part l = links[j];
                if (all[l.id] != l) {
                    throw new AssertionError("part " + l.id + " read back as two objects");
                }
                d[1] += (j + 1) * 31L * l.id;
            }
            for (Part k : p.kids) {
                d[2] += 7L * k.id;
            }
            for (Tag t : p.tags) {
                if (!p.tags.contains(new Tag(t.label, 0))) {
                    throw new AssertionError("the tags of part " + p.id + " do not find " + t.label);
                }
                d[3] += (long) t.label.hashCode() * t.weight;
            }
            for (Map.Entry<String, Integer> e : p.counts.entrySet()) {
                d[4] += e.getKey().hashCode() ^ e.getValue();
            }
        }
    }
}
