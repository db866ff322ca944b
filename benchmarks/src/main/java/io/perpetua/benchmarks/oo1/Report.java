package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.NullProcedure.Answer;
import io.perpetua.benchmarks.oo1.RowResult.Cache;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/**
 * The outputs of a comparison on one size: the table shaped like JSPIN's Tables 1 and 2, the
 * ratio tables, the targets, the JSON and the SVG chart. Pure functions of the results.
 */
public final class Report {

    /** Ratio targets for Perpetua + RocksDB (the issue's), checked in every run. */
    static final double WARM_HOT_VS_TRANSIENT = 1.10;
    static final double COLD_VS_ROCKSDB = 1.5;
    static final double INSERT_VS_ROCKSDB = 2.0;

    /** One line of the tables. */
    record Measure(String name, String cache, String unit, Function<RowResult, Double> value) {

        String key() {
            return cache.isEmpty() ? name : name + "." + cache;
        }
    }

    private Report() {
    }

    /** @return the measures, in table order */
    static List<Measure> measures() {
        List<Measure> m = new ArrayList<>();
        m.add(new Measure("load", "", "ms", RowResult::loadMillis));
        m.add(new Measure("size", "", "kB", RowResult::sizeKilobytes));
        m.add(new Measure("heap", "", "MB", RowResult::heapMegabytes));
        m.add(new Measure("open", "cold", "ms", r -> r.openMillis(Operation.LOOKUP)));
        for (Operation op : Operation.values()) {
            for (Cache c : Cache.values()) {
                m.add(new Measure(op.id(), c.id(), "ms", r -> r.millis(op, c)));
            }
        }
        return m;
    }

    /** @return one progress line for a finished phase */
    static String progressLine(RowRun.Settings s, String phase, Properties p) {
        String head = String.format(Locale.ROOT, "  [%s] %-17s %-10s", s.size().id(), s.row().id, phase);
        String status = p.getProperty("status");
        if (!"ok".equals(status)) {
            return head + status + ": " + p.getProperty("message", "");
        }
        if (phase.equals("load")) {
            long size = Long.parseLong(p.getProperty("size.bytes", "-1"));
            return head + String.format(Locale.ROOT, "load %s ms, %s on disk, %s MB of heap (generated in %s ms)",
                    num(Long.parseLong(p.getProperty("load.nanos")) / 1e6),
                    size < 0 ? "size unknown" : num(size / 1024.0) + " kB",
                    num(Long.parseLong(p.getProperty("heap.bytes")) / (1024.0 * 1024.0)),
                    num(Long.parseLong(p.getProperty("generate.nanos")) / 1e6));
        }
        RowResult r = new RowResult(s.row());
        Operation op = Operation.valueOf(phase.toUpperCase(Locale.ROOT));
        r.operations.put(op, p);
        List<Answer> a = r.answers(op);
        return head + String.format(Locale.ROOT, "open %s ms, cold %s ms, warm %s ms, hot %s ms%s",
                num(r.openMillis(op)), num(r.millis(op, Cache.COLD)), num(r.millis(op, Cache.WARM)),
                num(r.millis(op, Cache.HOT)),
                op == Operation.REVERSE ? ", " + a.get(0).visits() + " visits (cold run)" : "");
    }

