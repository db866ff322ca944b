package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.NullProcedure.Answer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Everything measured for one row on one size: the load phase's and each operation's result
 * properties (see {@link RowRun}), and the row's overall status after the cross-check. Not
 * thread-safe.
 */
public final class RowResult {

    /** Overall status of a row. */
    public enum Status {
        /** Measured, answers agree with the reference. */
        OK,
        /** Not run, with the reason in the message (no agent, no server, ...). */
        SKIPPED,
        /** A phase threw or its JVM died; the message says which. */
        FAILED,
        /** Ran, but its answers differ from the reference: reported, not timed. */
        WRONG
    }

    public final Row row;
    public Status status = Status.OK;
    public String message = "";
    public String version = "";
    public Properties load;
    public final Map<Operation, Properties> operations = new EnumMap<>(Operation.class);

    public RowResult(Row row) {
        this.row = row;
    }

    /** Marks the row as not OK, keeping the first reason. */
    public void mark(Status s, String why) {
        if (status == Status.OK) {
            status = s;
            message = why;
        }
    }

    /** @return true if the row's figures may be shown */
    public boolean timed() {
        return status == Status.OK;
    }

    /** @return load time in milliseconds, or null */
    public Double loadMillis() {
        return timed() && load != null ? nanos(load, "load.nanos") : null;
    }

    /** @return size on disk in kilobytes, or null (also for the transient row) */
    public Double sizeKilobytes() {
        if (!timed() || load == null || row == Row.TRANSIENT) {
            return null;
        }
        long b = Long.parseLong(load.getProperty("size.bytes", "-1"));
        return b < 0 ? null : b / 1024.0;
    }

    /**
     * @return the heap the row holds with its whole database loaded, in megabytes (live objects
     *         after the load less those before it; the Java heap only, so not RocksDB's native
     *         memory), or null
     */
    public Double heapMegabytes() {
        String v = timed() && load != null ? load.getProperty("heap.bytes") : null;
        return v == null ? null : Long.parseLong(v) / (1024.0 * 1024.0);
    }

    /** @return the open time of an operation's phase in milliseconds, or null */
    public Double openMillis(Operation op) {
        Properties p = operations.get(op);
        return timed() && p != null ? nanos(p, "open.nanos") : null;
    }

    /** @return every run's time of an operation in nanoseconds, or null */
    public long[] times(Operation op) {
        Properties p = operations.get(op);
        if (p == null || p.getProperty("times") == null) {
            return null;
        }
        return Arrays.stream(p.getProperty("times").split(",")).mapToLong(Long::parseLong).toArray();
    }

    /** @return every run's answer of an operation, or null */
    public List<Answer> answers(Operation op) {
        Properties p = operations.get(op);
        if (p == null || p.getProperty("answers") == null) {
            return null;
        }
        List<Answer> a = new ArrayList<>();
        for (String s : p.getProperty("answers").split(",")) {
            a.add(Answer.parse(s));
        }
        return a;
    }

    /**
     * @param op the operation
     * @param cache cold (run 1), warm (median of runs 2 to 10) or hot (median of the last
     *        {@link RowRun#HOT_WINDOW} extra runs)
     * @return milliseconds, or null if not measured
     */
    public Double millis(Operation op, Cache cache) {
        long[] t = timed() ? times(op) : null;
        return t == null ? null : cache.of(t);
    }

    private static Double nanos(Properties p, String key) {
        String v = p.getProperty(key);
        return v == null ? null : Long.parseLong(v) / 1e6;
    }

    /** Which runs a figure summarises. */
    public enum Cache {
        COLD, WARM, HOT;

        /** @return the figure in milliseconds from every run's nanoseconds, or null */
        public Double of(long[] runs) {
            return switch (this) {
                case COLD -> runs[0] / 1e6;
                case WARM -> median(Arrays.copyOfRange(runs, 1, Math.min(RowRun.RUNS, runs.length)));
                case HOT -> runs.length <= RowRun.RUNS ? null
                        : median(Arrays.copyOfRange(runs,
                                Math.max(RowRun.RUNS, runs.length - RowRun.HOT_WINDOW), runs.length));
            };
        }

        /** @return lower-case name */
        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static Double median(long[] v) {
        if (v.length == 0) {
            return null;
        }
        long[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        double nanos = s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2.0;
        return nanos / 1e6;
    }
}
