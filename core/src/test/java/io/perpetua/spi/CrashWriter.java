package io.perpetua.spi;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * The child side of {@link CrashHarness}: opens a store and commits numbered transactions
 * until it is killed, printing {@code ACK n} after each commit of transaction {@code n}
 * returned. Also holds the data layout both sides share, and the checks the parent runs after a
 * kill ({@link #verify(Backend)}).
 *
 * <h2>What transaction n writes, in one write set</h2>
 * <ul>
 *   <li>a new <em>log record</em> (fresh id) holding {@code n}, the id of the log record of
 *       {@code n-1}, the id of this transaction's scratch record and the first slot id; the
 *       name {@value #LAST} is bound to it. The log records form a chain back to transaction 1,
 *       so every committed transaction can be found;</li>
 *   <li>a new <em>scratch record</em> (fresh id), and a delete of transaction {@code n-1}'s
 *       scratch record;</li>
 *   <li>all {@value #SLOTS} <em>slot records</em> (fixed ids, bound as {@value #SLOTS_NAME}),
 *       overwritten with {@code n};</li>
 *   <li>a class descriptor with id {@code n} when {@code n % 16 == 1}.</li>
 * </ul>
 * Every record carries a payload of pseudo-random length and content derived from {@code n}
 * and the record's role, so a torn or mixed-up record cannot pass {@link #verify(Backend)}.
 *
 * <h2>Use as a main class</h2>
 * {@code java -cp ... io.perpetua.spi.CrashWriter STORE_URI [MAX_PAYLOAD]} opens the store with
 * {@link Backends#open(URI)}. It prints {@code READY m} once open ({@code m} = the last
 * transaction found), then {@code ACK n} lines. It halts when its standard input reaches end
 * of file (the parent went away), so an orphan never runs forever. A store module that needs a
 * different child (another way to open, work in between commits such as a compaction) writes
 * its own main that calls {@link #run(Backend, PrintStream, int, LongConsumer)} and passes it
 * to {@link CrashHarness.Builder#mainClass(String)}.
 */
public final class CrashWriter {

    /** The name bound to the newest log record. */
    public static final String LAST = "crash.last";
    /** The name bound to the first slot record. */
    public static final String SLOTS_NAME = "crash.slots";
    /** How many slot records every transaction overwrites. */
    public static final int SLOTS = 4;
    /** The default upper bound of a record's payload, in bytes. */
    public static final int DEFAULT_MAX_PAYLOAD = 2048;

    private static final int LOG_MAGIC = 0x504c4f47; // "PLOG"
    private static final int SCRATCH_MAGIC = 0x50534352; // "PSCR"
    private static final int SLOT_MAGIC = 0x50534c54; // "PSLT"
    private static final int DESCRIPTOR_EVERY = 16;

    private CrashWriter() {
    }

    /**
     * Opens {@code args[0]} with {@link Backends#open(URI)} and runs until killed.
     *
     * @param args the store URI, then optionally the maximum payload per record in bytes
     */
    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: CrashWriter STORE_URI [MAX_PAYLOAD]");
            System.exit(2);
        }
        haltWhenParentGoesAway();
        int maxPayload = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_MAX_PAYLOAD;
        Backend backend = Backends.open(URI.create(args[0]));
        run(backend, System.out, maxPayload, n -> { });
    }

    /**
     * Commits transactions {@code m+1, m+2, ...} forever, where {@code m} is the last
     * transaction already in the store, printing {@code READY m} first and {@code ACK n} (and
     * flushing) after each commit returned. Returns only by throwing.
     *
     * @param backend an open backend, owned by the caller (this never closes it)
     * @param out where the protocol lines go, normally {@link System#out}
     * @param maxPayload the upper bound of each record's payload, at least 1
     * @param afterAck called on this thread after each {@code ACK n} with {@code n}; may do
     *                 more work on the store (a compaction, a checkpoint) to be crashed in
     */
    public static void run(Backend backend, PrintStream out, int maxPayload, LongConsumer afterAck) {
        State state = head(backend);
        out.println("READY " + state.last());
        out.flush();
        while (true) {
            long n = state.last() + 1;
            state = commitTransaction(backend, n, state, maxPayload);
            out.println("ACK " + n);
            out.flush();
            if (out.checkError()) {
                throw new IllegalStateException("the parent no longer reads the output");
            }
            afterAck.accept(n);
        }
    }

    /** Halts the JVM when standard input ends, which happens when the parent dies. */
    public static void haltWhenParentGoesAway() {
        Thread watcher = new Thread(() -> {
            try {
                InputStream in = System.in;
                while (in.read() >= 0) {
                    // Ignore anything the parent sends.
                }
            } catch (IOException ignored) {
                // Treat like end of input.
            }
            Runtime.getRuntime().halt(3);
        }, "crash-writer-stdin-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * What a store holds of the writer's transactions.
     *
     * @param last the last committed transaction, 0 if none
     * @param logId the id of transaction {@code last}'s log record, 0 if none
     * @param scratchId the id of transaction {@code last}'s scratch record, 0 if none
     * @param slotsFirst the first slot id, 0 if none
     */
    public record State(long last, long logId, long scratchId, long slotsFirst) {
        static final State EMPTY = new State(0, 0, 0, 0);
    }

    /**
     * Reads only the newest transaction's log record.
     *
     * @throws AssertionError if it is damaged
     */
    public static State head(Backend backend) {
        long logId = backend.lookup(LAST);
        if (logId == 0) {
            return State.EMPTY;
        }
        Log log = decodeLog(logId, backend.read(logId));
        return new State(log.n, logId, log.scratchId, log.slotsFirst);
    }

    /**
     * Commits transaction {@code n} on top of {@code state}.
     *
     * @param n {@code state.last() + 1}
     * @return the state after the commit
     */
    public static State commitTransaction(Backend backend, long n, State state, int maxPayload) {
        if (n != state.last() + 1) {
            throw new IllegalArgumentException("transaction " + n + " does not follow " + state.last());
        }
        WriteSet writes = new WriteSet();
        long slotsFirst = state.slotsFirst();
        if (slotsFirst == 0) {
            slotsFirst = backend.allocateIds(SLOTS);
            writes.bind(SLOTS_NAME, slotsFirst);
        }
        long logId = backend.allocateIds(1);
        long scratchId = backend.allocateIds(1);
        writes.put(logId, log(n, state.logId(), scratchId, slotsFirst, maxPayload));
        writes.put(scratchId, record(SCRATCH_MAGIC, n, 1, maxPayload));
        if (state.scratchId() != 0) {
            writes.delete(state.scratchId());
        }
        for (int i = 0; i < SLOTS; i++) {
            writes.put(slotsFirst + i, record(SLOT_MAGIC, n, 2 + i, maxPayload));
        }
        writes.bind(LAST, logId);
        if (n % DESCRIPTOR_EVERY == 1) {
            writes.classDescriptor(Math.toIntExact(n), record(LOG_MAGIC, n, -1, maxPayload));
        }
        backend.commit(writes);
        return new State(n, logId, scratchId, slotsFirst);
    }

    /**
     * Checks everything the writer's transactions left in a store: the chain of log records
     * from the newest back to transaction 1, the slots, the scratch records, the descriptors,
     * the names, and that no id serves twice.
     *
     * @return the state found
     * @throws AssertionError describing the first violation
     */
    public static State verify(Backend backend) {
        State head = head(backend);
        Map<String, Long> names = backend.names();
        Map<Integer, byte[]> descriptors = backend.classDescriptors();
        if (head.last() == 0) {
            check(!names.containsKey(SLOTS_NAME), "slots bound without any transaction: " + names);
            check(descriptors.isEmpty(), "descriptors without any transaction: " + descriptors.keySet());
            return head;
        }
        long m = head.last();
        check(Long.valueOf(head.logId()).equals(names.get(LAST)), "names() disagrees with lookup: " + names);
        check(Long.valueOf(head.slotsFirst()).equals(names.get(SLOTS_NAME)),
                "slots bound to " + names.get(SLOTS_NAME) + " but transaction " + m + " wrote " + head.slotsFirst());
        Set<Long> ids = new HashSet<>();
        long[] slotIds = new long[SLOTS];
        for (int i = 0; i < SLOTS; i++) {
            slotIds[i] = head.slotsFirst() + i;
            ids.add(slotIds[i]);
        }
        byte[][] slots = backend.readMany(slotIds);
        for (int i = 0; i < SLOTS; i++) {
            long slotN = decode(SLOT_MAGIC, 2 + i, slotIds[i], slots[i]);
            check(slotN == m, "slot " + i + " holds transaction " + slotN + " but the last is " + m
                    + ": a transaction is present in part");
        }
        long scratchN = decode(SCRATCH_MAGIC, 1, head.scratchId(), backend.read(head.scratchId()));
        check(scratchN == m, "scratch record of transaction " + m + " holds " + scratchN);
        check(ids.add(head.scratchId()), "scratch id " + head.scratchId() + " is also a slot");
        // Walk the chain of log records down to transaction 1.
        long logId = head.logId();
        long expected = m;
        while (expected > 0) {
            check(logId != 0, "the chain of transactions ends at " + (expected + 1) + ", not at 1");
            check(ids.add(logId), "id " + logId + " serves twice (log record of transaction " + expected + ")");
            Log log = decodeLog(logId, backend.read(logId));
            check(log.n == expected, "log record " + logId + " holds transaction " + log.n + ", expected " + expected);
            check(log.slotsFirst == head.slotsFirst(), "transaction " + log.n + " used other slots");
            if (expected < m) {
                check(backend.read(log.scratchId) == null, "scratch record " + log.scratchId + " of transaction "
                        + expected + " was not deleted by transaction " + (expected + 1));
                check(ids.add(log.scratchId), "id " + log.scratchId + " serves twice (scratch of " + expected + ")");
            }
            logId = log.prevLogId;
            expected--;
        }
        check(logId == 0, "transaction 1 points to an earlier log record " + logId);
        TreeSet<Integer> expectedDescriptors = new TreeSet<>();
        for (long n = 1; n <= m; n += DESCRIPTOR_EVERY) {
            expectedDescriptors.add(Math.toIntExact(n));
        }
        check(expectedDescriptors.equals(new TreeSet<>(descriptors.keySet())),
                "descriptors " + new TreeSet<>(descriptors.keySet()) + " after transaction " + m
                        + ", expected " + expectedDescriptors);
        for (int d : expectedDescriptors) {
            long n = decode(LOG_MAGIC, -1, d, descriptors.get(d));
            check(n == d, "descriptor " + d + " holds transaction " + n);
        }
        return head;
    }

    // ---------------------------------------------------------------- record layout

    private record Log(long n, long prevLogId, long scratchId, long slotsFirst) {
    }

    private static final int HEADER = 4 + 8 + 4 + 4; // magic, n, role, payload length
    private static final int LOG_EXTRA = 3 * 8;

    private static byte[] log(long n, long prevLogId, long scratchId, long slotsFirst, int maxPayload) {
        byte[] payload = payload(n, 0, maxPayload);
        ByteBuffer buffer = ByteBuffer.allocate(HEADER + LOG_EXTRA + payload.length);
        buffer.putInt(LOG_MAGIC).putLong(n).putInt(0).putInt(payload.length)
                .putLong(prevLogId).putLong(scratchId).putLong(slotsFirst).put(payload);
        return buffer.array();
    }

    private static byte[] record(int magic, long n, int role, int maxPayload) {
        byte[] payload = payload(n, role, maxPayload);
        ByteBuffer buffer = ByteBuffer.allocate(HEADER + payload.length);
        buffer.putInt(magic).putLong(n).putInt(role).putInt(payload.length).put(payload);
        return buffer.array();
    }

    private static Log decodeLog(long id, byte[] bytes) {
        check(bytes != null, "log record " + id + " is missing");
        long n = decode(LOG_MAGIC, 0, id, bytes);
        ByteBuffer buffer = ByteBuffer.wrap(bytes, HEADER, LOG_EXTRA);
        return new Log(n, buffer.getLong(), buffer.getLong(), buffer.getLong());
    }

    /** Checks a record's header and payload; returns its transaction number. */
    private static long decode(int magic, int role, long id, byte[] bytes) {
        check(bytes != null, "record " + id + " (role " + role + ") is missing");
        check(bytes.length >= HEADER, "record " + id + " is torn: " + bytes.length + " bytes");
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        check(buffer.getInt() == magic, "record " + id + " has the wrong magic");
        long n = buffer.getLong();
        check(n > 0, "record " + id + " holds transaction " + n);
        check(buffer.getInt() == role, "record " + id + " has the wrong role");
        int length = buffer.getInt();
        int extra = magic == LOG_MAGIC && role == 0 ? LOG_EXTRA : 0;
        check(length >= 0 && bytes.length == HEADER + extra + length,
                "record " + id + " of transaction " + n + " is " + bytes.length + " bytes, its header says "
                        + (HEADER + extra + length));
        byte[] expected = content(n, role, length);
        check(ByteBuffer.wrap(bytes, HEADER + extra, length).equals(ByteBuffer.wrap(expected)),
                "record " + id + " of transaction " + n + " has damaged content");
        return n;
    }

    private static byte[] payload(long n, int role, int maxPayload) {
        int length = new SplittableRandom(n * 1_000_003L + role).nextInt(maxPayload);
        return content(n, role, length);
    }

    /** The payload bytes depend on (n, role) only, not on the length, so a reader can check them. */
    private static byte[] content(long n, int role, int length) {
        byte[] bytes = new byte[length];
        new SplittableRandom((n * 1_000_003L + role) ^ 0x5DEECE66DL).nextBytes(bytes);
        return bytes;
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