    /** A number as a table shows it: three significant digits, at least. */
    static String num(Double v) {
        if (v == null) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** A ratio as the tables show it: two decimals, or two significant digits below 0.1. */
    static String ratio(Double v) {
        if (v == null) {
            return "-";
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (v >= 0.1 || v <= 0 || v.isNaN()) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return new BigDecimal(v).round(new MathContext(2)).toPlainString(); // 0.0034, not 0.00
    }

    private static RowResult find(List<RowResult> rows, Row row) {
        for (RowResult r : rows) {
            if (r.row == row && r.timed()) {
                return r;
            }
        }
        return null;
    }

    /** @return value of row / value of base, or null */
    static Double ratio(Measure m, RowResult row, RowResult base) {
        if (base == null) {
            return null;
        }
        Double a = m.value().apply(row);
        Double b = m.value().apply(base);
        return a == null || b == null || b == 0 ? null : a / b;
    }

    /** @return the printed tables for one size */
    static String tables(Size size, List<RowResult> rows, Map<String, String> environment) {
        int hot = Integer.parseInt(environment.getOrDefault("hotRuns", "0"));
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%nOO1, %s database: %,d parts, %,d connections."
                        + " Times in ms (cold = run 1 in a fresh JVM on a freshly opened store;"
                        + " warm = median of runs 2-10; hot = median of the last %d of %d extra runs).%n",
                size.id(), size.parts, size.parts * Oo1Data.FAN_OUT,
                Math.min(hot, RowRun.HOT_WINDOW), hot));
        sb.append("Machine: ").append(environment.get("machine")).append("; JDK ")
                .append(environment.get("jdk")).append("; heap ").append(environment.get("heap")).append('\n');
        sb.append(grid("measure", rows, measures(), (m, r) -> num(m.value().apply(r)), true));
        RowResult transientRow = find(rows, Row.TRANSIENT);
        RowResult rocks = find(rows, Row.ROCKSDB);
        List<Measure> ratioMeasures = measures().stream().filter(m -> !m.name().equals("size")
                && !m.name().equals("open") && !m.name().equals("heap")).toList();
        if (transientRow != null) {
            sb.append("\nRatio to transient Java (same run; lower is better):\n");
            List<Measure> vsTransient = new ArrayList<>(List.of(measure("heap")));
            vsTransient.addAll(ratioMeasures.stream().filter(m -> !m.name().equals("load")).toList());
            sb.append(grid("measure", rows, vsTransient, (m, r) -> ratio(ratio(m, r, transientRow)), false));
        }
        if (rocks != null) {
            sb.append("\nRatio to raw RocksDB (same run; lower is better):\n");
            List<Measure> withSize = new ArrayList<>(ratioMeasures);
            withSize.add(1, measure("size"));
            sb.append(grid("measure", rows, withSize, (m, r) -> ratio(ratio(m, r, rocks)), false));
        }
        sb.append('\n');
        for (RowResult r : rows) {
            sb.append(String.format(Locale.ROOT, "  %-25s %-8s %s%s%n", r.row.id, r.status.name().toLowerCase(Locale.ROOT),
                    r.version, r.message.isEmpty() ? "" : "  (" + r.message + ")"));
        }
        List<String[]> targets = targets(rows);
        if (!targets.isEmpty()) {
            sb.append("\nTargets for Perpetua+RocksDB:\n");
            for (String[] t : targets) {
                sb.append(String.format(Locale.ROOT, "  %-4s %-59s %s (limit %s)%n", t[3], t[0], t[1], t[2]));
            }
        }
        return sb.toString();
    }

