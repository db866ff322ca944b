package io.perpetua.benchmarks.jmh.kernel;

import io.perpetua.benchmarks.jmh.KernelFixtures;
import io.perpetua.benchmarks.jmh.KernelModel;

import java.util.SplittableRandom;

/**
 * The one implementation of {@link KernelModel}: plain Java over {@link PartIndex},
 * {@link Part}, {@link Connection} and {@link Item}, loaded rewritten so that every field access
 * here carries the agent's residency check.
 */
public final class Graph implements KernelModel {
    private static final String[] PART_TYPES = new String[10];
    private static final String[] CONNECTION_TYPES = new String[10];

    static {
        for (int i = 0; i < 10; i++) {
            PART_TYPES[i] = "part-type" + i;
            CONNECTION_TYPES[i] = "conn-type" + i;
        }
    }

    private PartIndex index;
    private int[] targets = new int[0];
    private SplittableRandom pending;
    /** Keeps the reads of {@link #prepareInsert} observable. */
    private long sink;

    @Override
    public Object build(int parts, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        PartIndex root = new PartIndex();
        Part[] all = new Part[parts + 1];
        for (int id = 1; id <= parts; id++) {
            all[id] = newPart(id, random);
            root.add(all[id]);
        }
        for (int id = 1; id <= parts; id++) {
            for (int k = 0; k < 3; k++) {
                connect(all[id], k, all[KernelFixtures.target(random, id, parts)], random);
            }
        }
        index = root;
        return root;
    }

    private static Part newPart(int id, SplittableRandom random) {
        return new Part(id, PART_TYPES[random.nextInt(10)], random.nextInt(100_000), random.nextInt(100_000),
                random.nextLong(3_650));
    }

    private static void connect(Part from, int k, Part to, SplittableRandom random) {
        Connection c = new Connection(from, to, CONNECTION_TYPES[random.nextInt(10)], 1 + random.nextInt(1000));
        from.to[k] = c;
        to.addFrom(c);
    }

    @Override
    public int attach(Object root) {
        index = (PartIndex) root;
        int n = index.count;
        for (int c = 0; c * PartIndex.CHUNK < n; c++) {
            if (index.chunks[c].parts.length != PartIndex.CHUNK) {
                throw new IllegalStateException("chunk " + c);
            }
        }
        return n;
    }

    @Override
    public Object part(int id) {
        return index.part(id);
    }

    @Override
    public long touch(int id) {
        Part p = index.part(id);
        return p.x + 31L * p.y + p.type.length();
    }

    @Override
    public Object[] chunks() {
        int n = (index.count + PartIndex.CHUNK - 1) / PartIndex.CHUNK;
        return java.util.Arrays.copyOf(index.chunks, n, Object[].class);
    }

    @Override
    public int[] prepareInsert(int n, SplittableRandom random) {
        int count = index.count;
        targets = new int[3 * n];
        long digest = 0;
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                int t = KernelFixtures.target(random, count + 1 + i, count);
                targets[3 * i + k] = t;
                Part p = index.part(t);
                digest += p.x + p.from.length;     // resident, with its incoming list
            }
        }
        pending = random.split();
        sink += digest;
        return targets.clone();
    }

    @Override
    public int insert() {
        int first = index.count + 1;
        int n = targets.length / 3;
        for (int i = 0; i < n; i++) {
            Part p = newPart(first + i, pending);
            for (int k = 0; k < 3; k++) {
                connect(p, k, index.part(targets[3 * i + k]), pending);
            }
            index.add(p);
        }
        targets = new int[0];
        return first;
    }

    @Override
    public Object newItem(int id) {
        return new Item(id, PART_TYPES[id % 10], id * 7 % 100_000, id * 13 % 100_000, id % 3_650);
    }

    @Override
    public void touchItems(Object[] items, int value) {
        for (Object o : items) {
            ((Item) o).x = value;
        }
    }
}
