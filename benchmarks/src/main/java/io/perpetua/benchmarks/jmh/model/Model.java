package io.perpetua.benchmarks.jmh.model;

import io.perpetua.benchmarks.jmh.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The benchmarked code: plain Java over {@link Cell}, {@link Part} and {@link Connection}. The
 * same class files run plain and rewritten; every field access here is from another class than
 * the field's, so in the rewritten copy each one goes through the generated static accessor and
 * its residency check.
 */
public final class Model implements Workload {
    private static final String[] TYPES = new String[10];

    static {
        for (int i = 0; i < TYPES.length; i++) {
            TYPES[i] = "part-type" + i;
        }
    }

    private final Cell[] cells;
    private final Part[] parts;
    private final int[] values = new int[1024];
    private final List<Object> all = new ArrayList<>();

    /**
     * @param cells how many cells for the field benchmarks
     * @param parts how many OO1 parts (3 outgoing connections each, OO1 locality rule)
     * @param seed the generator's seed
     */
    public Model(int cells, int parts, long seed) {
        this.cells = new Cell[cells];
        for (int i = 0; i < cells; i++) {
            this.cells[i] = new Cell(i);
            all.add(this.cells[i]);
        }
        SplittableRandom random = new SplittableRandom(seed);
        this.parts = new Part[parts];
        for (int i = 0; i < parts; i++) {
            this.parts[i] = new Part(i + 1, TYPES[random.nextInt(10)], random.nextInt(100_000),
                    random.nextInt(100_000), random.nextLong(3_650));
            all.add(this.parts[i]);
        }
        int window = Math.max(1, parts / 100);
        for (Part p : this.parts) {
            for (int k = 0; k < 3; k++) {
                int target;
                if (random.nextInt(10) < 9) {
                    target = Math.floorMod(p.id - 1 - window / 2 + random.nextInt(window), parts);
                } else {
                    target = random.nextInt(parts);
                }
                Connection c = new Connection(p, this.parts[target], TYPES[random.nextInt(10)], 1 + random.nextInt(1000));
                p.to[k] = c;
                all.add(c);
            }
        }
    }

    @Override
    public long readFields() {
        long sum = 0;
        for (Cell c : cells) {
            sum += c.value;
        }
        return sum;
    }

    @Override
    public void writeFields(int value) {
        for (Cell c : cells) {
            c.value = value;
        }
    }

    @Override
    public void writeArray(int value) {
        int[] a = values;
        for (int i = 0; i < a.length; i++) {
            a[i] = value + i;
        }
    }

    @Override
    public void writeArrays() {
        for (int i = 0; i < 1024; i++) {
            Connection[] to = parts[i].to;
            Connection c = to[0];
            to[0] = to[1];
            to[1] = c;
        }
    }

    @Override
    public long traverse(int root) {
        return visit(parts[Math.floorMod(root, parts.length)], 7);
    }

    /** Seed 004, Figure 1: depth-first, duplicates kept; the "null procedure" folds x, y and type. */
    private static long visit(Part p, int depth) {
        long digest = nullProcedure(p.x, p.y, p.type);
        if (depth > 0) {
            for (Connection c : p.to) {
                digest += visit(c.to, depth - 1);
            }
        }
        return digest;
    }

    private static long nullProcedure(int x, int y, String type) {
        return x + 31L * y + type.length();
    }

    @Override
    public Object[] objects() {
        return all.toArray();
    }
}