    private static Measure measure(String name) {
        return measures().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    private interface Cell {
        String of(Measure m, RowResult r);
    }

    private static String grid(String title, List<RowResult> rows, List<Measure> measures, Cell cell,
                               boolean withVisits) {
        StringBuilder sb = new StringBuilder();
        int w0 = 20;
        List<Integer> widths = new ArrayList<>();
        for (RowResult r : rows) {
            widths.add(Math.max(10, r.row.label.length()) + 2);
        }
        sb.append(String.format(Locale.ROOT, "%-" + w0 + "s%-6s", title, "cache"));
        for (int i = 0; i < rows.size(); i++) {
            sb.append(String.format(Locale.ROOT, "%" + widths.get(i) + "s", rows.get(i).row.label));
        }
        sb.append('\n');
        String last = "";
        for (Measure m : measures) {
            String name = m.name().equals(last) ? "" : label(m);
            last = m.name();
            sb.append(String.format(Locale.ROOT, "%-" + w0 + "s%-6s", name, m.cache()));
            for (int i = 0; i < rows.size(); i++) {
                RowResult r = rows.get(i);
                String v = r.timed() ? cell.of(m, r) : r.status.name().toLowerCase(Locale.ROOT);
                sb.append(String.format(Locale.ROOT, "%" + widths.get(i) + "s", v));
            }
            sb.append('\n');
            if (withVisits && m.name().equals(Operation.REVERSE.id()) && m.cache().equals("hot")) {
                sb.append(String.format(Locale.ROOT, "%-" + w0 + "s%-6s", "  visits", "cold"));
                for (int i = 0; i < rows.size(); i++) {
                    RowResult r = rows.get(i);
                    List<Answer> a = r.timed() ? r.answers(Operation.REVERSE) : null;
                    sb.append(String.format(Locale.ROOT, "%" + widths.get(i) + "s",
                            a == null ? "-" : Long.toString(a.get(0).visits())));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String label(Measure m) {
        return switch (m.name()) {
            case "load" -> "load (ms)";
            case "size" -> "size on disk (kB)";
            case "heap" -> "heap after load (MB)";
            case "open" -> "open (ms)";
            case "reverse" -> "reverse traversal";
            default -> m.name();
        };
    }

    /**
     * @return the targets for Perpetua + RocksDB that can be checked, for the row that reads
     *         lazily and then for the preloaded one: {what, ratio, limit, PASS|MISS}
     */
    static List<String[]> targets(List<RowResult> rows) {
        List<String[]> out = new ArrayList<>();
        RowResult t = find(rows, Row.TRANSIENT);
        RowResult k = find(rows, Row.ROCKSDB);
        for (Row row : new Row[] {Row.PERPETUA_ROCKSDB, Row.PERPETUA_ROCKSDB_PRELOAD}) {
            RowResult p = find(rows, row);
            if (p == null) {
                continue;
            }
            String prefix = row == Row.PERPETUA_ROCKSDB ? "" : "preloaded: ";
            for (Operation op : new Operation[] {Operation.LOOKUP, Operation.TRAVERSAL}) {
                for (Cache c : new Cache[] {Cache.WARM, Cache.HOT}) {
                    target(out, prefix + op.id() + " " + c.id() + " vs transient Java", p, t, op, c,
                            WARM_HOT_VS_TRANSIENT);
                }
                target(out, prefix + op.id() + " cold vs raw RocksDB", p, k, op, Cache.COLD, COLD_VS_ROCKSDB);
            }
            for (Cache c : Cache.values()) {
                target(out, prefix + "insert " + c.id() + " vs raw RocksDB", p, k, Operation.INSERT, c,
                        INSERT_VS_ROCKSDB);
            }
        }
        return out;
    }

    private static void target(List<String[]> out, String what, RowResult row, RowResult base, Operation op,
                               Cache c, double limit) {
        if (base == null) {
            return;
        }
        Double a = row.millis(op, c);
        Double b = base.millis(op, c);
        if (a == null || b == null) {
            return;
        }
        double r = a / b;
        out.add(new String[] {what, ratio(r), ratio(limit), r <= limit ? "PASS" : "MISS"});
    }

    // ---------------------------------------------------------------- JSON

    /** @return the results of one size as JSON */
    static String json(Size size, long seed, List<RowResult> rows, Map<String, String> environment,
                       List<String> notes) {
        Json j = new Json();
        j.open('{');
        j.field("benchmark").string("OO1");
        j.field("size").string(size.id());
        j.field("parts").number(size.parts);
        j.field("connections").number((long) size.parts * Oo1Data.FAN_OUT);
        j.field("seed").number(seed);
        j.field("environment").open('{');
        for (Map.Entry<String, String> e : environment.entrySet()) {
            j.field(e.getKey()).string(e.getValue());
        }
        j.close('}');
        j.field("notes").open('[');
        for (String n : notes) {
            j.string(n);
        }
        j.close(']');
        RowResult transientRow = find(rows, Row.TRANSIENT);
        RowResult rocks = find(rows, Row.ROCKSDB);
        j.field("rows").open('[');
        for (RowResult r : rows) {
            j.open('{');
            j.field("row").string(r.row.id);
            j.field("label").string(r.row.label);
            j.field("status").string(r.status.name().toLowerCase(Locale.ROOT));
            j.field("message").string(r.message);
            j.field("version").string(r.version);
            if (r.timed()) {
                j.field("loadMs").number(r.loadMillis());
                long bytes = r.load == null ? -1 : Long.parseLong(r.load.getProperty("size.bytes", "-1"));
                j.field("sizeBytes").number(bytes < 0 ? null : Long.valueOf(bytes)); // null: unknown
                j.field("heapBytes").number(r.load == null || r.load.getProperty("heap.bytes") == null ? null
                        : Double.valueOf(r.load.getProperty("heap.bytes")));
                j.field("operations").open('{');
                for (Operation op : Operation.values()) {
                    long[] times = r.times(op);
                    if (times == null) {
                        continue;
                    }
                    j.field(op.id()).open('{');
                    j.field("openMs").number(r.openMillis(op));
                    for (Cache c : Cache.values()) {
                        j.field(c.id() + "Ms").number(r.millis(op, c));
                    }
                    j.field("runsNanos").open('[');
                    for (long t : times) {
                        j.number(t);
                    }
                    j.close(']');
                    j.field("visits").open('[');
                    for (Answer a : r.answers(op)) {
                        j.number(a.visits());
                    }
                    j.close(']');
                    j.close('}');
                }
                j.close('}');
                ratios(j, "ratioToTransientJava", r, transientRow, true);
                ratios(j, "ratioToRawRocksDb", r, rocks, false); // its data is off the heap
            }
            j.close('}');
        }
        j.close(']');
        j.field("targets").open('[');
        for (String[] t : targets(rows)) {
            j.open('{');
            j.field("what").string(t[0]);
            j.field("ratio").number(Double.valueOf(t[1]));
            j.field("limit").number(Double.valueOf(t[2]));
            j.field("met").bool(t[3].equals("PASS"));
            j.close('}');
        }
        j.close(']');
        j.close('}');
        return j.toString();
    }

    private static void ratios(Json j, String name, RowResult r, RowResult base, boolean withHeap) {
        if (base == null) {
            return;
        }
        j.field(name).open('{');
        for (Measure m : measures()) {
            if (!withHeap && m.name().equals("heap")) {
                continue;
            }
            Double v = ratio(m, r, base);
            if (v != null) {
                j.field(m.key()).number(v);
            }
        }
        j.close('}');
    }

    /** A minimal JSON writer: objects, arrays, strings, numbers, booleans; indented. */
    private static final class Json {
        private final StringBuilder sb = new StringBuilder();
        /** Per open object or array: whether it has an item yet. */
        private final Deque<Boolean> hasItems = new ArrayDeque<>();
        private boolean afterField;

        private void beforeValue() {
            if (afterField) {
                afterField = false;
                return;
            }
            if (!hasItems.isEmpty()) {
                if (hasItems.pop()) {
                    sb.append(',');
                }
                hasItems.push(true);
                sb.append('\n').append("  ".repeat(hasItems.size()));
            }
        }

        Json open(char c) {
            beforeValue();
            sb.append(c);
            hasItems.push(false);
            return this;
        }

        Json close(char c) {
            if (hasItems.pop()) {
                sb.append('\n').append("  ".repeat(hasItems.size()));
            }
            sb.append(c);
            return this;
        }

        Json field(String name) {
            beforeValue();
            quote(name);
            sb.append(": ");
            afterField = true;
            return this;
        }

        Json string(String s) {
            beforeValue();
            quote(s == null ? "" : s);
            return this;
        }

        Json number(Number n) {
            beforeValue();
            if (n == null || (n instanceof Double d && (d.isNaN() || d.isInfinite()))) {
                sb.append("null");
            } else if (n instanceof Double d) {
                sb.append(new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString());
            } else {
                sb.append(n);
            }
            return this;
        }

        Json bool(boolean b) {
            beforeValue();
            sb.append(b);
            return this;
        }

        private void quote(String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            sb.append('"');
        }

        @Override
        public String toString() {
            return sb + "\n";
        }
    }

    // ---------------------------------------------------------------- SVG

    private static final String[] COLOURS = {
        "#888888", "#1f77b4", "#aec7e8", "#17becf", "#d62728", "#ff7f0e", "#2ca02c", "#9467bd"};

    /**
     * @return an SVG chart of one size: per operation and cache, each row's time as a ratio to
     *         transient Java (left) and to raw RocksDB (right), on log scales
     */
    static String svg(Size size, List<RowResult> rows, Map<String, String> environment) {
        List<Measure> ms = measures().stream().filter(m -> !m.name().equals("size") && !m.name().equals("open")
                && !m.name().equals("heap")).toList();
        RowResult transientRow = find(rows, Row.TRANSIENT);
        RowResult rocks = find(rows, Row.ROCKSDB);
        List<RowResult> shown = rows.stream().filter(RowResult::timed).toList();
        int barH = 7;
        int groupH = shown.size() * barH + 8;
        int top = 70;
        int labelW = 150;
        int panelW = 380;
        int gap = 70;
        int height = top + ms.size() * groupH + 60 + 18 * ((shown.size() + 1) / 2);
        int width = labelW + 2 * panelW + gap + 30;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n",
                width, height));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        sb.append(String.format(Locale.ROOT,
                "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">OO1, %s database (%,d parts): time as a ratio, log scale, lower is better</text>%n",
                size.id(), size.parts));
        sb.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"36\" fill=\"#555\">%s; JDK %s; heap %s</text>%n",
                esc(environment.get("machine")), esc(environment.get("jdk")), esc(environment.get("heap"))));
        panel(sb, "ratio to transient Java", labelW, top, panelW, ms, shown, transientRow, groupH, barH, true);
        panel(sb, "ratio to raw RocksDB", labelW + panelW + gap, top, panelW, ms, shown, rocks, groupH, barH, false);
        int ly = top + ms.size() * groupH + 30;
        for (int i = 0; i < shown.size(); i++) {
            int x = 10 + (i % 2) * (width / 2);
            int y = ly + (i / 2) * 18;
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                            + "<text x=\"%d\" y=\"%d\">%s</text>%n", x, y - 9, colour(shown.get(i).row), x + 16, y,
                    esc(shown.get(i).row.label + " (" + shown.get(i).version + ")")));
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static void panel(StringBuilder sb, String title, int x0, int top, int w, List<Measure> ms,
                              List<RowResult> shown, RowResult base, int groupH, int barH, boolean labels) {
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
                x0, top - 16, esc(title)));
        if (base == null) {
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">(row not in this run)</text>%n", x0, top + 10));
            return;
        }
        double lo = 1;
        double hi = 1;
        Map<String, Double> values = new LinkedHashMap<>();
        for (Measure m : ms) {
            for (RowResult r : shown) {
                Double v = ratio(m, r, base);
                if (v != null && v > 0) {
                    values.put(m.key() + "|" + r.row.id, v);
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        int loExp = (int) Math.floor(Math.log10(lo));
        int hiExp = (int) Math.ceil(Math.log10(hi));
        if (hiExp == loExp) {
            hiExp++;
        }
        int bottom = top + ms.size() * groupH;
        final int fLo = loExp;
        final int fHi = hiExp;
        Function<Double, Double> xOf = v -> x0 + w * (Math.log10(v) - fLo) / (fHi - fLo);
        for (int e = loExp; e <= hiExp; e++) {
            double x = xOf.apply(Math.pow(10, e));
            sb.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                            + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n",
                    x, top - 4, x, bottom, x, bottom + 14, e >= 0 ? "×" + (long) Math.pow(10, e) : "×" + Math.pow(10, e)));
        }
        double one = xOf.apply(1.0);
        for (int i = 0; i < ms.size(); i++) {
            Measure m = ms.get(i);
            int gy = top + i * groupH;
            if (labels) {
                sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                        x0 - 8, gy + groupH / 2 + 4, esc(label(m) + " " + m.cache())));
            }
            for (int j = 0; j < shown.size(); j++) {
                RowResult r = shown.get(j);
                Double v = values.get(m.key() + "|" + r.row.id);
                if (v == null) {
                    continue;
                }
                double x = xOf.apply(v);
                double left = Math.min(x, one);
                double bw = Math.max(1, Math.abs(x - one));
                sb.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s: %s ×</title></rect>%n",
                        left, gy + 4 + j * barH, bw, barH - 1, colour(r.row), esc(r.row.label), esc(m.key()), ratio(v)));
            }
        }
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>%n",
                one, top - 4, one, bottom));
    }

    private static String colour(Row row) {
        return COLOURS[row.ordinal() % COLOURS.length];
    }

    private static String esc(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
