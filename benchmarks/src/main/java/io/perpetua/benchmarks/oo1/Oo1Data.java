package io.perpetua.benchmarks.oo1;

import java.time.LocalDate;
import java.util.SplittableRandom;

/**
 * One OO1 database as plain numbers, generated deterministically from a master seed: the
 * neutral form every implementation builds its own representation from, so that every row
 * stores the same database. Also generates the insert batches and the random ids of the
 * operations.
 *
 * <p>The rules (spec {@code shared/design/oo1.md}): part ids 1..N; type one of ten 10-character
 * strings; x and y uniform in [0, 99999]; build date uniform over ten years; exactly three
 * outgoing connections per part, each with probability 0.9 to a part chosen uniformly among the
 * N/100 ids centred on the source (folded back inside 1..N at both ends), else to any part;
 * connection type one of ten 10-character strings; length uniform in [1, 1000].
 *
 * <p>Arrays are indexed from 0: part {@code id} is at {@code id - 1}, its connection
 * {@code k} (0..2) at {@code 3 * (id - 1) + k}. Immutable after generation (the arrays are
 * exposed for speed; callers must not change them); thread-safe to read.
 */
public final class Oo1Data {

    /** Outgoing connections per part. */
    public static final int FAN_OUT = 3;
    /** The ten part types, each 10 characters. */
    public static final String[] PART_TYPES = types("part-type");
    /** The ten connection types, each 10 characters. */
    public static final String[] CONNECTION_TYPES = types("conn-type");
    /** First day of the build-date span. */
    public static final LocalDate FIRST_BUILD_DAY = LocalDate.of(1990, 1, 1);
    /** Days in the build-date span: ten years. */
    public static final int BUILD_DAYS =
            (int) (FIRST_BUILD_DAY.plusYears(10).toEpochDay() - FIRST_BUILD_DAY.toEpochDay());
    /** Parts per insert run. */
    public static final int INSERT_PARTS = 100;

    /** Number of parts. */
    public final int parts;
    /** Part type index (into {@link #PART_TYPES}) per part. */
    public final byte[] partType;
    public final int[] x;
    public final int[] y;
    /** Build date per part, as {@link LocalDate#toEpochDay()}. */
    public final int[] buildDay;
    /** Target part id per connection. */
    public final int[] to;
    /** Connection type index (into {@link #CONNECTION_TYPES}) per connection. */
    public final byte[] connectionType;
    /** Length per connection. */
    public final int[] length;
    /** Number of incoming connections per part. */
    public final int[] incoming;

    private Oo1Data(int parts) {
        this.parts = parts;
        partType = new byte[parts];
        x = new int[parts];
        y = new int[parts];
        buildDay = new int[parts];
        to = new int[parts * FAN_OUT];
        connectionType = new byte[parts * FAN_OUT];
        length = new int[parts * FAN_OUT];
        incoming = new int[parts];
    }

    /**
     * Generates a database: first every part's attributes in id order, then every part's three
     * connections in id order.
     *
     * @param parts N, at least 1
     * @param seed the master seed
     * @return the database
     */
    public static Oo1Data generate(int parts, long seed) {
        Oo1Data d = new Oo1Data(parts);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < parts; i++) {
            d.partType[i] = (byte) r.nextInt(PART_TYPES.length);
            d.x[i] = r.nextInt(100_000);
            d.y[i] = r.nextInt(100_000);
            d.buildDay[i] = (int) FIRST_BUILD_DAY.toEpochDay() + r.nextInt(BUILD_DAYS);
        }
        for (int i = 0; i < parts; i++) {
            for (int k = 0; k < FAN_OUT; k++) {
                int c = i * FAN_OUT + k;
                int target = target(r, i + 1, parts);
                d.to[c] = target;
                d.connectionType[c] = (byte) r.nextInt(CONNECTION_TYPES.length);
                d.length[c] = 1 + r.nextInt(1000);
                d.incoming[target - 1]++;
            }
        }
        return d;
    }

    /** @return the type string of part {@code id} */
    public String partType(int id) {
        return PART_TYPES[partType[id - 1]];
    }

    /** @return the build date of part {@code id} */
    public LocalDate build(int id) {
        return LocalDate.ofEpochDay(buildDay[id - 1]);
    }

    /**
     * Chooses a connection's target with the locality rule.
     *
     * @param r the generator
     * @param source the source part's id
     * @param parts the ids to choose among: 1..parts
     * @return the target id in 1..parts
     */
    public static int target(SplittableRandom r, int source, int parts) {
        if (r.nextInt(10) < 9) {
            int window = Math.max(1, parts / 100);
            return fold(source - window / 2 + r.nextInt(window), parts);
        }
        return 1 + r.nextInt(parts);
    }

    /** Reflects an id that fell outside 1..parts back inside: 0 → 1, parts + 1 → parts. */
    static int fold(int id, int parts) {
        int folded = id;
        if (folded < 1) {
            folded = 1 - folded;
        }
        if (folded > parts) {
            folded = 2 * parts + 1 - folded;
        }
        if (folded < 1 || folded > parts) { // only if the window were wider than the database
            folded = Math.floorMod(id - 1, parts) + 1;
        }
        return folded;
    }

    /**
     * Generates the next insert run: {@value #INSERT_PARTS} new parts with ids
     * {@code existing + 1 ..}, each with three connections to parts that existed before the run
     * (1..existing), chosen with the locality rule centred on the new id.
     *
     * @param r the insert generator, never reset between runs
     * @param existing the number of parts before this run
     * @return the batch
     */
    public static Oo1Data insertBatch(SplittableRandom r, int existing) {
        Oo1Data b = new Oo1Data(INSERT_PARTS);
        for (int i = 0; i < INSERT_PARTS; i++) {
            b.partType[i] = (byte) r.nextInt(PART_TYPES.length);
            b.x[i] = r.nextInt(100_000);
            b.y[i] = r.nextInt(100_000);
            b.buildDay[i] = (int) FIRST_BUILD_DAY.toEpochDay() + r.nextInt(BUILD_DAYS);
            for (int k = 0; k < FAN_OUT; k++) {
                int c = i * FAN_OUT + k;
                b.to[c] = target(r, existing + 1 + i, existing);
                b.connectionType[c] = (byte) r.nextInt(CONNECTION_TYPES.length);
                b.length[c] = 1 + r.nextInt(1000);
            }
        }
        return b;
    }

    /**
     * The generator of one operation's random ids (or insert batches), derived from the master
     * seed; the harness makes one per operation and never resets it between runs.
     *
     * @param seed the master seed
     * @param operation the operation
     * @return a new generator
     */
    public static SplittableRandom operationRandom(long seed, Operation operation) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 1 + operation.ordinal());
    }

    private static String[] types(String prefix) {
        String[] t = new String[10];
        for (int i = 0; i < t.length; i++) {
            t[i] = prefix + i;
        }
        return t;
    }
}
