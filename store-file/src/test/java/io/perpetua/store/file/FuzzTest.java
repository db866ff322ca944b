package io.perpetua.store.file;

import io.perpetua.PersistentStoreException;
import io.perpetua.spi.WriteSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Damages store files at random (seeded) and opens and reads everything: the only outcomes
 * allowed are a {@link PersistentStoreException} (of any subtype) or success with exactly what
 * was committed, never another exception type, never a partial commit, never a hang (each case
 * runs under a timeout).
 *
 * <p>Four template stores: closed cleanly (the checkpoint covers everything); a crash image
 * with a checkpoint in the middle and the log after it spanning segments; a crash image after
 * a compaction; and a crash image of a {@code sync=false} store, for which success may also be
 * the state after any commit since the last sync point (that is the option's documented
 * trade-off) but never anything else. Damage is one of: flipped bytes, a run of zeros or of
 * random bytes (at most 32 bytes, one place), a truncation, or random bytes appended.
 */
class FuzzTest {
    private static final int CASES_PER_TEMPLATE = 400;
    private static final long SEED = 0xF11E5L;

    /** What a store shows: the records of the ids that were ever used, the names, the descriptors. */
    private record Snapshot(Map<Long, String> records, SortedMap<String, Long> names, Map<Integer, String> descriptors) {
    }

    /** A template store and the states a reader may legitimately find in it. */
    private record Template(String name, Path dir, List<Snapshot> acceptable, long[] ids) {
    }

