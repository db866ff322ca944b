package io.perpetua.benchmarks.oo1.impl;

import io.perpetua.benchmarks.oo1.Implementation;
import io.perpetua.benchmarks.oo1.NullProcedure;
import io.perpetua.benchmarks.oo1.Oo1Data;
import org.eclipse.store.storage.embedded.types.EmbeddedStorage;
import org.eclipse.store.storage.embedded.types.EmbeddedStorageManager;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * EclipseStore, used idiomatically: one root object ({@link Root}) holding a chunked part index,
 * parts and connections as plain objects, {@code EmbeddedStorage.start(root, directory)},
 * {@code storeRoot()} after the load, and after an insert {@code storeAll} of what changed
 * (the new parts, the targets whose incoming array was replaced, the index chunk), EclipseStore's
 * way of saying which existing objects are dirty. No {@code Lazy} references: on start,
 * EclipseStore loads the whole graph, so the open time carries what the cold runs of the
 * fault-in systems carry. Default configuration (one channel).
 */
public final class EclipseStoreImplementation implements Implementation {

    /** The storage root. */
    public static final class Root {
        Part[][] chunks;
        int partCount;
    }

    /** A part, as an EclipseStore program would declare it. */
    public static final class Part {
        final int id;
        final String type;
        final int x;
        final int y;
        final LocalDate build;
        final Connection[] to = new Connection[Oo1Data.FAN_OUT];
        Connection[] from;

        Part(int id, String type, int x, int y, LocalDate build, int incoming) {
            this.id = id;
            this.type = type;
            this.x = x;
            this.y = y;
            this.build = build;
            this.from = new Connection[incoming];
        }
    }

    /** A connection. */
    public static final class Connection {
        final Part from;
        final Part to;
        final String type;
        final int length;

        Connection(Part from, Part to, String type, int length) {
            this.from = from;
            this.to = to;
            this.type = type;
            this.length = length;
        }
    }

    private static final int CHUNK_BITS = 10;
    private static final int CHUNK_SIZE = 1 << CHUNK_BITS;

    private EmbeddedStorageManager storage;
    private Root root;
    private final Set<Object> dirty = new LinkedHashSet<>();

    @Override
    public String version() {
        return "EclipseStore " + Versions.of("org.eclipse.store", "storage-embedded");
    }

    @Override
    public void create(Path directory) {
        root = new Root();
        storage = EmbeddedStorage.start(root, directory);
    }

    @Override
    public void makeDatabasePersistent(Oo1Data data) {
        int n = data.parts;
        root.chunks = new Part[(n + CHUNK_SIZE - 1) >>> CHUNK_BITS][];
        Part[] parts = new Part[n];
        for (int i = 0; i < n; i++) {
            parts[i] = new Part(i + 1, data.partType(i + 1), data.x[i], data.y[i], data.build(i + 1),
                    data.incoming[i]);
            add(parts[i]);
        }
        int[] filled = new int[n];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
                int c = i * Oo1Data.FAN_OUT + k;
                int t = data.to[c] - 1;
                Connection conn = new Connection(parts[i], parts[t],
                        Oo1Data.CONNECTION_TYPES[data.connectionType[c]], data.length[c]);
                parts[i].to[k] = conn;
                parts[t].from[filled[t]++] = conn;
            }
        }
        dirty.clear();
        dirty.add(root);
    }

    /** Adds the next part to the index; marks what changed. */
    private void add(Part part) {
        int i = root.partCount;
        int c = i >>> CHUNK_BITS;
        if (c == root.chunks.length) {
            root.chunks = Arrays.copyOf(root.chunks, root.chunks.length * 2);
        }
        if (root.chunks[c] == null) {
            root.chunks[c] = new Part[CHUNK_SIZE];
            dirty.add(root.chunks);
        }
        root.chunks[c][i & (CHUNK_SIZE - 1)] = part;
        dirty.add(root.chunks[c]);
        root.partCount++;
        dirty.add(root);
    }

    @Override
    public void initiate(Path directory) {
        storage = EmbeddedStorage.start(directory);
    }

    @Override
    public void fetchDatabase() {
        root = (Root) storage.root();
        if (root == null) {
            throw new IllegalStateException("no OO1 root in " + storage);
        }
    }

    @Override
    public void stabilize() {
        if (!dirty.isEmpty()) {
            storage.storeAll(List.copyOf(dirty));
            dirty.clear();
        }
    }

    @Override
    public void terminate() {
        if (storage != null) {
            storage.shutdown();
            storage = null;
            root = null;
        }
    }

    private Part part(int id) {
        if (id < 1 || id > root.partCount) {
            throw new IllegalArgumentException("no part " + id);
        }
        int i = id - 1;
        return root.chunks[i >>> CHUNK_BITS][i & (CHUNK_SIZE - 1)];
    }

    @Override
    public void lookup(int[] ids) {
        for (int id : ids) {
            Part p = part(id);
            NullProcedure.call(p.x, p.y, p.type);
        }
    }

    @Override
    public void traverse(int id, int hops) {
        traverse(part(id), hops);
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
        reverseTraverse(part(id), hops);
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
        List<Part> added = new ArrayList<>(batch.parts);
        for (int i = 0; i < batch.parts; i++) {
            Part part = new Part(firstId + i, batch.partType(i + 1), batch.x[i], batch.y[i],
                    batch.build(i + 1), 0);
            for (int k = 0; k < Oo1Data.FAN_OUT; k++) {
                int c = i * Oo1Data.FAN_OUT + k;
                Part target = part(batch.to[c]);
                Connection conn = new Connection(part, target,
                        Oo1Data.CONNECTION_TYPES[batch.connectionType[c]], batch.length[c]);
                part.to[k] = conn;
                Connection[] grown = Arrays.copyOf(target.from, target.from.length + 1);
                grown[grown.length - 1] = conn;
                target.from = grown;
                dirty.add(target);
            }
            add(part);
            added.add(part);
            NullProcedure.call(part.x, part.y, part.type);
        }
        dirty.addAll(added);
    }
}
