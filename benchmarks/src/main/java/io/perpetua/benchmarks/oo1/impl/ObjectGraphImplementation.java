package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.benchmarks.oo1.Implementation;
import io.perpetua.benchmarks.oo1.NullProcedure;
import io.perpetua.benchmarks.oo1.Oo1Data;
import io.perpetua.benchmarks.oo1.model.Connection;
import io.perpetua.benchmarks.oo1.model.Database;
import io.perpetua.benchmarks.oo1.model.Part;

/**
 * The rows that work on the plain domain classes ({@link Part}, {@link Connection},
 * {@link Database}): transient Java and Perpetua. The operations are written once here, on
 * ordinary field reads, as JSPIN wrote them (seed 004, Figure 1); a subclass says only how the
 * database is stored and fetched.
 */
public abstract class ObjectGraphImplementation implements Implementation {

    /** The database root, set by {@link #makeDatabasePersistent} or {@link #fetchDatabase}. */
    protected Database database;

    /**
     * Builds the object graph of a generated database: every part in the index, every
     * connection in its source's {@code to} and its target's {@code from}.
     *
     * @param data the generated database
     * @return the root
     */
    public static Database build(Oo1Data data) {
        int n = data.parts;
        Database db = new Database(n);
        Part[] parts = new Part[n];
        for (int i = 0; i < n; i++) {
            parts[i] = new Part(i + 1, data.partType(i + 1), data.x[i], data.y[i], data.build(i + 1),
                    data.incoming[i]);
            db.add(parts[i]);
        }
        int[] filled = new int[n];
        for (int i = 0; i < n; i++) {
            Part source = parts[i];
            for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
                int c = i * Oo1Data.FAN_OUT + k;
                int t = data.to[c] - 1;
                Part target = parts[t];
                Connection conn = new Connection(source, target,
                        Oo1Data.CONNECTION_TYPES[data.connectionType[c]], data.length[c]);
                source.to[k] = conn;
                target.setFrom(filled[t]++, conn);
            }
        }
        return db;
    }

    /** JSPIN {@code fetchPart}. */
    protected Part fetchPart(int id) {
        return database.part(id);
    }

    /** Called by {@link #insert} before it changes anything (Perpetua begins a transaction). */
    protected void beginChanges() {
    }

    @Override
    public void lookup(int[] ids) {
        for (int id : ids) {
            Part p = fetchPart(id);
            NullProcedure.call(p.x, p.y, p.type);
        }
    }

    @Override
    public void traverse(int id, int hops) {
        traverse(fetchPart(id), hops);
    }

    private static void traverse(Part part, int hops) {
        NullProcedure.call(part.x, part.y, part.type);
        if (hops == 0) {
            return;
        }
        for (Connection c : part.to) {
            traverse(c.to, hops - 1);
        }
    }

    @Override
    public void reverseTraverse(int id, int hops) {
        reverseTraverse(fetchPart(id), hops);
    }

    private static void reverseTraverse(Part part, int hops) {
        NullProcedure.call(part.x, part.y, part.type);
        if (hops == 0) {
            return;
        }
        for (Connection c : part.from) {
            reverseTraverse(c.from, hops - 1);
        }
    }

    @Override
    public void insert(Oo1Data batch, int firstId) {
        beginChanges();
        for (int i = 0; i < batch.parts; i++) {
            Part part = new Part(firstId + i, batch.partType(i + 1), batch.x[i], batch.y[i],
                    batch.build(i + 1), 0);
            for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
                int c = i * Oo1Data.FAN_OUT + k;
                Part target = fetchPart(batch.to[c]);
                Connection conn = new Connection(part, target,
                        Oo1Data.CONNECTION_TYPES[batch.connectionType[c]], batch.length[c]);
                part.to[k] = conn;
                target.addFrom(conn);
            }
            database.add(part);
            NullProcedure.call(part.x, part.y, part.type);
        }
    }
}
