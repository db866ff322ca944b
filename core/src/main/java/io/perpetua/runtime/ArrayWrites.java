package io.perpetua.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The write barrier of arrays. An array cannot note its own changes as a rewritten object does,
 * so rewritten code tells this class: every array store ({@code a[i] = v}) goes through one of
 * the {@code *store} methods, which log the array, and an array passed to (or returned by) a JDK
 * method that may keep it and write it later is logged as <em>escaped</em>. A commit then
 * compares only the arrays logged since the last commit and the escaped ones, not every resident
 * array: its cost grows with what changed, not with what is resident.
 *
 * <p>The kernel trusts the log only while every class that could write a persistent array is
 * rewritten: the agent says so by setting the system property {@value #PROPERTY} to
 * {@value #TRACKED} at start-up (when it rewrites every application class: no include or exclude
 * list), and sets it to something else when a class cannot be rewritten. Otherwise every commit
 * compares every resident array, as it would without this class.
 *
 * <p>The log lives in this class's static state, so there is one per copy of perpetua-core
 * loaded in the JVM, and rewritten code logs into the copy its own class loader sees: with a
 * second copy (a web application that bundles core, loaded child-first, under
 * {@code -javaagent}, which puts the agent's copy on the class path), a store would miss the
 * writes logged into the other copy. So each copy claims the system property
 * {@value #COPY_PROPERTY} when it is initialized, and a copy that finds it claimed by another
 * sets {@value #PROPERTY} to {@code compared}: every store of every copy reads that property
 * at each commit, and from then on compares every resident array. One warning says so.
 *
 * <h2>Cost and thread-safety</h2>
 * A store to the array most recently logged costs one load, compare and branch: loops writing
 * one array log it once. Logging takes a lock. {@link #lastWritten} is a plain field: a thread
 * that reads a stale value skips a log that the array's earlier entry already covers, unless a
 * commit ran in between, and a store racing with a commit in another thread is a race the
 * program must avoid anyway (see the README's "Threads"). The logs are bounded: a full log is
 * handed to the open stores' {@link Sink}s at once, and a sink that cannot keep it all makes its
 * next commit compare every resident array.
 *
 * <p>Nothing here is meant for application code; the agent generates the calls.
 */
public final class ArrayWrites {
    /** The system property that says whether the log may be trusted. */
    public static final String PROPERTY = "perpetua.arrays";
    /** The value of {@value #PROPERTY} with which the kernel trusts the log. */
    public static final String TRACKED = "tracked";
    /** The system property that names the first copy of this class initialized in the JVM. */
    public static final String COPY_PROPERTY = "perpetua.arrays.copy";

    /** Entries of the log before it is handed to the sinks. */
    private static final int LOG_SIZE = 4096;
    /**
     * Arrays logged since the last flush, by identity hash, direct-mapped: a store to one of
     * them logs nothing, so a loop over many arrays (a column of a matrix, the connections of
     * every part) takes the lock once per array, not once per store. Racy reads are benign: a
     * stale entry names an array already in the log or an inbox, unless a commit ran meanwhile.
     */
    private static final Object[] RECENT = new Object[1024];

    private static final Object LOCK = new Object();
    /** The array most recently logged as written: storing to it again logs nothing. */
    private static Object lastWritten;
    /** The array most recently logged as escaped. */
    private static Object lastEscaped;
    /** Guarded by LOCK: arrays written since the log was last handed on, in order. */
    private static Object[] written = new Object[LOG_SIZE];
    private static int writtenCount;
    /** Guarded by LOCK: every array that escaped and is still reachable, held weakly. */
    private static final Map<Object, Boolean> ESCAPED = new WeakHashMap<>();
    /**
     * Whether any array ever escaped: until one does, {@link #escaped} answers without the lock.
     * Volatile, set under LOCK after the array is in {@link #ESCAPED}.
     */
    private static volatile boolean anyEscaped;
    /** Guarded by LOCK: escaped arrays not yet handed to the sinks. */
    private static final List<Object> escapedSinceFlush = new ArrayList<>();
    /** Guarded by LOCK: the open stores' sinks. */
    private static final List<Sink> SINKS = new ArrayList<>();
    /**
     * Whether a sink is registered, set under LOCK. Without one nothing is logged: no store has
     * an array resident, and the log would hold what the program wrote (and, through it, the
     * class loaders of its element classes) until a store opened and committed.
     */
    private static volatile boolean anySink;

    static {
        claimTheLog();
    }

    private ArrayWrites() {
    }

    /** Claims {@value #COPY_PROPERTY} for this copy, or stops the log being trusted if another copy has it. */
    private static void claimTheLog() {
        String me = describeThisCopy();
        String other = null;
        java.util.Properties properties = System.getProperties();
        synchronized (properties) { // every copy takes this lock: the JVM's, not one of a copy
            Object first = properties.putIfAbsent(COPY_PROPERTY, me);
            if (first != null && !first.equals(me)) {
                String was = properties.getProperty(PROPERTY);
                if (was == null || TRACKED.equals(was)) {
                    properties.setProperty(PROPERTY, "compared: two copies of perpetua-core are loaded");
                    other = TRACKED.equals(was) ? String.valueOf(first) : null;
                }
            }
        }
        if (other != null) {
            System.err.println("[perpetua] WARNING two copies of perpetua-core are loaded in this JVM (" + other
                    + ", and " + me + "): code that one copy's class loader sees logs its array writes where stores"
                    + " of the other do not look, so every commit of every store now compares every resident array"
                    + " (slower, still correct). Load perpetua-core once: with -javaagent, use the agent's copy (leave"
                    + " perpetua-core out of the web application or plug-in, or load it parent-first), or set"
                    + " -D" + PROPERTY + "=compared to say so and silence this warning.");
        }
    }

    /** @return this copy of the class, as the warning names it: its class loader and jar */
    private static String describeThisCopy() {
        String where;
        try {
            java.security.CodeSource source = ArrayWrites.class.getProtectionDomain().getCodeSource();
            where = source == null || source.getLocation() == null ? "" : " from " + source.getLocation();
        } catch (RuntimeException e) {
            where = "";
        }
        return "the copy of class loader " + ArrayWrites.class.getClassLoader() + where + " #"
                + Integer.toHexString(System.identityHashCode(ArrayWrites.class));
    }

    /** What an open store receives from the log. Called under the log's lock: must not block. */
    public interface Sink {
        /**
         * @param arrays arrays written since the last hand-over, {@code [0, count)}, possibly
         *               repeated; the log's own buffer, valid during the call only
         * @param count how many of them
         */
        void written(Object[] arrays, int count);

        /** @param array an array that code the agent does not rewrite may write from now on */
        void escaped(Object array);
    }

    /** @return whether the kernel may trust the log: {@value #PROPERTY} is {@value #TRACKED} */
    public static boolean tracking() {
        return TRACKED.equals(System.getProperty(PROPERTY));
    }

    /**
     * Registers an open store's sink; it receives what is logged from now on.
     *
     * @param sink the store's sink, not null
     */
    public static void register(Sink sink) {
        synchronized (LOCK) {
            SINKS.add(sink);
            anySink = true;
        }
    }

    /**
     * Removes a sink (its store closed). The last one to go empties the log.
     *
     * @param sink a sink given to {@link #register}
     */
    public static void unregister(Sink sink) {
        synchronized (LOCK) {
            SINKS.remove(sink);
            if (SINKS.isEmpty()) {
                anySink = false;
                flushLocked(); // to no one: forgets the arrays logged
            }
        }
    }

    /** Hands what was logged to every sink and empties the log. A commit calls it first. */
    public static void flush() {
        synchronized (LOCK) {
            flushLocked();
        }
    }

    /**
     * @param array an array
     * @return whether {@code array} escaped to code the agent does not rewrite at some time
     */
    public static boolean escaped(Object array) {
        if (!anyEscaped) {
            return false; // no lock and no weak map: the kernel asks for every array it attaches
        }
        synchronized (LOCK) {
            return ESCAPED.containsKey(array);
        }
    }

    private static void flushLocked() {
        for (Sink s : SINKS) {
            s.written(written, writtenCount);
            for (Object e : escapedSinceFlush) {
                s.escaped(e);
            }
        }
        java.util.Arrays.fill(written, 0, writtenCount, null);
        java.util.Arrays.fill(RECENT, null);
        writtenCount = 0;
        escapedSinceFlush.clear();
        lastWritten = null;
        lastEscaped = null; // held strongly, with all it reaches: not past a flush
    }

    // ---- called by rewritten code ----

    /**
     * Logs that {@code array} is about to be written by rewritten code; null is ignored.
     *
     * @param array an array, or null
     */
    public static void written(Object array) {
        if (array == null || !anySink) {
            return;
        }
        int slot = System.identityHashCode(array) & (RECENT.length - 1);
        if (RECENT[slot] == array) {
            lastWritten = array;
            return;
        }
        synchronized (LOCK) {
            if (!anySink) {
                return; // the last store closed meanwhile
            }
            if (writtenCount == LOG_SIZE) {
                flushLocked();
            }
            written[writtenCount++] = array;
            RECENT[slot] = array;
            lastWritten = array;
        }
    }

    /**
     * Logs that {@code array}, if it is one, was handed to or by a JDK method that may keep it
     * and write it later: from now on every commit compares it. Null and non-arrays are ignored.
     *
     * @param array any value, or null
     */
    public static void escape(Object array) {
        if (array == null || array == lastEscaped || !array.getClass().isArray()) {
            return;
        }
        synchronized (LOCK) {
            if (ESCAPED.put(array, Boolean.TRUE) == null && anySink) {
                escapedSinceFlush.add(array);
            }
            anyEscaped = true;
            if (anySink) {
                lastEscaped = array; // held strongly: only until the next flush
            }
        }
    }

    /**
     * {@code System.arraycopy}, with its destination logged as written; the parameters are
     * {@code System.arraycopy}'s, and so are the exceptions.
     *
     * @param src the source array
     * @param srcPos where in it to start
     * @param dest the destination array
     * @param destPos where in it to start
     * @param length how many elements
     */
    public static void arraycopy(Object src, int srcPos, Object dest, int destPos, int length) {
        if (dest != lastWritten) {
            written(dest);
        }
        System.arraycopy(src, srcPos, dest, destPos, length);
    }

    /**
     * {@code a[i] = v} on an {@code Object[]} of any element type.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void aastore(Object[] a, int i, Object v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = v;
    }

    /**
     * {@code a[i] = v} on a {@code byte[]} or a {@code boolean[]} (one bytecode serves both).
     *
     * @param a the array
     * @param i the index
     * @param v the value, as on the operand stack
     */
    public static void bastore(Object a, int i, int v) {
        if (a != lastWritten) {
            written(a);
        }
        if (a instanceof byte[] b) {
            b[i] = (byte) v;
        } else {
            ((boolean[]) a)[i] = (v & 1) != 0;
        }
    }

    /**
     * {@code a[i] = v}; {@code v} is an int, as on the operand stack, and is truncated as
     * {@code castore} does.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void castore(char[] a, int i, int v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = (char) v;
    }

    /**
     * {@code a[i] = v}; {@code v} is truncated as {@code sastore} does.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void sastore(short[] a, int i, int v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = (short) v;
    }

    /**
     * {@code a[i] = v} on a {@code int[]}.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void iastore(int[] a, int i, int v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = v;
    }

    /**
     * {@code a[i] = v} on a {@code long[]}.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void lastore(long[] a, int i, long v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = v;
    }

    /**
     * {@code a[i] = v} on a {@code float[]}.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void fastore(float[] a, int i, float v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = v;
    }

    /**
     * {@code a[i] = v} on a {@code double[]}.
     *
     * @param a the array
     * @param i the index
     * @param v the value
     */
    public static void dastore(double[] a, int i, double v) {
        if (a != lastWritten) {
            written(a);
        }
        a[i] = v;
    }
}
