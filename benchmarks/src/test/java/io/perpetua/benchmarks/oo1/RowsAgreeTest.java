package io.perpetua.benchmarks.oo1;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On the tiny database, every row that needs no agent, run in this JVM on a real store on disk
 * (loaded, closed, reopened per operation, reopened again to read the inserts back), consumes
 * the same answers as transient Java; so does the JDBC row against a PostgreSQL server, when one
 * is given; and the cross-check does catch a row that does not.
 */
class RowsAgreeTest {

    private static final int HOT = 2;

    /**
     * The PostgreSQL server for {@link Row#JDBC_URL}, as {@code .ci/run} starts one: a JDBC URL,
     * with {@code PERPETUA_OO1_PG_USER} (and {@code PERPETUA_OO1_PG_PASSWORD}, if it needs one).
     */
    private static final String PG_URL = System.getenv("PERPETUA_OO1_PG_URL");

    private static RowRun.Settings settings(Row row) {
        return row == Row.JDBC_URL
                ? new RowRun.Settings(row, Size.TINY, Oo1.DEFAULT_SEED, HOT, PG_URL,
                        System.getenv("PERPETUA_OO1_PG_USER"), System.getenv("PERPETUA_OO1_PG_PASSWORD"))
                : new RowRun.Settings(row, Size.TINY, Oo1.DEFAULT_SEED, HOT, null, null, null);
    }

    private static Map<Operation, Properties> reference(Path dir) {
        Map<Operation, Properties> ref = new EnumMap<>(Operation.class);
        for (Operation op : Operation.values()) {
            Properties p = RowRun.operation(settings(Row.TRANSIENT), op, dir);
            assertEquals("ok", p.getProperty("status"), p.getProperty("message"));
            ref.put(op, p);
        }
        return ref;
    }

    @ParameterizedTest
    @EnumSource(value = Row.class, names = {"ROCKSDB", "ECLIPSESTORE", "JDBC"})
    void rowAgreesWithTransientJava(Row row, @TempDir Path dir) {
        assertAgrees(row, dir);
    }

    /** The JDBC row against a real PostgreSQL server: run when one is given (CI starts one). */
    @Test
    void postgresRowAgreesWithTransientJava(@TempDir Path dir) {
        assumeTrue(PG_URL != null, "no PostgreSQL server: set PERPETUA_OO1_PG_URL (and _USER, _PASSWORD)");
        assertAgrees(Row.JDBC_URL, dir);
    }

    private static void assertAgrees(Row row, Path dir) {
        Map<Operation, Properties> ref = reference(dir.resolve("reference"));
        RowResult r = new RowResult(row);
        r.load = RowRun.load(settings(row), dir.resolve("store"));
        assertEquals("ok", r.load.getProperty("status"), r.load.getProperty("message"));
        assertTrue(Long.parseLong(r.load.getProperty("size.bytes")) > 0, "store has a size on disk");
        assertTrue(r.load.getProperty("heap.bytes") != null, "the load measures the heap the row holds");
        for (Operation op : Operation.values()) {
            Properties p = RowRun.operation(settings(row), op, dir.resolve("store"));
            assertEquals("ok", p.getProperty("status"), op + ": " + p.getProperty("message"));
            r.operations.put(op, p);
            assertEquals(RowRun.RUNS + HOT, r.times(op).length);
        }
        Oo1.crossCheck(r, ref);
        assertEquals(RowResult.Status.OK, r.status, r.message);
        assertEquals(3280, r.answers(Operation.TRAVERSAL).get(0).visits());
        assertEquals(Operation.LOOKUP_PARTS, r.answers(Operation.LOOKUP).get(0).visits());
        assertEquals(ref.get(Operation.INSERT).getProperty("verify"), r.operations.get(Operation.INSERT).getProperty("verify"));
    }

    /**
     * The heap figure counts the database the row keeps, not the data generated for it: the
     * tiny database's 2,000 parts and 6,000 connections take at least 40 and 24 bytes each as
     * plain objects, and far less than the megabytes of a whole JVM.
     */
    @Test
    void theLoadMeasuresTheHeapItsDatabaseTakes(@TempDir Path dir) {
        Properties load = RowRun.load(settings(Row.TRANSIENT), dir);
        assertEquals("ok", load.getProperty("status"), load.getProperty("message"));
        long heap = Long.parseLong(load.getProperty("heap.bytes"));
        assertTrue(heap > 2_000 * 40 + 6_000 * 24, "heap " + heap);
        assertTrue(heap < 16 << 20, "heap " + heap);
        RowResult r = new RowResult(Row.TRANSIENT);
        r.load = load;
        String table = Report.tables(Size.TINY, List.of(r), Map.of("hotRuns", "2"));
        assertTrue(table.contains("heap after load (MB)"), table);
    }

    @Test
    void aRowWhoseAnswersDifferIsReportedWrongAndNotTimed(@TempDir Path dir) {
        Map<Operation, Properties> ref = reference(dir);
        RowResult r = new RowResult(Row.ROCKSDB);
        r.load = new Properties();
        r.load.setProperty("load.nanos", "1000");
        r.load.setProperty("size.bytes", "1");
        for (Operation op : Operation.values()) {
            Properties copy = new Properties();
            copy.putAll(ref.get(op));
            r.operations.put(op, copy);
        }
        String[] answers = ref.get(Operation.TRAVERSAL).getProperty("answers").split(",");
        NullProcedure.Answer a = NullProcedure.Answer.parse(answers[3]);
        answers[3] = new NullProcedure.Answer(a.sum() + 1, a.visits(), a.types()).toString();
        r.operations.get(Operation.TRAVERSAL).setProperty("answers", String.join(",", answers));

        Oo1.crossCheck(r, ref);

        assertEquals(RowResult.Status.WRONG, r.status);
        assertTrue(r.message.contains("traversal run 4"), r.message);
        assertEquals(null, r.millis(Operation.LOOKUP, RowResult.Cache.WARM), "a wrong row is not timed");
        String table = Report.tables(Size.TINY, List.of(r), Map.of("hotRuns", "2"));
        assertTrue(table.contains("wrong"), table);
    }
}