    @Test
    void randomDamageGivesOnlyPerpetuaExceptionsOrTheCommittedData(@TempDir Path root) throws Exception {
        List<Template> templates = List.of(
                closedTemplate(root.resolve("t-closed")),
                crashTemplate(root.resolve("t-crash"), false, true),
                crashTemplate(root.resolve("t-compacted"), true, true),
                crashTemplate(root.resolve("t-nosync"), false, false));
        Random random = new Random(SEED);
        ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-case");
            t.setDaemon(true);
            return t;
        });
        Map<String, Integer> outcomes = new TreeMap<>();
        int cases = 0;
        try {
            for (Template template : templates) {
                for (int i = 0; i < CASES_PER_TEMPLATE; i++, cases++) {
                    Path dir = root.resolve("case");
                    deleteTree(dir);
                    Stores.copy(template.dir, dir);
                    String damage = damage(dir, random);
                    String what = template.name + " case " + i + ": " + damage;
                    Future<String> outcome = runner.submit(() -> openAndReadAll(dir, template));
                    String result;
                    try {
                        result = outcome.get(60, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        outcome.cancel(true);
                        throw new AssertionError(what + ": hangs", e);
                    } catch (java.util.concurrent.ExecutionException e) {
                        throw new AssertionError(what + ": " + e.getCause(), e.getCause());
                    }
                    outcomes.merge(result, 1, Integer::sum);
                }
            }
        } finally {
            runner.shutdownNow();
        }
        System.out.println(cases + " damaged stores: " + outcomes);
        assertTrue(cases >= 1000);
        assertTrue(outcomes.getOrDefault("intact", 0) > 0 && outcomes.size() > 2, outcomes.toString());
    }

    /**
     * @return "intact", "earlier state" or the simple name of the Perpetua exception
     * @throws AssertionError for any other outcome
     */
    private static String openAndReadAll(Path dir, Template template) {
        Snapshot found;
        try (FileBackend b = Stores.open(dir, "autoCompact=false")) {
            found = snapshot(b, template.ids);
            // The store must also take a new commit after whatever recovery did.
            long id = b.allocateIds(1);
            b.commit(new WriteSet().put(id, new byte[] {1, 2, 3}).bind("fuzz", id));
            if (b.read(id).length != 3 || b.lookup("fuzz") != id) {
                throw new AssertionError("a commit after recovery is not visible");
            }
        } catch (PersistentStoreException e) {
            if (e.getMessage() == null || e.getMessage().isBlank()) {
                throw new AssertionError("a Perpetua exception without a message", e);
            }
            return e.getClass().getSimpleName();
        }
        List<Snapshot> acceptable = template.acceptable;
        if (found.equals(acceptable.get(acceptable.size() - 1))) {
            return "intact";
        }
        if (acceptable.contains(found)) {
            return "earlier state";
        }
        fail("damage gave a state that was never committed: " + diff(found, acceptable.get(acceptable.size() - 1)));
        return null;
    }

    private static String diff(Snapshot found, Snapshot expected) {
        StringBuilder s = new StringBuilder();
        expected.records.forEach((id, v) -> {
            if (!v.equals(found.records.get(id))) {
                s.append("object ").append(id).append(": ").append(found.records.get(id)).append(" instead of ")
                        .append(v).append("; ");
            }
        });
        if (!found.records.keySet().equals(expected.records.keySet())) {
            s.append("ids ").append(found.records.keySet()).append(" instead of ").append(expected.records.keySet());
        }
        if (!found.names.equals(expected.names)) {
            s.append("names ").append(found.names).append(" instead of ").append(expected.names).append("; ");
        }
        if (!found.descriptors.equals(expected.descriptors)) {
            s.append("descriptors differ; ");
        }
        return s.toString();
    }

    private static Snapshot snapshot(FileBackend b, long[] ids) {
        Map<Long, String> records = new TreeMap<>();
        byte[][] many = b.readMany(ids);
        for (int i = 0; i < ids.length; i++) {
            byte[] one = b.read(ids[i]);
            String a = many[i] == null ? "<none>" : HexFormat.of().formatHex(many[i]);
            String c = one == null ? "<none>" : HexFormat.of().formatHex(one);
            if (!a.equals(c)) {
                throw new AssertionError("read and readMany of " + ids[i] + " differ");
            }
            records.put(ids[i], a);
        }
        Map<Integer, String> descriptors = new TreeMap<>();
        b.classDescriptors().forEach((k, v) -> descriptors.put(k, HexFormat.of().formatHex(v)));
        b.statistics();
        return new Snapshot(records, b.names(), descriptors);
    }

    // ---------------------------------------------------------------- templates

    /** Builds a store with overwrites, deletes, names and descriptors; records every state. */
    private static final class Builder {
        final Random random = new Random(42);
        final List<Snapshot> states = new ArrayList<>();
        final TreeSet<Long> used = new TreeSet<>();
        final Map<Long, String> records = new TreeMap<>();
        final TreeMap<String, Long> names = new TreeMap<>();
        final Map<Integer, String> descriptors = new TreeMap<>();
        long first;

        void commits(FileBackend b, int count) {
            if (first == 0) {
                first = b.allocateIds(60);
            }
            for (int c = 0; c < count; c++) {
                WriteSet w = new WriteSet();
                int n = 1 + random.nextInt(8);
                for (int i = 0; i < n; i++) {
                    long id = first + random.nextInt(60);
                    used.add(id);
                    if (random.nextInt(6) == 0) {
                        w.delete(id);
                    } else {
                        byte[] v = new byte[random.nextInt(120)];
                        random.nextBytes(v);
                        w.put(id, v);
                    }
                }
                if (random.nextInt(3) == 0) {
                    w.bind("n" + random.nextInt(6), first + random.nextInt(60));
                }
                if (random.nextInt(5) == 0) {
                    w.unbind("n" + random.nextInt(6));
                }
                if (random.nextInt(8) == 0) {
                    int d = descriptors.size() + 1;
                    w.classDescriptor(d, ("descriptor " + d).getBytes());
                }
                b.commit(w);
                w.puts().forEach((id, v) -> records.put(id, HexFormat.of().formatHex(v)));
                w.deletes().forEach(records::remove);
                names.putAll(w.binds());
                w.unbinds().forEach(names::remove);
                w.classDescriptors().forEach((k, v) -> descriptors.put(k, HexFormat.of().formatHex(v)));
                record();
            }
        }

        void record() {
            Map<Long, String> view = new TreeMap<>();
            for (long id = first; id <= first + 60; id++) {
                view.put(id, records.getOrDefault(id, "<none>"));
            }
            states.add(new Snapshot(view, new TreeMap<>(names), new TreeMap<>(descriptors)));
        }

        long[] ids() {
            long[] ids = new long[61];
            for (int i = 0; i < 61; i++) {
                ids[i] = first + i; // the last one was never written
            }
            return ids;
        }
    }

    private static Template closedTemplate(Path dir) {
        Builder builder = new Builder();
        try (FileBackend b = Stores.open(dir, "segmentSize=4k&autoCompact=false")) {
            builder.commits(b, 60);
        }
        return new Template("closed", dir, last(builder.states), builder.ids());
    }

    private static Template crashTemplate(Path dir, boolean compact, boolean sync) {
        Builder builder = new Builder();
        Path live = dir.resolveSibling(dir.getFileName() + "-live");
        int acceptableFrom;
        try (FileBackend b = Stores.open(live, "segmentSize=4k&autoCompact=false&sync=" + sync)) {
            builder.commits(b, 40);
            if (compact) {
                b.compact();
            }
            b.checkpoint();
            acceptableFrom = builder.states.size() - 1;
            builder.commits(b, 30);
            if (sync) {
                acceptableFrom = builder.states.size() - 1;
            }
            Stores.copy(live, dir);
        }
        return new Template(compact ? "compacted" : sync ? "crash" : "nosync", dir,
                builder.states.subList(acceptableFrom, builder.states.size()), builder.ids());
    }

    private static List<Snapshot> last(List<Snapshot> states) {
        return List.of(states.get(states.size() - 1));
    }

    // ---------------------------------------------------------------- damage

    private static String damage(Path dir, Random random) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.sorted().toList();
        }
        Path file = files.get(random.nextInt(files.size()));
        long size = Files.size(file);
        int kind = random.nextInt(6);
        String name = file.getFileName().toString();
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            if (size == 0) {
                kind = 5;
            }
            switch (kind) {
                case 0, 1 -> {
                    long at = (long) (random.nextDouble() * size);
                    int run = kind == 0 ? 1 : 1 + random.nextInt(8);
                    for (int i = 0; i < run && at + i < size; i++) {
                        f.seek(at + i);
                        int b = f.read();
                        f.seek(at + i);
                        f.write(b ^ (1 + random.nextInt(255)));
                    }
                    return "flip " + run + " byte(s) of " + name + " at " + at;
                }
                case 2, 3 -> {
                    long at = (long) (random.nextDouble() * size);
                    byte[] run = new byte[1 + random.nextInt(32)];
                    if (kind == 3) {
                        random.nextBytes(run);
                    }
                    f.seek(at);
                    f.write(run, 0, (int) Math.min(run.length, size - at));
                    return (kind == 2 ? "zero " : "scramble ") + run.length + " bytes of " + name + " at " + at;
                }
                case 4 -> {
                    long to = (long) (random.nextDouble() * size);
                    f.setLength(to);
                    return "truncate " + name + " from " + size + " to " + to;
                }
                default -> {
                    byte[] tail = new byte[1 + random.nextInt(2000)];
                    if (random.nextBoolean()) {
                        random.nextBytes(tail);
                    }
                    f.seek(size);
                    f.write(tail);
                    return "append " + tail.length + " bytes to " + name;
                }
            }
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
