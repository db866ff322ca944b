package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.NoCurrentStoreException;
import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.PersistentStoreException;
import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.StorageException;
import io.perpetua.StoreClosedException;
import io.perpetua.StoreStatistics;
import io.perpetua.TransactionStateException;
import io.perpetua.UnexpectedTypeException;
import io.perpetua.UnknownPersistentName;
import io.perpetua.kernel.ClassDescriptor.Kind;
import io.perpetua.runtime.ArrayWrites;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;
import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendStatistics;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;

import java.lang.invoke.VarHandle;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.LongStream;

/**
 * The kernel: one open store. It keeps the object table (one Java object per stored object),
 * fills hollow objects on first touch, makes objects persistent by reachability at commit, and
 * restores memory at abort. Everything it does is guarded by its own monitor, so it is
 * thread-safe; the hot paths of rewritten objects (reading and writing resident objects) never
 * reach it.
 *
 * <p>Applications use it through {@link PersistentStore}; the class is public only so that
 * {@code PersistentStore.open} and {@link io.perpetua.Perpetua} can reach it.
 */
public final class Kernel implements PersistentStore {
    private static final Set<Kernel> OPEN = ConcurrentHashMap.newKeySet();
    /**
     * By thread, the stores it began transactions on, latest first. Concurrent: a transaction
     * begun on one thread may end on another, which takes the store off the first one's list.
     */
    private static final ThreadLocal<Deque<Kernel>> BEGUN = new ThreadLocal<>() {
        @Override
        protected Deque<Kernel> initialValue() { // not withInitial(...::new): see EarlyAttach
            return new java.util.concurrent.ConcurrentLinkedDeque<>();
        }
    };
    private static final int FIRST_ID_BLOCK = 64;
    private static final int MAX_ID_BLOCK = 1 << 16;

    private final Backend backend;
    private final String location;
    private final ClassRegistry classes;
    private final ObjectTable table = new ObjectTable();
    /**
     * New and dirty objects, and containers made persistent in this transaction: held strongly
     * until commit. What a commit's walk reaches is not added: its referrers hold it, and a
     * failed commit detaches it again.
     */
    private final Map<Object, Handle> pending = new IdentityHashMap<>();
    private final Map<String, Object> boundInTransaction = new LinkedHashMap<>();
    private final Set<String> unboundInTransaction = new HashSet<>();
    /** Ids of immutable containers being decoded, to catch a cycle that cannot be rebuilt. */
    private final Set<Long> decoding = new HashSet<>();
    private final RecordDecoder.Resolve resolve = new Resolver();
    /** The handle of the object being filled, the owner of the containers embedded in its record, or null. */
    private Handle filling;
    /** True during {@link #preload}: a fill decodes array fields at once rather than leave them lazy. */
    private boolean preloading;
    /**
     * The fills in progress, innermost last: ids, and the records they read. A satellite
     * touched while its home is being filled is filled from this record; an object touched
     * while it is itself being filled is an error, not an endless recursion.
     */
    private long[] fillIds = new long[8];
    private byte[][] fillRecords = new byte[8][];
    private int fills;
    /** How many fills and container reads are in progress: the outermost one fills {@link #unfilled}. */
    private int decodeDepth;
    /**
     * The depth of reads from which a container met is made empty and filled later, by the read
     * at this depth, from {@link #deferred}: a chain of containers holding containers (an
     * {@code Object[]} holding an {@code Object[]}, a thousand deep) is then read in a loop, not
     * by a recursion that overflows the stack. Shallower chains, the usual case, are read as
     * they are met. The property {@code perpetua.read.deferDepth} sets it for tests: at 1 every
     * container met by a read is filled that way.
     */
    static final int DEFER_DEPTH = Math.max(1, Integer.getInteger("perpetua.read.deferDepth", 48));
    /**
     * Reads nested deeper than this fail, before they change anything, with a
     * {@code PersistentStoreException}: only values made with what they hold (records, immutable
     * collections), each holding the next, nest reads this deep (containers are read in a loop
     * past {@link #DEFER_DEPTH}). About a kilobyte of stack per read: a 1 MB thread stack holds
     * them. A stack overflow, which can cut short whatever it interrupts, is then not reached.
     * The property {@code perpetua.read.maxDepth} raises it, for threads with larger stacks.
     */
    static final int MAX_READ_DEPTH = Math.max(DEFER_DEPTH + 2, Integer.getInteger("perpetua.read.maxDepth", 512));
    /**
     * How many containers made with what they hold (immutable collections, views, {@code Map.entry},
     * {@code Arrays.asList}), each holding the next, a commit stores in a row: a read rebuilds
     * such a chain by recursion, which may begin {@link #DEFER_DEPTH} reads deep, and fails past
     * {@link #MAX_READ_DEPTH}. Deeper chains are refused, so that nothing unreadable is stored.
     */
    static final int MAX_BUILT_CHAIN = MAX_READ_DEPTH - DEFER_DEPTH - 2;
    /** Containers made empty by reads deeper than {@link #DEFER_DEPTH}, to be filled in turn. */
    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
    /**
     * The contents of hashed and sorted containers {@link #fillDeferred} filled, added last,
     * the last filled first: a set's elements are complete before the set hashes them.
     */
    private final ArrayDeque<Unfilled> deferredAdds = new ArrayDeque<>();
    /**
     * Above 0 while {@link #fillDeferred} fills a container: a hashed or sorted container met
     * then gets its contents once what they hold is filled. A read started meanwhile (by a
     * record's constructor, say) counts from 0 again.
     */
    private int fillingDeferred;
    /**
     * Hashed and sorted containers read but not filled yet, with their contents: those whose
     * elements' hashCode reached an object whose own read was in progress (Resolver#fill).
     */
    private final ArrayDeque<Unfilled> unfilled = new ArrayDeque<>();
    /** The last {@link ReadInProgress} thrown, marked if a read it leaves unfinished is on its way out. */
    private ReadInProgress inFlight;
    /** A container decoded only to read past its bytes, which need not be filled. */
    private Object discarding;
    /**
     * What the reads in progress did, in order: the handles of the containers they attached
     * and of the objects they filled. A read that fails undoes its part ({@link #undoRead}), so
     * that no half-read container stays in the table for the next read to take as read.
     * Emptied when the outermost read ends.
     */
    private final ArrayList<Handle> readLog = new ArrayList<>();
    private boolean transaction;
    /** The commit in progress, or null: guarded by the kernel's lock, which a commit holds throughout. */
    private Commit committing;
    /** The {@link #BEGUN} list of the thread that began the active transaction, or null. */
    private Deque<Kernel> begunOn;
    private volatile boolean closed;
    private long nextId;
    private long idLimit;
    private int idBlock = FIRST_ID_BLOCK;
    /** The committed records of homes filled or written last, for their satellites' fault-ins. */
    private final Satellites.RecentHomes recentHomes = new Satellites.RecentHomes();
    /** Reads every field as its default value: clears an object that goes hollow. */
    private static final RecordReader DEFAULTS = new RecordReader() {
        @Override public boolean readBoolean() { return false; }
        @Override public byte readByte() { return 0; }
        @Override public char readChar() { return 0; }
        @Override public short readShort() { return 0; }
        @Override public int readInt() { return 0; }
        @Override public long readLong() { return 0; }
        @Override public float readFloat() { return 0; }
        @Override public double readDouble() { return 0; }
        @Override public Object readObject() { return null; }
    };
    /** Short strings decoded from records, shared. */
    private final StringCache strings = new StringCache();
    /** By descriptor id: the checked class of its hollow shells ({@link #shellInfo}), or null. */
    private ClassInfo[] shellInfos = new ClassInfo[64];
    private long recordsRead;
    private long recordsWritten;
    private long commits;
    /**
     * Whether this store trusts the array write log ({@link ArrayWrites}): then a commit compares
     * only the resident arrays logged as written since the last one, and those that escaped,
     * instead of every resident array. Decided at open; turned off for good when the log stops
     * being trusted (a class the agent could not rewrite, which does not log its writes).
     */
    private boolean arraysTracked;
    /** This store's share of the log, while {@link #arraysTracked}. */
    private final ArrayInbox inbox = new ArrayInbox();
    /**
     * The resident persistent arrays logged as written since the last commit or abort (each
     * once: its handle is {@link ContainerHandle#logged}), held strongly until then, so that a
     * change is not collected with an array the program dropped.
     */
    private final ArrayList<Object> loggedArrays = new ArrayList<>();

    /**
     * Opens a kernel over a backend, which it then owns.
     *
     * @param backend an open backend, not null
     */
    public Kernel(Backend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.location = backend.location();
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            this.classes = new ClassRegistry(backend.classDescriptors(), loader != null ? loader : Kernel.class.getClassLoader(),
                    backend.location());
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        arraysTracked = ArrayWrites.tracking();
        table.arraysTracked(arraysTracked);
        if (arraysTracked) {
            ArrayWrites.register(inbox);
        }
        OPEN.add(this);
        ContainerOwners.opened(this, OPEN);
    }

    // ---- which store: see Perpetua ----

    /**
     * @return the open kernel an object is persistent in, or null: also for an object of a
     *         store closed since, which the current store is to refuse saying why
     */
    public static Kernel ownerOf(Object object) {
        if (object instanceof Persistent p) {
            return p.$perpetua$handle() instanceof Handle h && !h.kernel.closed ? h.kernel : null;
        }
        if (object != null && Containers.kindOf(object) != null) {
            for (Kernel k : OPEN) {
                if (k.holds(object)) {
                    return k;
                }
            }
        }
        return null;
    }

    /** @return the current store, by the rule documented on {@link io.perpetua.Perpetua} */
    public static PersistentStore current() {
        for (Kernel k : BEGUN.get()) {
            if (k.inTransaction()) {
                return k;
            }
        }
        Kernel only = null;
        int count = 0;
        for (Kernel k : OPEN) {
            only = k;
            count++;
        }
        if (count == 1) {
            return only;
        }
        throw new NoCurrentStoreException(count == 0
                ? "no Perpetua store is open"
                : count + " stores are open and none has a transaction this thread began and has not ended;"
                        + " begin a transaction on the store you mean, or call the store directly");
    }

    // ---- transactions ----

    @Override
    public synchronized void beginTransaction() {
        checkOpen();
        if (transaction) {
            throw new TransactionStateException("a transaction is already active on " + location() + "; transactions"
                    + " do not nest (an inTransaction inside another's block is refused so), and one is shared by every"
                    + " thread");
        }
        transaction = true;
        table.pinContainers();
        Deque<Kernel> stack = BEGUN.get();
        stack.remove(this);
        stack.push(this);
        begunOn = stack;
    }

    @Override
    public synchronized boolean inTransaction() {
        return transaction;
    }

    @Override
    public <T> T inTransaction(Supplier<T> block) {
        beginTransaction();
        T result;
        try {
            result = block.get();
            if (!inTransaction() && isOpen()) {
                throw new TransactionStateException("the block given to inTransaction on " + location() + " ended its"
                        + " transaction itself (abortTransaction or commitTransaction); inTransaction commits when the"
                        + " block returns, and aborts when it throws: throw from the block to cancel");
            }
            commitTransaction();
        } catch (Throwable t) {
            try {
                if (inTransaction()) {
                    abortTransaction();
                }
            } catch (RuntimeException suppressed) {
                t.addSuppressed(suppressed);
            }
            throw t;
        }
        return result;
    }

    @Override
    public synchronized void commitTransaction() {
        checkOpen();
        requireTransaction("commitTransaction");
        table.expunge();
        takeArrayWrites();
        Commit commit = new Commit();
        committing = commit;
        try {
            commit(commit);
        } finally {
            committing = null;
        }
        endTransaction();
    }

    private void commit(Commit commit) {
        WriteSet writes;
        boolean sent = false;
        try {
            writes = commit.build();
            if (!writes.isEmpty()) {
                sent = true;
                backend.commit(writes);
            }
        } catch (NotPersistableException e) {
            commit.rollback();
            throw withPathFromRoot(e, commit.failedFrom);
        } catch (PersistentStoreException e) {
            commit.rollback();
            if (e instanceof StorageException s && s.storeClosed()) {
                close(); // as the backend is: the transaction is undone in memory, as by an abort
            }
            throw e;
        } catch (RuntimeException | Error e) {
            commit.rollback();
            if (!sent) {
                throw new PersistentStoreException("commit failed, nothing was written: " + e, e);
            }
            // the backend broke its contract (a StorageException) mid-commit: what it holds is
            // known only when it is opened again
            close();
            throw new StorageException("the backend failed during the commit (" + e + "); the store is closed, and"
                    + " whether the commit is stored is known when it is reopened", e, true);
        }
        commit.succeeded();
        if (!writes.isEmpty()) {
            commits++;
            recordsWritten += writes.putCount();
        }
    }

    /**
     * A commit labels the objects it starts from by class and id ({@code Order#9}); the error
     * names the path from a root to that object instead, when it is a root or the resident
     * objects lead to it ({@link RootPaths}). Reading every name is fine on this error path.
     *
     * @param from the object the commit's path starts from, if it is labelled by it; else null
     */
    private NotPersistableException withPathFromRoot(NotPersistableException e, Object from) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^[^\\s\".\\[]+(?:\\.[^\\s\".\\[]+)*(?:\\[\\])*#(\\d+)")
                .matcher(e.path());
        if (!m.find()) {
            return e;
        }
        long id = Long.parseLong(m.group(1));
        Map<String, Object> roots = new LinkedHashMap<>();
        for (Map.Entry<String, Long> binding : backend.names().entrySet()) {
            if (unboundInTransaction.contains(binding.getKey()) || boundInTransaction.containsKey(binding.getKey())) {
                continue;
            }
            if (binding.getValue() == id) {
                return new NotPersistableException(e.className(), "\"" + binding.getKey() + "\"" + e.path().substring(m.end()),
                        e.reason());
            }
            Object root = table.object(binding.getValue());
            if (root != null) {
                roots.put("\"" + binding.getKey() + "\"", root);
            }
        }
        boundInTransaction.forEach((name, root) -> roots.put("\"" + name + "\"", root));
        // the label names the object: the one the path started from, or a resident one of that id (a satellite)
        Object labelled = from != null && m.group().equals(PathNode.label(from, id)) ? from : table.object(id);
        String path = labelled == null ? null : RootPaths.find(roots, labelled);
        return path == null ? e : new NotPersistableException(e.className(), path + e.path().substring(m.end()), e.reason());
    }

    @Override
    public synchronized void abortTransaction() {
        checkOpen();
        requireTransaction("abortTransaction");
        rollbackMemory(true);
        endTransaction();
    }

    private void endTransaction() {
        transaction = false;
        table.unpinContainers();
        releaseUntouched();
        if (begunOn != null) {
            begunOn.remove(this); // the beginning thread's list, whichever thread ends it
            begunOn = null;
        }
    }

    private void requireTransaction(String what) {
        if (!transaction) {
            throw new TransactionStateException(what + " needs an active transaction on " + location()
                    + "; call beginTransaction() first");
        }
    }

    /**
     * Takes this store's share of the array write log: marks the resident arrays that escaped,
     * and lists those written in {@link #loggedArrays}. If the log is no longer trusted, lists
     * every resident array for comparison from now on instead.
     */
    private void takeArrayWrites() {
        if (!arraysTracked) {
            return;
        }
        if (!ArrayWrites.tracking()) {
            arraysTracked = false;
            ArrayWrites.unregister(inbox);
            table.arraysTracked(false);
            forgetLoggedArrays();
            return;
        }
        ArrayWrites.flush();
        ArrayInbox.Taken taken = inbox.take();
        if (taken.overflowed()) {
            table.forEachArray(h -> {
                Object c = h.get();
                if (c != null) {
                    if (ArrayWrites.escaped(c)) {
                        table.escaped(h);
                    }
                    logged(h, c);
                }
            });
        }
        for (Object c : taken.escaped()) {
            ContainerHandle h = table.container(c);
            if (h != null) {
                table.escaped(h);
            }
        }
        Object[] written = taken.written();
        for (int i = 0; i < taken.writtenCount(); i++) {
            Object c = written[i];
            if (i > 0 && c == written[i - 1]) {
                continue;
            }
            ContainerHandle h = table.container(c);
            if (h != null) {
                logged(h, c);
            }
        }
    }

    private void logged(ContainerHandle h, Object array) {
        if (!h.logged && h.slot < 0 && h.descriptor.kind == Kind.ARRAY) {
            h.logged = true;
            loggedArrays.add(array);
        }
    }

    private void forgetLoggedArrays() {
        for (Object c : loggedArrays) {
            ContainerHandle h = table.container(c);
            if (h != null) {
                h.logged = false;
            }
        }
        loggedArrays.clear();
    }

    /**
     * Returns every persistent object to its committed state; forgets this transaction's names.
     *
     * @param refill whether to read the changed objects back at once (an abort: a method of one
     *        of them may still be running, and reads its own fields without a check), or leave
     *        them hollow (the store is closing)
     */
    private void rollbackMemory(boolean refill) {
        table.forgetNextPins(); // a failed commit's scan: what it listed may be undone below
        takeArrayWrites();
        List<Persistent> rolledBack = refill ? new ArrayList<>() : null;
        FieldReferents referents = refill ? new FieldReferents() : null;
        for (Map.Entry<Object, Handle> e : pending.entrySet()) {
            Object o = e.getKey();
            Handle h = e.getValue();
            if (o instanceof Persistent p) {
                if (p.$perpetua$state() == ObjectState.NEW) {
                    detach(p, h);
                } else {
                    if (refill) {
                        rolledBack.add(p);
                        p.$perpetua$write(referents);
                    }
                    // its fields go back to their defaults, since a rewritten getter takes a value
                    // that is not the default as proof that the object is filled. Hollow first, as
                    // in undoRead: a thread reading a field meanwhile either sees the value it had
                    // or a default with the object hollow, which sends it to load (after this
                    // abort, under the kernel's lock), never a default it takes for the field's value
                    p.$perpetua$state(ObjectState.HOLLOW);
                    VarHandle.releaseFence();
                    p.$perpetua$read(DEFAULTS);
                    h.lazy(null);
                }
            } else if (((ContainerHandle) h).snapshot == null) {
                table.remove(h);
            }
        }
        pending.clear();
        for (ContainerHandle h : table.liveContainers()) {
            restoreContainer(h);
        }
        for (Object c : loggedArrays) {
            ContainerHandle h = table.container(c);
            if (h != null && h.slot < 0) {
                restoreContainer(h);
            }
        }
        forgetLoggedArrays();
        boundInTransaction.clear();
        unboundInTransaction.clear();
        if (refill) {
            refill(rolledBack);
            java.lang.ref.Reference.reachabilityFence(referents);
        }
    }

    /**
     * Reads the objects an abort put back from the store now, not at their next touch: a method
     * of one of them that was running (the abort came from inside it, or from a block it called)
     * reads its own fields directly after its check at entry, and would go on with the defaults
     * the abort left, and could commit them. Until session 42 it did ("refused 500 for null,
     * balance 0"). A read that fails leaves the object hollow, to be read again, and to report
     * the failure, at its next touch.
     */
    private void refill(List<Persistent> rolledBack) {
        for (Persistent p : rolledBack) {
            if (p.$perpetua$state() == ObjectState.HOLLOW && p.$perpetua$handle() instanceof Handle h) {
                try {
                    load(h, p);
                } catch (RuntimeException | StackOverflowError e) {
                    // stays hollow; the next touch reads it again and throws
                }
            }
        }
    }

    /**
     * What the changed objects' stored fields refer to, held while an abort reads them back: an
     * object only the store's table held weakly besides (a {@code ReentrantLock} a thread holds
     * across the abort, which the thread does not refer to) would otherwise be collected in
     * between, and come back a new object (a new, unlocked lock).
     */
    private static final class FieldReferents implements RecordWriter {
        private final List<Object> held = new ArrayList<>();

        @Override public void writeBoolean(boolean v) { }
        @Override public void writeByte(byte v) { }
        @Override public void writeChar(char v) { }
        @Override public void writeShort(short v) { }
        @Override public void writeInt(int v) { }
        @Override public void writeLong(long v) { }
        @Override public void writeFloat(float v) { }
        @Override public void writeDouble(double v) { }

        @Override
        public void writeObject(Object v) {
            if (v != null) {
                held.add(v);
            }
        }
    }

    private void detach(Persistent p, Handle h) {
        p.$perpetua$state(ObjectState.TRANSIENT);
        p.$perpetua$handle(null);
        table.remove(h);
    }

    /**
     * @return what a {@link Kind#WRAPPER} wraps, remembered in its handle: finding it serializes
     *         the wrapper, and a resident wrapper is compared at every commit
     */
    private Object wrapped(Object wrapper) {
        ContainerHandle h = table.container(wrapper);
        if (h == null) {
            return Containers.wrapped(wrapper);
        }
        Object w = h.wrapped();
        if (w == null) {
            w = Containers.wrapped(wrapper);
            h.wrapped(w);
        }
        return w;
    }

    /** Puts back the committed contents of a container changed in place. */
    private void restoreContainer(ContainerHandle h) {
        Object c = h.get();
        if (c == null || h.snapshot == null || !Containers.mutable(h.descriptor.kind) || unchanged(c, h)) {
            return;
        }
        if (!changed(c, h)) {
            untouch(c);
            return;
        }
        if (h.snapshot == ContainerHandle.ARRAY_SNAPSHOT) {
            h.restoreContents(c);
            return;
        }
        ByteIn in = new ByteIn(h.snapshot);
        ClassDescriptor d = classes.byId(in.readVarInt(), location, h.id());
        Object copy = new RecordDecoder(classes, resolve, strings).reset(in, location, h.recordId()).container(d, NOT_REGISTERED);
        RecordDecoder.restoreInto(c, copy);
        untouch(c);
        h.rememberContents(c);
    }

    /** @return true if the commit in progress is writing the object ({@link ObjectState#WRITING_NEW}, {@link ObjectState#WRITING_DIRTY}) */
    static boolean beingWritten(Persistent p) {
        byte state = p.$perpetua$state();
        return state == ObjectState.WRITING_NEW || state == ObjectState.WRITING_DIRTY;
    }

    /** @return true for a tracked container that no call could have changed since it was last saved */
    /**
     * The tracked containers changed since they were last committed or restored, held strongly
     * until then: a transaction does not pin a tracked container (as it pins every other
     * resident one), so that one only read is let go with what it reaches when the program
     * drops it, even if transactions follow each other back to back (until session 42 they held
     * every resident collection, and what it reached, for good). A change made outside a
     * transaction is held until the next commit too. Added to from any thread.
     */
    private final java.util.concurrent.ConcurrentLinkedQueue<Tracked> touchedTracked = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** A tracked container's first change since its note was last cleared; see {@link #touchedTracked}. */
    static void firstTouch(Kernel owner, Tracked container) {
        if (owner != null) {
            owner.touchedTracked.add(container);
        }
    }

    /** Lets go of the tracked containers whose change was committed or undone. */
    private void releaseUntouched() {
        touchedTracked.removeIf(t -> !t.$perpetua$touched());
    }

    static boolean untouched(Object container) {
        return container instanceof Tracked t && !t.$perpetua$touched();
    }

    /** @return true if a committed container certainly equals its stored form, without encoding it */
    private static boolean unchanged(Object container, ContainerHandle h) {
        return untouched(container) || (container.getClass().isArray() && h.sameContents(container));
    }

    private static void untouch(Object container) {
        if (container instanceof Tracked t) {
            t.$perpetua$untouch();
        }
    }

    /** @return what a container's handle keeps of its committed body {@code bytes} */
    private static byte[] snapshot(ContainerHandle h, byte[] bytes) {
        return h.descriptor.kind == Kind.ARRAY ? ContainerHandle.ARRAY_SNAPSHOT : bytes;
    }

    /** @return true if a committed container's contents differ from its snapshot */
    private boolean changed(Object c, ContainerHandle h) {
        if (h.snapshot == ContainerHandle.ARRAY_SNAPSHOT) {
            return !h.sameContents(c);
        }
        final class Changed extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Changed() {
                super(null, null, false, false);
            }
        }
        RecordEncoder probe = new RecordEncoder(classes, new RecordEncoder.Reach() {
            @Override
            public long object(Persistent object, PathNode parent, String field, int index) {
                if (object.$perpetua$handle() instanceof Handle oh && oh.kernel == Kernel.this && oh.refersTo(object)) {
                    return oh.id();
                }
                if (object.$perpetua$handle() == null && Constants.of(object) != null) {
                    return CONSTANT;
                }
                throw new Changed();
            }

            @Override
            public long container(Object container, Kind kind, PathNode parent, String field, int index,
                                  boolean direct) {
                ContainerHandle ch = table.container(container);
                if (ch == null) {
                    throw new Changed();
                }
                return ch.id() << 1;
            }

            @Override
            public boolean isPersistentContainer(Object container) {
                return table.container(container) != null;
            }

            @Override
            public Object wrapped(Object wrapper) {
                return Kernel.this.wrapped(wrapper);
            }
        });
        try {
            return !Arrays.equals(probe.container(c, h.descriptor.kind, PathNode.root(""), h.recordId()), h.snapshot);
        } catch (Changed | PersistentStoreException e) {
            return true;
        }
    }

    // ---- names and objects ----

    @Override
    public synchronized void persist(Object object, String name) {
        Objects.requireNonNull(name, "name");
        int bad = malformedAt(name);
        if (bad >= 0) {
            throw new IllegalArgumentException("the name \"" + name + "\" has an unpaired surrogate at index " + bad
                    + " (\\u" + Integer.toHexString(name.charAt(bad)).toUpperCase() + "): a name is stored as UTF-8,"
                    + " which cannot hold one");
        }
        checkOpen();
        requireTransaction("persist");
        makePersistent(Objects.requireNonNull(object, "object"), "\"" + name + "\"");
        boundInTransaction.put(name, object);
        unboundInTransaction.remove(name);
    }

    @Override
    public synchronized void persist(Object object) {
        checkOpen();
        requireTransaction("persist");
        makePersistent(Objects.requireNonNull(object, "object"), object.getClass().getName());
    }

    /**
     * @return the index of the first unpaired surrogate in a name, or -1 if it has none: such a
     *         name has no UTF-8 form, so it could be stored as another name (or not at all), and
     *         no stored name is one
     */
    static int malformedAt(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    private void makePersistent(Object object, String label) {
        if (object instanceof Persistent p) {
            Handle h = handleOf(p, label);
            if (h == null) {
                Constants.Ref constant = Constants.of(p);
                if (constant != null) {
                    throw new NotPersistableException(p.getClass().getName(), label, "it is the constant "
                            + constant.className() + "." + constant.field() + ", stored by reference in the records of"
                            + " the objects that refer to it, never as an object of the store; persist one of those");
                }
                checkStorable(p.getClass(), label);
                pending.put(p, attachNew(p, newId(), () -> label));
            }
            return;
        }
        Kind kind = Containers.kindOf(object);
        if (kind == null) {
            if (!RecordEncoder.isValue(object)) {
                try { // let the encoder explain why
                    new RecordEncoder(classes, null).container(object, Kind.VALUE, PathNode.root(label), 0);
                } catch (NotPersistableException e) {
                    throw new NotPersistableException(e.className(), label, e.reason());
                }
            }
            kind = Kind.VALUE;
        }
        if (table.container(object) == null) {
            if (ClosedContainers.wasIn(object, location)) {
                throw ofAnEarlierOpening(object, label);
            }
            Kernel other = ContainerOwners.active() && ContainerOwners.changeable(object, kind)
                    ? ContainerOwners.claim(object, this) : null;
            if (other != null) {
                throw ofAnotherStore(object, other, label);
            }
            ContainerHandle h;
            try {
                h = attachContainer(object, newId(), kind, 0);
            } catch (RuntimeException | Error e) {
                ContainerOwners.left(object, this);
                throw e;
            }
            pending.put(object, h);
        }
    }

    /** Enters this store's resident containers in {@link ContainerOwners} (another store opened). */
    synchronized void enterContainers() {
        if (!closed) {
            table.enterContainers();
        }
    }

    /** @return false once closed; safe without the lock */
    boolean isOpen() {
        return !closed;
    }

    /**
     * Why a collection, map or array that another open store holds is refused: one in two
     * stores would be put back by one's abort after the other committed it, and marked clean by
     * one's commit before the other wrote it.
     */
    private static NotPersistableException ofAnotherStore(Object container, Kernel other, String path) {
        return new NotPersistableException(Containers.storedClass(container).getName(), path, "it is persistent in"
                + " another open store (" + other.location() + "); a collection, map or array belongs to one store, as"
                + " an object does: store a copy of it here (a new collection or map of its contents, a clone of the"
                + " array)");
    }

    /**
     * Why a collection, map or array that was resident in an earlier opening of this store when
     * it closed is refused, as {@link #foreign} says why an object of one is: stored again, it
     * would be a copy, a second container in the store where the program has one, and what the
     * program wrote to it after the close (saved nowhere) would be committed in the copy. (One of
     * another store, closed since, may be stored here: as a copy, it splits no store's container.)
     */
    private static NotPersistableException ofAnEarlierOpening(Object container, String path) {
        return new NotPersistableException(Containers.storedClass(container).getName(), path, "it belongs to an"
                + " earlier opening of this store, closed since; collections, maps and arrays do not carry over to a"
                + " later opening, as objects do not: fetch it again from this one (or store a copy of it: a new"
                + " collection or map of its contents, a clone of the array)");
    }

    /** @return the object's handle in this store, null if it is transient; throws if it is another store's */
    private Handle handleOf(Persistent p, String path) {
        if (!(p.$perpetua$handle() instanceof Handle h)) {
            return null;
        }
        if (!h.refersTo(p)) {
            h.kernel.detachCopy(h, p); // a copy made by Object.clone() in code the agent did not rewrite
            return null;
        }
        if (h.kernel != this) {
            throw new NotPersistableException(p.getClass().getName(), path, foreign(h.kernel));
        }
        return h;
    }

    /** @return why an object of {@code other}, not this store, cannot be stored here */
    private String foreign(Kernel other) {
        if (!other.closed) {
            return "the object is persistent in another store (" + other.location() + "); an object belongs to one store";
        }
        // read before a close, then reached after a reopening: the common case, and the one to explain
        return other.location().equals(location())
                ? "the object belongs to an earlier opening of this store, closed since; objects do not carry over to a"
                        + " later opening: fetch it again from this one"
                : "the object belongs to the store " + other.location() + ", closed since; an object belongs to one store:"
                        + " copy what it holds into a new object to store it here";
    }

    /** As {@link #checkStorable(Class, String)}, rendering the path only for an error. */
    private ClassInfo checkStorable(Class<?> type, PathNode path) {
        ClassInfo info = storableIfKnown(type);
        return info != null ? info : checkStorable(type, path.render());
    }

    /** @return what the kernel knows of a rewritten class it has met, else null (then checkStorable says why) */
    private ClassInfo storableIfKnown(Class<?> type) {
        ClassInfo info = classes.infoIfKnown(type);
        return info != null && info.factory != null ? info : null;
    }

    /** Why an object of a class the agent left as it was cannot be stored or read. */
    static final String NOT_REWRITTEN = "its class was not rewritten by the Perpetua agent in this JVM: run with"
            + " -javaagent:perpetua-agent.jar, and check that the agent's include and exclude options do not leave it"
            + " out (classes loaded before the agent started cannot be rewritten)";

    private ClassInfo checkStorable(Class<?> type, String path) {
        ClassInfo info;
        try {
            info = classes.info(type);
        } catch (NotPersistableException e) {
            throw new NotPersistableException(e.className(), path, e.reason());
        }
        if (info.factory == null) {
            throw new NotPersistableException(type.getName(), path, NOT_REWRITTEN);
        }
        return info;
    }

    private Handle attach(Persistent p, long id, byte state) {
        Handle h = new Handle(this, p, id, table.queue());
        p.$perpetua$handle(h);
        p.$perpetua$state(state);
        table.put(h);
        return h;
    }

    /**
     * As {@link #attach}, for an object the program made, reached by {@code path}: refuses one
     * whose persistence protocol methods do not keep what they are given (a mock or proxy that
     * intercepts every method of a persistent class, as Mockito's inline mock maker does), which
     * the commit could not write.
     */
    private Handle attachNew(Persistent p, long id, java.util.function.Supplier<String> path) {
        Handle h = new Handle(this, p, id, table.queue());
        p.$perpetua$handle(h);
        p.$perpetua$state(ObjectState.NEW);
        if (p.$perpetua$handle() != h || p.$perpetua$state() != ObjectState.NEW) {
            p.$perpetua$handle(null);
            throw new NotPersistableException(p.getClass().getName(), path.get(), INTERCEPTED);
        }
        table.put(h);
        return h;
    }

    /** Why an object whose persistence protocol methods are intercepted cannot be stored. */
    static final String INTERCEPTED = "its methods $perpetua$handle and $perpetua$state do not keep what the store gives"
            + " them: a mock or proxy that intercepts every method of a persistent class (Mockito's inline mock maker"
            + " does) cannot be stored; store a real instance, or a mock of an interface the class implements, kept"
            + " in a transient field";

    /** Attaches a container the program made, describing it as {@code kind}. */
    private ContainerHandle attachContainer(Object c, long id, Kind kind, long ownerId) {
        return attachContainer(c, id, kind == Kind.VALUE ? classes.descriptor(Kind.VALUE, "value", List.of())
                : classes.descriptor(kind, Containers.storedClass(c)),
                // an array the program made may have been handed to JDK code that can write it later
                arraysTracked && kind == Kind.ARRAY && ArrayWrites.escaped(c), ownerId);
    }

    /**
     * @param ownerId the id of the object whose record embeds the container, or 0 if it has a
     *                record of its own
     */
    private ContainerHandle attachContainer(Object c, long id, ClassDescriptor descriptor, boolean escaped, long ownerId) {
        if (descriptor.kind != Kind.ARRAY && c instanceof Tracked t) {
            t.$perpetua$owner(this);
        }
        ContainerHandle h = new ContainerHandle(this, c, id, table.queue());
        h.descriptor = descriptor;
        h.escaped = escaped;
        h.embedded = ownerId != 0;
        h.ownerId = ownerId;
        table.put(h);
        return h;
    }

    private long newId() {
        if (nextId >= idLimit) {
            int n = idBlock;
            idBlock = Math.min(idBlock * 2, MAX_ID_BLOCK);
            nextId = backend.allocateIds(n);
            idLimit = nextId + n;
        }
        if (nextId > Satellites.MAX_HOME) {
            throw new StorageException(location + " has used every object id below 2^" + Satellites.SHIFT, null);
        }
        return nextId++;
    }

    @Override
    public synchronized Object fetch(String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        table.expunge();
        if (!transaction && decodeDepth == 0) {
            // no commit may come to take the log: the arrays that escaped to JDK code (given to
            // Arrays.asList by a read-only walk) would be held by it until one does
            takeArrayWrites();
        }
        if (unboundInTransaction.contains(name) || malformedAt(name) >= 0) {
            throw new UnknownPersistentName(name);
        }
        Object bound = boundInTransaction.get(name);
        if (bound != null) {
            return bound;
        }
        long id = backend.lookup(name);
        if (id == 0) {
            throw new UnknownPersistentName(name);
        }
        int depth = decodeDepth;
        try {
            return object(id);
        } catch (StackOverflowError e) {
            throw readTooDeep(depth, id, e);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T fetch(String name, Class<T> type) {
        Object o = fetch(name);
        // int.class asks for an Integer: what a Class<Integer> names either way
        Class<?> wanted = type.isPrimitive() ? java.lang.invoke.MethodType.methodType(type).wrap().returnType() : type;
        if (!wanted.isInstance(o)) {
            // the class the program made, not the kernel's tracked subclass; int[] rather than [I
            Class<?> actual = Containers.kindOf(o) != null ? Containers.storedClass(o) : o.getClass();
            throw new UnexpectedTypeException(name, type, actual);
        }
        return (T) o;
    }

    /**
     * The object of an id as committed, for an abort that puts it back into an array: the
     * resident one, or read back if the program let it be collected during the transaction.
     */
    Object committedObject(long id) {
        Object o = table.object(id);
        return o != null ? o : object(id);
    }

    /** @return the resident, filled object of an id, reading it if needed */
    private Object object(long id) {
        Object o = table.object(id);
        if (o != null) {
            if (o instanceof Persistent p && p.$perpetua$state() == ObjectState.HOLLOW) {
                fault(p, id);
            }
            return o;
        }
        if (Satellites.isSatellite(id)) {
            return loadSatellite(id);
        }
        byte[] record = read(id);
        ByteIn in = new ByteIn(record);
        ClassDescriptor d;
        try {
            d = classes.byId(in.readVarInt(), location, id);
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(where(id), m.getMessage(), null);
        }
        if (d.kind == Kind.OBJECT || d.kind == Kind.REPLACED_OBJECT) {
            Persistent p = newShell(d, id);
            if (p.$perpetua$state() == ObjectState.HOLLOW) {
                fill(p, id, record);
            }
            return p;
        }
        return decodeContainer(id, record);
    }

    @Override
    public synchronized long preload(String name) {
        long before = recordsRead;
        Object root = fetch(name);
        preloading = true;
        try {
            new Preloader(this, classes).walk(root);
        } finally {
            preloading = false;
        }
        return recordsRead - before;
    }

    /**
     * For {@link Preloader}: fills a hollow object, decodes its lazy array fields in one pass
     * (those of an object filled before the preload; the preload's own fills decode arrays at
     * once), and fills the satellites its record holds while that record is at hand (else each
     * satellite would read it again when reached). Called under the kernel's lock, by
     * {@link #preload}.
     */
    void makeResident(Persistent p) {
        Handle h = (Handle) p.$perpetua$handle();
        long id = h.id();
        if (p.$perpetua$state() == ObjectState.HOLLOW) {
            fault(p, id);
        }
        if (h.lazy() != null) {
            decodeLazyFields(h, p, -1);
        }
        if (h.satellites > 0 && recentHomes.get(id) != null) {
            for (int k = 1; k <= h.satellites; k++) {
                long sid = Satellites.id(id, k);
                if (table.object(sid) instanceof Persistent s && s.$perpetua$state() == ObjectState.HOLLOW) {
                    loadSatellite(sid);
                }
            }
        }
    }

    @Override
    public synchronized void unbind(String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        requireTransaction("unbind");
        if (!isBound(name)) {
            throw new UnknownPersistentName(name);
        }
        boundInTransaction.remove(name);
        if (backend.lookup(name) != 0) {
            unboundInTransaction.add(name);
        }
    }

    @Override
    public synchronized boolean isBound(String name) {
        checkOpen();
        if (boundInTransaction.containsKey(name)) {
            return true;
        }
        return !unboundInTransaction.contains(name) && malformedAt(name) < 0 && backend.lookup(name) != 0;
    }

    @Override
    public synchronized List<String> names() {
        checkOpen();
        TreeSet<String> names = new TreeSet<>(backend.names().keySet());
        names.removeAll(unboundInTransaction);
        names.addAll(boundInTransaction.keySet());
        return List.copyOf(names);
    }

    @Override
    public synchronized long collectGarbage() {
        checkOpen();
        if (transaction) {
            throw new TransactionStateException("collectGarbage needs no active transaction on " + location
                    + ": commit or abort it first");
        }
        table.expunge();
        long[] roots = LongStream.concat(Arrays.stream(table.liveIds()),
                backend.names().values().stream().mapToLong(Long::longValue)).toArray();
        GarbageCollector collector = new GarbageCollector(backend, classes, location);
        long deleted = collector.collect(roots);
        recordsRead += collector.recordsRead();
        return deleted;
    }

    @Override
    public synchronized long copyTo(String targetUriOrPath) {
        checkOpen();
        Objects.requireNonNull(targetUriOrPath, "targetUriOrPath");
        long copied = uninterrupted(() -> {
            try (Backend target = Backends.open(targetUriOrPath)) {
                if (target instanceof io.perpetua.memory.MemoryBackend m && m.anonymous()) {
                    throw new IllegalArgumentException("a copy into \"memory:\" is gone when the copy ends (no one can"
                            + " open that store again): name it, e.g. memory:backup");
                }
                return new StoreCopier(backend, target).copy();
            }
        });
        recordsRead += copied;
        return copied;
    }

    /**
     * Runs {@code action} to its end even if this thread is interrupted, then interrupts it
     * again: the backends' files close when an interrupted thread uses them, and a cancelled
     * task must still be able to close its store or finish a copy.
     */
    static <T> T uninterrupted(Supplier<T> action) {
        boolean interrupted = Thread.interrupted();
        try {
            return action.get();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public synchronized boolean isPersistent(Object object) {
        checkOpen();
        return holds(object);
    }

    /** {@link #isPersistent}, false once closed rather than refused (for {@link #ownerOf}, racing a close). */
    private synchronized boolean holds(Object object) {
        if (object instanceof Persistent p) {
            return p.$perpetua$handle() instanceof Handle h && h.kernel == this && h.refersTo(p);
        }
        return object != null && !closed && table.container(object) != null;
    }

    @Override
    public synchronized StoreStatistics statistics() {
        checkOpen();
        table.expunge();
        BackendStatistics b = backend.statistics();
        return new StoreStatistics(b.objects(), b.names(), b.bytesOnDisk(), recordsRead, recordsWritten, commits, table.size(),
                table.containerCount());
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            if (transaction) {
                rollbackMemory(false);
                endTransaction();
            }
        } finally {
            closed = true;
            OPEN.remove(this);
            ContainerOwners.closed(this, OPEN);
            table.markClosed(location); // after the rollback: what it undid was never this store's
            ArrayWrites.unregister(inbox);
            uninterrupted(() -> {
                backend.close();
                return null;
            });
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreClosedException("the store " + location);
        }
    }

    @Override
    public String toString() {
        return "PersistentStore[" + location() + "]";
    }

    // ---- fault-in ----

    /** Fills a hollow object: the slow path of the read check. */
    synchronized void load(Handle h, Persistent p) {
        if (p.$perpetua$state() != ObjectState.HOLLOW) {
            return; // another thread filled it while this one waited
        }
        if (!h.refersTo(p)) {
            detachCopy(h, p); // a copy of a hollow object: filled from the original
            return;
        }
        if (recordBeingFilled(h.id()) != null && PersistentClasses.inheritedContainer(p.getClass()) != null) {
            // the JDK collection or map it extends, being filled last, called one of its methods
            // (a LinkedHashMap's removeEldestEntry): its own fields are set, as in a constructor
            return;
        }
        checkOpen();
        table.expunge();
        int depth = decodeDepth;
        try {
            fault(p, h.id());
        } catch (StackOverflowError e) {
            throw readTooDeep(depth, h.id(), e);
        }
    }

    /** Fails a read that would nest deeper than {@link #MAX_READ_DEPTH}, before it starts. */
    private void checkReadDepth(long id) {
        if (decodeDepth >= MAX_READ_DEPTH) {
            throw new PersistentStoreException(where(id) + ": what it holds nests more than " + MAX_READ_DEPTH
                    + " reads deep (records or immutable collections, each holding the next); nothing was read."
                    + " Make the chain of objects or mutable collections, which are read in a loop however deep, or"
                    + " raise -Dperpetua.read.maxDepth and read it on a thread with a larger stack");
        }
    }

    /**
     * A read that overflowed the stack (one on a thread with a small stack, below
     * {@link #MAX_READ_DEPTH}): values that each hold the next, through
     * records or immutable collections (containers that hold containers are read in a loop,
     * however deep: fillDeferred). The reads it crossed undid what they read on the way out;
     * an outermost read also resets what one cut short may have left counted.
     *
     * @param depth the reads in progress when the failed one began: only the outermost reports
     */
    private PersistentStoreException readTooDeep(int depth, long id, StackOverflowError e) {
        if (depth > 0) {
            throw e;
        }
        decodeDepth = 0;
        fills = 0;
        Arrays.fill(fillRecords, null);
        filling = null;
        decoding.clear();
        deferred.clear();
        deferredAdds.clear();
        fillingDeferred = 0;
        unfilled.clear();
        inFlight = null;
        readLog.clear();
        return new PersistentStoreException(where(id) + ": what it holds nests too deeply to be read on this thread's"
                + " stack (records or immutable collections, each holding the next); the read was undone. Read it on a"
                + " thread with a larger stack (new Thread(group, task, name, stackSize)), or make the chain of objects"
                + " or mutable collections, which are read in a loop", e);
    }

    /** Fills a hollow object from the store: from its own record, or from its home's. */
    private void fault(Persistent p, long id) {
        if (Satellites.isSatellite(id)) {
            loadSatellite(id);
        } else {
            fill(p, id, read(id));
        }
    }

    /**
     * Fills a satellite from its home's record: the home's recent record if the kernel still
     * has it (the home was just filled, as when a traversal reaches a part and then its
     * connections), else read now, filling the home too if it is hollow.
     *
     * @return the satellite, resident and filled
     */
    private Persistent loadSatellite(long id) {
        long homeId = Satellites.home(id);
        byte[] record = recentHomes.get(homeId);
        if (record == null) {
            record = recordBeingFilled(homeId); // touched while its home is read: the hashCode of a set's element, say
        }
        if (record == null) {
            record = read(homeId);
            Object resident = table.object(homeId);
            Persistent home;
            if (resident instanceof Persistent p) {
                home = p;
            } else if (resident == null) {
                home = newShell(objectDescriptor(homeId, record), homeId);
            } else {
                throw new CorruptStoreException(where(id), "its home #" + homeId + " is a container", null);
            }
            if (home.$perpetua$state() == ObjectState.HOLLOW) {
                fill(home, homeId, record); // one read brings in both
            } else {
                recentHomes.put(homeId, record); // for its other satellites
            }
        }
        Satellites.Entry entry;
        try {
            entry = Satellites.entry(record, Satellites.index(id));
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(where(homeId), m.getMessage(), null);
        }
        if (entry == null) {
            throw new CorruptStoreException(where(id), "its home's record #" + homeId + " does not hold it", null);
        }
        Object resident = table.object(id);
        Persistent s;
        if (resident instanceof Persistent p) {
            s = p;
        } else if (resident == null) {
            s = newShell(classes.byId(new ByteIn(record, entry.from(), entry.to()).readVarInt(), location, id), id);
        } else {
            throw new CorruptStoreException(where(id), "it is resident as a container", null);
        }
        if (s.$perpetua$state() == ObjectState.HOLLOW) {
            fill(s, id, record, entry.from(), entry.to());
        }
        return s;
    }

    /** @return the descriptor an object record starts with, which must be a rewritten class's */
    private ClassDescriptor objectDescriptor(long id, byte[] record) {
        ClassDescriptor d;
        try {
            d = classes.byId(new ByteIn(record).readVarInt(), location, id);
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(where(id), m.getMessage(), null);
        }
        if (d.kind != Kind.OBJECT) {
            throw new CorruptStoreException(where(id), "the record is of " + d + ", not of an object", null);
        }
        return d;
    }

    /** Marks an object dirty, filling it first if hollow: the slow path of the write check. */
    synchronized void beforeWrite(Handle h, Persistent p) {
        if (!h.refersTo(p)) {
            detachCopy(h, p); // a copy the program writes to: a new object, not the original
            return;
        }
        if (p.$perpetua$state() == ObjectState.HOLLOW) {
            load(h, p);
        }
        if (beingWritten(p)) {
            // only on the committing thread (the others wait for the lock): its own code the
            // encoder ran wrote an object the commit is writing
            if (committing != null) {
                committing.writtenAgain(p);
            }
            return;
        }
        if (p.$perpetua$state() == ObjectState.CLEAN) {
            p.$perpetua$state(ObjectState.DIRTY);
            if (!closed) {
                pending.put(p, h);
                if (committing != null) {
                    committing.writtenAgain(p); // by code the commit ran: still changed after it
                }
            }
        }
    }

    /**
     * Makes transient a copy that {@code Object.clone()} made of a persistent object (it holds
     * the original's handle and state; see {@link io.perpetua.runtime.ObjectHandle#detachCopy}).
     * What the copy lacks is taken from the original, read back if the program let it go: every
     * field if the copy was made hollow, else the array fields the copy holds undecoded (their
     * lazy markers), decoded in the original first so that both share one array, as a copy made
     * of a resident object does. Called with the kernel's lock held or not.
     */
    synchronized void detachCopy(Handle h, Persistent copy) {
        if (copy.$perpetua$handle() != h || h.refersTo(copy)) {
            return; // detached already, by another thread
        }
        ClassInfo info = classes.info(copy.getClass());
        boolean hollow = copy.$perpetua$state() == ObjectState.HOLLOW;
        FieldValues mine = null;
        boolean lacking = hollow;
        if (!hollow && info.lazyMarkers != null) {
            mine = new FieldValues(info.descriptor.fields.size());
            copy.$perpetua$write(mine);
            for (int k = 0; k < info.lazyMarkers.length && !lacking; k++) {
                lacking = info.lazyMarkers[k] != null && mine.reference(k) == info.lazyMarkers[k];
            }
        }
        if (lacking) {
            checkOpen();
            Object o = h.get();
            Persistent original = (Persistent) (o != null ? o : object(h.id())); // object() fills
            Handle oh = (Handle) original.$perpetua$handle();
            if (original.$perpetua$state() == ObjectState.HOLLOW) {
                load(oh, original);
            }
            if (oh.lazy() != null) {
                decodeLazyFields(oh, original, -1);
            }
            FieldValues theirs = new FieldValues(info.descriptor.fields.size());
            original.$perpetua$write(theirs);
            if (hollow) {
                mine = theirs;
            } else {
                for (int k = 0; k < info.lazyMarkers.length; k++) {
                    if (info.lazyMarkers[k] != null && mine.reference(k) == info.lazyMarkers[k]) {
                        mine.reference(k, theirs.reference(k));
                    }
                }
            }
        }
        // transient before its fields are set: code they run on it (a LinkedHashMap subclass's
        // removeEldestEntry, called back as its contents are put) must not take it for a copy again
        copy.$perpetua$handle(null);
        copy.$perpetua$state(ObjectState.TRANSIENT);
        if (lacking) {
            copy.$perpetua$read(mine.replay());
        }
        VarHandle.releaseFence(); // its fields are written before another thread can see it
    }

    /**
     * Fills an object and decodes all its lazy array fields, for Java serialization, which reads
     * fields by reflection (see {@link io.perpetua.runtime.Residency#beforeSerialization}).
     */
    synchronized void materializeAll(Handle h, Persistent p) {
        if (!h.refersTo(p)) {
            detachCopy(h, p);
            return;
        }
        if (p.$perpetua$state() == ObjectState.HOLLOW) {
            load(h, p);
        }
        if (h.lazy() != null) {
            checkOpen();
            int depth = decodeDepth;
            try {
                decodeLazyFields(h, p, -1);
            } catch (StackOverflowError e) {
                throw readTooDeep(depth, h.id(), e);
            }
        }
    }

    /** Decodes a lazy array field: the slow path of the getter that found its marker. */
    synchronized void materialize(Handle h, Persistent p, Object marker) {
        if (!h.refersTo(p)) {
            detachCopy(h, p); // a copy of an object with a lazy field: it takes the original's value
            return;
        }
        LazyFields lazy = h.lazy();
        if (lazy == null) {
            return; // decoded by another thread while this one waited
        }
        checkOpen();
        int k = classes.info(p.getClass()).lazyOrdinal(marker);
        if (k >= 0 && lazy.at[k] != 0) {
            int depth = decodeDepth;
            try {
                decodeLazyFields(h, p, k);
            } catch (StackOverflowError e) {
                throw readTooDeep(depth, h.id(), e);
            }
        }
    }

    /**
     * Decodes lazy array fields from the record the object was filled from, and sets them
     * through the object's codec, in one pass: its other fields are written back as they are.
     * A field that no longer holds its marker (set meanwhile without the getter, by reflection
     * say) keeps what it holds.
     *
     * @param only the reference-field ordinal of the one field to decode, or -1 for every field
     *             still lazy
     */
    private void decodeLazyFields(Handle h, Persistent p, int only) {
        LazyFields lazy = h.lazy();
        long id = h.id();
        checkReadDepth(id);
        ClassInfo info = classes.info(p.getClass());
        FieldValues values = new FieldValues(info.descriptor.fields.size());
        p.$perpetua$write(values);
        int first = only < 0 ? 0 : only;
        int last = only < 0 ? lazy.at.length - 1 : only;
        Handle outer = filling;
        filling = h; // the owner of the containers embedded in this record
        decodeDepth++;
        int outerFilling = fillingDeferred;
        fillingDeferred = 0; // a read of its own, even if code a deferred fill runs started it
        int mark = readLog.size();
        boolean done = false;
        try {
            RecordDecoder decoder = new RecordDecoder(classes, resolve, strings);
            boolean decoded = false;
            for (int k = first; k <= last; k++) {
                if (lazy.at[k] != 0 && values.reference(k) == info.lazyMarkers[k]) {
                    values.reference(k, decoder.reset(new ByteIn(lazy.record, lazy.at[k], lazy.end), location, id).value());
                    decoded = true;
                }
            }
            if (decoded) {
                if (!deferred.isEmpty()) {
                    fillDeferred();
                }
                VarHandle.releaseFence(); // the arrays are complete before their fields can show them
                p.$perpetua$read(values.replay());
            }
            done = true;
        } catch (ByteIn.MalformedRecord | ClassCastException e) {
            throw fieldsFailed(p, id, e, info, values);
        } finally {
            filling = outer;
            if (!done) {
                undoRead(mark);
            }
            fillingDeferred = outerFilling;
            endDecode(done);
        }
        for (int k = first; k <= last; k++) {
            lazy.at[k] = 0; // only now: a failed decode leaves the markers to be decoded again
        }
        if (lazy.done()) {
            h.lazy(null);
        }
        VarHandle.releaseFence(); // the fields are written before another thread can see them
    }

    private byte[] read(long id) {
        byte[] record = backend.read(id);
        recordsRead++;
        if (record == null) {
            throw new CorruptStoreException(where(id), "the object's record is missing", null);
        }
        return record;
    }

    private String where(long id) {
        return location + ", object #" + id;
    }

    private void fill(Persistent p, long id, byte[] record) {
        fill(p, id, record, 0, record.length);
    }

    /**
     * Fills an object from its body at {@code record[from, to)}: a record of its own (then
     * followed by its satellites, if any) or a satellite's entry in its home's record.
     */
    private void fill(Persistent p, long id, byte[] record, int from, int to) {
        checkReadDepth(id);
        Handle h = (Handle) p.$perpetua$handle();
        startFill(p, id, from == 0 && to == record.length ? record : null);
        Handle outer = filling;
        filling = h;
        decodeDepth++;
        int outerFilling = fillingDeferred;
        fillingDeferred = 0; // a read of its own, even if code a deferred fill runs started it
        int mark = readLog.size();
        boolean done = false;
        ClassInfo info = null;
        RecordReader reader = null;
        try {
            ByteIn in = new ByteIn(record, from, to);
            ClassDescriptor stored = classes.byId(in.readVarInt(), location, id);
            info = classes.info(p.getClass());
            // the same descriptor (the usual case) needs no comparison of class names
            if (stored != info.descriptor && (stored.kind != Kind.OBJECT && stored.kind != Kind.REPLACED_OBJECT
                    || !classes.currentName(stored.className).equals(p.getClass().getName()))) {
                throw new CorruptStoreException(where(id), "the record is of " + stored + " but the object is a "
                        + p.getClass().getName(), null);
            }
            RecordDecoder decoder = new RecordDecoder(classes, resolve, strings).reset(in, location, id);
            if (stored.kind == Kind.REPLACED_OBJECT) {
                fillFromReplacement(p, info, decoder.replaced(classes.byId(in.readVarInt(), location, id)));
                if (!in.atEnd()) {
                    throw new ByteIn.MalformedRecord((in.end() - in.position()) + " bytes left over after the replacement");
                }
                h.lazy(null);
            } else {
                boolean current = stored == info.descriptor;
                if (current && info.lazyMarkers != null && !preloading) {
                    decoder.leaveArraysLazy(info.lazyMarkers);
                }
                reader = current ? decoder : decoder.evolved(stored, info.descriptor);
                if (!current) {
                    VarHandle.releaseFence(); // the values, decoded up front, are complete before the fields show them
                }
                p.$perpetua$read(reader);
                if (!deferred.isEmpty()) {
                    fillDeferred(); // the containers its fields show are complete before it is
                }
                int[] lazyAt = decoder.lazyFields();
                h.lazy(lazyAt != null ? new LazyFields(record, to, lazyAt) : null);
                boolean hasSatellites = !in.atEnd() && from == 0 && to == record.length;
                if (!in.atEnd() && !hasSatellites) {
                    throw new ByteIn.MalformedRecord((in.end() - in.position()) + " bytes left over after the last field");
                }
                if (hasSatellites) {
                    // the satellites stay hollow until touched, and are then filled from this record
                    ((Handle) p.$perpetua$handle()).satellites = Satellites.count(record, in.position());
                    recentHomes.put(id, record);
                }
            }
            VarHandle.releaseFence(); // the fields are written before the state says so
            p.$perpetua$state(ObjectState.CLEAN);
            readLog.add(h);
            if (info.readResolve != null && stored.kind == Kind.OBJECT) {
                resolveRead(p, info);
            }
            done = true;
        } catch (ByteIn.MalformedRecord | ClassCastException e) {
            throw fieldsFailed(p, id, e, info, reader);
        } finally {
            filling = outer;
            fills--;
            fillRecords[fills] = null;
            if (!done) {
                undoRead(mark);
                p.$perpetua$read(DEFAULTS); // what it read before failing: a getter takes a value as proof of a fill
            }
            fillingDeferred = outerFilling;
            endDecode(done);
        }
    }

    /**
     * Fills an object of a class stored by its serialization replacement from what the
     * replacement's {@code readResolve} made of its record (see {@link RecordEncoder#replacedObject}):
     * the resolved object's fields, transient ones too (such a class stores them), are moved
     * into this one, which keeps its identity. What {@code readResolve} made that refers to the
     * resolved object itself keeps referring to it, not to this one.
     */
    private void fillFromReplacement(Persistent p, ClassInfo info, Object resolved) {
        if (resolved == null || resolved.getClass() != p.getClass()) {
            throw new IncompatibleClassChangeException(p.getClass().getName(), null, "it is stored by its serialization"
                    + " replacement, whose readResolve now makes " + (resolved == null ? "null"
                    : "an object of " + resolved.getClass().getName()) + ", not one of its class");
        }
        FieldValues values = new FieldValues(info.descriptor.fields.size());
        ((Persistent) resolved).$perpetua$write(values);
        if (!deferred.isEmpty()) {
            fillDeferred(); // the containers its fields show are complete before it is
        }
        VarHandle.releaseFence(); // the values, decoded up front, are complete before the fields show them
        p.$perpetua$read(values.replay());
    }

    /**
     * Runs the {@code readResolve} of an object just filled from its own fields, as Java
     * deserialization runs it on an object it has read: a class may rebuild there what it keeps
     * in transient fields (Commons Collections' {@code MultiKey} its hash code) or hand back its
     * canonical instance (Joda-Time's {@code BuddhistChronology} and {@code GJChronology}, whose
     * fields are rebuilt by their constructors). An object of the same class it hands back gives
     * this one its fields (transient ones too if the class stores them), and this one keeps its
     * identity; one of another class is ignored, this one stays as it was read. What the method
     * writes is not a change of the program's: the object stays clean.
     */
    private void resolveRead(Persistent p, ClassInfo info) {
        if (!deferred.isEmpty()) {
            fillDeferred(); // readResolve may hash or sort what the fields hold
        }
        Object resolved;
        try {
            resolved = info.readResolve.invoke(p);
        } catch (RuntimeException | Error e) {
            throw new PersistentStoreException("the readResolve of " + p.getClass().getName()
                    + " rejected the object read from the store: " + e, e);
        } catch (Throwable t) {
            throw new PersistentStoreException("the readResolve of " + p.getClass().getName() + " failed: " + t, t);
        }
        if (resolved != p && resolved != null && resolved.getClass() == p.getClass()) {
            Persistent other = (Persistent) resolved;
            if (other.$perpetua$state() == ObjectState.HOLLOW) {
                io.perpetua.runtime.Residency.load(other);
            }
            FieldValues values = new FieldValues(info.descriptor.fields.size());
            other.$perpetua$write(values);
            VarHandle.releaseFence();
            p.$perpetua$read(values.replay());
        }
        if (p.$perpetua$state() == ObjectState.DIRTY) {
            p.$perpetua$state(ObjectState.CLEAN); // a transient field the method wrote is not the program's change
            pending.remove(p);
        }
    }

    /**
     * Undoes what a failed read did since {@code mark}: the containers it attached leave the
     * table (one may be half read: the next read reads it anew), and the objects it filled go
     * hollow again (one may hold such a container). Objects the program changed meanwhile keep
     * their changes.
     */
    private void undoRead(int mark) {
        for (int i = readLog.size() - 1; i >= mark; i--) {
            Handle h = readLog.remove(i);
            if (h instanceof ContainerHandle c) {
                table.remove(c);
                Handle owner = c.embedded ? table.get(c.ownerId) : null;
                if (owner != null) {
                    owner.unembed(c);
                }
            } else if (h.get() instanceof Persistent p && p.$perpetua$state() == ObjectState.CLEAN) {
                p.$perpetua$state(ObjectState.HOLLOW);
                VarHandle.releaseFence(); // hollow before its fields show defaults, which send a getter to load it
                p.$perpetua$read(DEFAULTS);
                h.lazy(null);
            }
        }
    }

    /** A hashed or sorted container that waits to be filled, and what it holds (Resolver#fill). */
    private record Unfilled(Object container, Object[] contents) {
    }

    /**
     * Thrown when code run by a read (an element's hashCode, say) touches an object whose own
     * read is in progress, which would recurse without end. A hashed container being filled
     * catches it and waits for the read instead (Resolver#fill); otherwise the program gets it.
     */
    private static final class ReadInProgress extends PersistentStoreException {
        private static final long serialVersionUID = 1L;
        /** True once it has left a read unfinished: then it is not waited out, but reported. */
        boolean leftAReadUnfinished;

        ReadInProgress(String message) {
            super(message);
        }
    }

    /** Enters a fill of object {@code id}, refusing one already in progress (which would recurse without end). */
    private void startFill(Persistent p, long id, byte[] record) {
        for (int i = 0; i < fills; i++) {
            if (fillIds[i] == id) {
                throw inFlight = new ReadInProgress(where(id) + " (" + p.getClass().getName() + ") was touched while"
                        + " it was being read from the store: code that reading it runs (the hashCode, equals or"
                        + " compareTo of an element of an immutable set or map, or a record's constructor)"
                        + " reads the object itself");
            }
        }
        if (fills == fillIds.length) {
            fillIds = Arrays.copyOf(fillIds, fills * 2);
            fillRecords = Arrays.copyOf(fillRecords, fills * 2);
        }
        fillIds[fills] = id;
        fillRecords[fills++] = record;
    }

    /**
     * @return whether this thread is filling object {@code h} now, or decoding its lazy fields
     *         (either writes its fields through {@code $perpetua$read}). Fills run under the
     *         kernel's lock, so a thread without it is filling nothing, and takes no lock here.
     */
    boolean filling(Handle h) {
        if (!Thread.holdsLock(this)) {
            return false;
        }
        if (filling == h) {
            return true;
        }
        for (int i = fills - 1; i >= 0; i--) {
            if (fillIds[i] == h.id()) {
                return true;
            }
        }
        return false;
    }

    /** @return the whole record of an object being filled now, or null */
    private byte[] recordBeingFilled(long id) {
        for (int i = fills - 1; i >= 0; i--) {
            if (fillIds[i] == id) {
                return fillRecords[i];
            }
        }
        return null;
    }

    /**
     * Leaves a fill or a container read; the outermost one then fills the hashed and sorted
     * containers that waited, now that the objects read are complete. Each fill that adding
     * runs (an element's hashCode reading a hollow object) fills its own in turn.
     *
     * @param done false if the read is failing: its own exception is then the one reported
     */
    private void endDecode(boolean done) {
        if (!done && inFlight != null) {
            inFlight.leftAReadUnfinished = true;
        }
        if (--decodeDepth > 0) {
            return;
        }
        readLog.clear();
        deferred.clear(); // left by a failed read only: its containers were undone with it
        deferredAdds.clear();
        if (unfilled.isEmpty()) {
            return;
        }
        RuntimeException first = null;
        for (Unfilled next; (next = unfilled.poll()) != null; ) {
            try {
                addAll(next.container(), next.contents());
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e; // the other containers are still filled: none is left empty for a commit to store
                }
            }
        }
        if (first != null && done) {
            throw first;
        }
    }

    /** Adds what a hashed or sorted container read from the store holds; it is then untouched, as read. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void addAll(Object container, Object[] contents) {
        try {
            if (container instanceof Map m) {
                for (int i = 0; i < contents.length; i += 2) {
                    m.put(contents[i], contents[i + 1]);
                }
            } else {
                Collection c = (Collection) container;
                for (Object e : contents) {
                    c.add(e);
                }
            }
        } catch (PersistentStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new PersistentStoreException(location + ": a " + Containers.storedClass(container).getName()
                    + " read from the store could not be filled: adding an element runs the element's own code"
                    + " (hashCode, equals or compareTo), which threw " + e, e);
        }
        untouch(container);
    }

    /**
     * @param info the object's class, or null if the failure came before it was known
     * @param reader what served the object's codec, or null if the failure came before it ran
     * @return the error for a record whose fields cannot be read into the object: corrupt, or a
     *         stored value that no longer fits its field (a reference field whose declared type
     *         changed), naming the field
     */
    private PersistentStoreException fieldsFailed(Persistent p, long id, RuntimeException e,
                                                  ClassInfo info, RecordReader reader) {
        if (e instanceof ByteIn.MalformedRecord) {
            return new CorruptStoreException(where(id), e.getMessage(), null);
        }
        // The codec casts each reference right after reading it: the field at fault is the last one read.
        ClassDescriptor.Field field = info == null ? null : lastFieldRead(info.descriptor, reader);
        String detail = "a stored value no longer fits the type of its field (" + e.getMessage() + ")";
        return field == null
                ? new IncompatibleClassChangeException(p.getClass().getName(), null, detail, e)
                : new IncompatibleClassChangeException(field.owner(), field.name(), detail, e);
    }

    /** @return the field of this layout that {@code reader} served last, or null if none or unknown */
    private static ClassDescriptor.Field lastFieldRead(ClassDescriptor layout, RecordReader reader) {
        if (reader instanceof FieldValues values) {
            int at = values.served() - 1;
            return at >= 0 && at < layout.fields.size() ? layout.fields.get(at) : null;
        }
        if (reader instanceof RecordDecoder decoder) {
            int ordinal = decoder.referencesRead() - 1; // among the reference fields
            for (ClassDescriptor.Field f : layout.fields) {
                if (f.type() == 'L' && ordinal-- == 0) {
                    return f;
                }
            }
        }
        return null;
    }

    /**
     * @return a new hollow shell for {@code id}, or the object already resident for it: the first
     *         shell of a class initializes the class, and its static initializer may have fetched
     *         this very object (a {@code static final Settings CURRENT = fetch("settings")})
     */
    private Persistent newShell(ClassDescriptor d, long id) {
        ClassInfo info = d.id >= 0 && d.id < shellInfos.length ? shellInfos[d.id] : null;
        if (info == null) {
            info = shellInfo(d, id);
            if (table.object(id) instanceof Persistent resident) {
                return resident;
            }
        }
        Persistent p = info.factory.newInstance();
        attach(p, id, ObjectState.HOLLOW);
        return p;
    }

    /** Resolves and checks the class of the shells of {@code d}, once per descriptor. */
    private ClassInfo shellInfo(ClassDescriptor d, long id) {
        Class<?> type = classes.resolve(d.className);
        String kindNow = type.isRecord() ? "a record" : type.isEnum() ? "an enum" : type.isInterface() ? "an interface"
                : Modifier.isAbstract(type.getModifiers()) ? "abstract" : null;
        if (kindNow != null) { // a class changed since, not a program run without the agent
            throw new IncompatibleClassChangeException(type.getName(), null, "stored object #" + id + " is an object of an"
                    + " ordinary class, and the class is now " + kindNow);
        }
        if (!Persistent.class.isAssignableFrom(type)) {
            java.lang.reflect.Field state = RecordEncoder.statefulJdkSuperclass(type);
            throw NotPersistableException.whenRead(type.getName(), "stored object #" + id, state == null ? NOT_REWRITTEN
                    : "the class now extends " + state.getDeclaringClass().getName() + ", a JDK class whose state (field "
                            + state.getName() + ") Perpetua cannot store, so the agent leaves it as it is (if the class"
                            + " did not change, " + NOT_REWRITTEN + ")");
        }
        ClassInfo info;
        try {
            info = checkStorable(type, "stored object #" + id);
        } catch (NotPersistableException e) { // said as a read, not as a commit
            throw NotPersistableException.whenRead(e.className(), e.path(), e.reason());
        }
        if (d.id >= 0 && d.id < 1 << 16) {
            if (d.id >= shellInfos.length) {
                shellInfos = Arrays.copyOf(shellInfos, Math.max(d.id + 1, shellInfos.length * 2));
            }
            shellInfos[d.id] = info;
        }
        return info;
    }

    private Object decodeContainer(long id, byte[] record) {
        checkReadDepth(id);
        if (!decoding.add(id)) {
            throw new PersistentStoreException(where(id) + ": a cycle runs through an immutable collection,"
                    + " which cannot be rebuilt with its identity");
        }
        decodeDepth++;
        int outerFilling = fillingDeferred;
        fillingDeferred = 0; // a read of its own, even if code a deferred fill runs started it
        int mark = readLog.size();
        boolean done = false;
        try {
            ByteIn in = new ByteIn(record);
            ClassDescriptor d = classes.byId(in.readVarInt(), location, id);
            if (!d.kind.isContainer()) {
                throw new ByteIn.MalformedRecord("the record is of " + d + ", not a container");
            }
            EarlyAttach early = new EarlyAttach(id, d, 0);
            Object c = new RecordDecoder(classes, resolve, strings).reset(in, location, id).container(d, early);
            if (!in.atEnd()) {
                throw new ByteIn.MalformedRecord((in.end() - in.position()) + " bytes left over after the contents");
            }
            ContainerHandle h = early.handle != null ? early.handle : attachRead(c, id, d, 0);
            h.snapshot = snapshot(h, record);
            untouch(c); // filling it touched it
            h.rememberContents(c);
            // Met while fillDeferred's loop fills a container, it leaves the containers it
            // deferred to that loop (which runs no code on what it fills before they are filled):
            // filled here, a chain of views over mutable lists would nest a read per level
            if (!deferred.isEmpty() && outerFilling == 0) {
                fillDeferred();
            }
            done = true;
            return c;
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(where(id), m.getMessage(), null);
        } finally {
            decoding.remove(id);
            if (!done) {
                undoRead(mark);
            }
            fillingDeferred = outerFilling;
            endDecode(done);
        }
    }

    /** A container made empty from the start of its record (RecordDecoder#shell), to be filled from the rest. */
    private record Deferred(long id, byte[] record, ClassDescriptor descriptor, RecordDecoder decoder, Object container,
                            ContainerHandle handle) {
    }

    /**
     * Makes the container of a record empty, attached, to be filled by {@link #fillDeferred}; or,
     * if it is of a kind built with its elements (an immutable list, say), reads it now.
     */
    private Object deferOrDecode(long id, byte[] record) {
        RecordDecoder decoder = new RecordDecoder(classes, resolve, strings);
        ByteIn in = new ByteIn(record);
        ClassDescriptor d;
        Object shell;
        try {
            d = classes.byId(in.readVarInt(), location, id);
            shell = d.kind.isContainer() ? decoder.reset(in, location, id).shell(d) : null;
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(where(id), m.getMessage(), null);
        }
        if (shell == null) {
            return decodeContainer(id, record);
        }
        deferred.add(new Deferred(id, record, d, decoder, shell, attachRead(shell, id, d, 0)));
        return shell;
    }

    /**
     * Fills, in a loop, the containers that reads deeper than {@link #DEFER_DEPTH} left empty;
     * the containers they meet are left empty in turn and filled by this loop, and the hashed
     * and sorted ones get their contents last, innermost first, once everything they hold is
     * filled. Every read calls it before it returns, so that it returns everything it read
     * filled; so does code about to run what a container holds (Resolve#settle). What a failed
     * read leaves is dropped when the outermost read ends (endDecode).
     */
    private void fillDeferred() {
        // the adds of an outer call wait for it: they may hash by what the add running now fills.
        // With none deferred there is nothing to do: adds are pushed only while one is filled.
        int outerAdds = deferredAdds.size();
        while (true) {
            Deferred next = deferred.poll();
            if (next != null) {
                fillOne(next);
            } else if (deferredAdds.size() > outerAdds) {
                Unfilled add = deferredAdds.pop();
                addOrWait(add.container(), add.contents());
            } else {
                return;
            }
        }
    }

    private void fillOne(Deferred next) {
        checkReadDepth(next.id());
        decodeDepth++; // as a read of its own: the containers it meets wait in turn
        fillingDeferred++;
        try {
            next.decoder().fillShell(next.container(), next.descriptor());
            if (!next.decoder().in().atEnd()) {
                throw new ByteIn.MalformedRecord("bytes left over after the contents");
            }
        } catch (ByteIn.MalformedRecord m) {
            throw new CorruptStoreException(where(next.id()), m.getMessage(), null);
        } finally {
            fillingDeferred--;
            decodeDepth--;
        }
        ContainerHandle h = next.handle();
        h.snapshot = snapshot(h, next.record());
        untouch(next.container());
        h.rememberContents(next.container());
    }

    /**
     * Attaches a container being read, with the descriptor it is stored with, noting it in
     * {@link #readLog}; {@code ownerId} as {@link #attachContainer}'s.
     */
    private ContainerHandle attachRead(Object c, long id, ClassDescriptor d, long ownerId) {
        ContainerHandle h = attachContainer(c, id, d, false, ownerId);
        if (ContainerOwners.active() && ContainerOwners.changeable(c, d.kind)) {
            ContainerOwners.entered(c, this); // read from this store: no other holds it (made now)
        }
        readLog.add(h);
        return h;
    }

    /**
     * Attaches a container being read as soon as it is made, before its elements are read, so
     * that a cycle through it resolves to it. This and the other callbacks of
     * {@link RecordDecoder#container} are classes, not lambdas: the first run of each lambda
     * makes the JVM generate a class, and that came to milliseconds of a program's first read.
     */
    private final class EarlyAttach implements Consumer<Object> {
        private final long id;
        private final ClassDescriptor descriptor;
        private final long ownerId;
        /** The container's handle once made, else null. */
        ContainerHandle handle;

        EarlyAttach(long id, ClassDescriptor descriptor, long ownerId) {
            this.id = id;
            this.descriptor = descriptor;
            this.ownerId = ownerId;
        }

        @Override
        public void accept(Object container) {
            handle = attachRead(container, id, descriptor, ownerId);
        }
    }

    /** For a copy that is never attached (an abort's restore). */
    private static final Consumer<Object> NOT_REGISTERED = new Consumer<>() {
        @Override
        public void accept(Object container) {
        }
    };

    /** Turns references met while decoding into objects. Runs under the kernel's lock. */
    private final class Resolver implements RecordDecoder.Resolve {
        /** Notes the container a read only steps over (see {@link #embedded}). */
        private final Consumer<Object> discard = new Consumer<>() {
            @Override
            public void accept(Object container) {
                discarding = container;
            }
        };

        @Override
        public Object object(ClassDescriptor descriptor, long id) {
            Handle h = table.get(id);
            if (h instanceof ContainerHandle) {
                // the handle's class, not the object's: no load of an object the read does not touch
                throw new ByteIn.MalformedRecord("a reference to an object names #" + id + ", which is a container");
            }
            Object o = h == null ? null : h.get();
            return o != null ? o : newShell(descriptor, id);
        }

        @Override
        public Object container(long id) {
            Handle h = table.get(id);
            if (h != null && !(h instanceof ContainerHandle)) {
                throw new ByteIn.MalformedRecord("a reference to a container names #" + id + ", which is an object");
            }
            Object o = h == null ? null : h.get();
            if (o != null) {
                return o;
            }
            return decodeDepth >= DEFER_DEPTH ? deferOrDecode(id, read(id)) : decodeContainer(id, read(id));
        }

        @Override
        public void settle() {
            fillDeferred();
        }

        @Override
        public Object embedded(long id, RecordDecoder decoder) {
            ByteIn in = decoder.in();
            int start = in.position();
            ClassDescriptor d = classes.byId(in.readVarInt(), location, id);
            if (!d.kind.isContainer()) {
                throw new ByteIn.MalformedRecord("an embedded container is of " + d + ", not a container");
            }
            if (filling == null) {
                throw new ByteIn.MalformedRecord("a container embedded outside the record of an object");
            }
            ContainerHandle rh = table.embedded(filling, id);
            Object resident = rh == null ? null : rh.get();
            if (resident != null) {
                Object outer = discarding;
                decoder.container(d, discard); // read past the bytes: the resident container wins
                discarding = outer;
                if (rh.embedded && rh.ownerId == filling.id()) {
                    filling.embed(rh); // its owner was collected and is read again, say
                }
                return resident;
            }
            EarlyAttach early = new EarlyAttach(id, d, filling.id());
            Object c = decoder.container(d, early);
            ContainerHandle h = early.handle != null ? early.handle : attachRead(c, id, d, filling.id());
            h.snapshot = d.kind == Kind.ARRAY ? ContainerHandle.ARRAY_SNAPSHOT : Arrays.copyOfRange(in.buffer(), start, in.position());
            filling.embed(h);
            untouch(c);
            h.rememberContents(c);
            return c;
        }

        /**
         * Fills a hashed or sorted container at once, as it is read, so that no other thread
         * can reach it partly filled. Only if an element's code reaches an object whose own read
         * is in progress (a cycle: {@code a} in {@code b}'s hash set and {@code b} in
         * {@code a}'s, each hashed by its fields) does it wait for the outermost read to end
         * (endDecode); until then, the objects already read that hold it show it empty.
         */
        @Override
        public void fill(Object container, Object[] contents) {
            if (container == discarding) {
                return;
            }
            if (fillingDeferred > 0) {
                deferredAdds.push(new Unfilled(container, contents)); // after what its elements hold is filled
                return;
            }
            fillDeferred(); // an element may hash by what a container read before it holds
            addOrWait(container, contents);
        }
    }

    /**
     * Adds a hashed or sorted container's contents, unless an element's code reaches an object
     * whose own read is in progress: then the container waits, empty, for the outermost read
     * to end (endDecode).
     */
    private void addOrWait(Object container, Object[] contents) {
        try {
            addAll(container, contents);
        } catch (ReadInProgress e) {
            if (e.leftAReadUnfinished) {
                throw e; // a read it crossed may have left a container half filled: not retried
            }
            inFlight = null;
            if (container instanceof Map<?, ?> m) {
                m.clear();
            } else {
                ((Collection<?>) container).clear();
            }
            unfilled.add(new Unfilled(container, contents));
        }
    }

    // ---- commit ----

    /**
     * A container a commit encoded, with its handle; what the handle is to remember of it
     * ({@link ContainerHandle#contentsNow}), worked out as it was encoded, while it and its
     * elements were in the cache; and whether it was embedded in its owner's record, with its
     * bytes there (null for an array, which is remembered by its elements).
     */
    private record Encoded(Object container, ContainerHandle handle, Object contents, boolean embedded, byte[] bytes) {
    }

    /**
     * One commit: walks from what is new or changed to everything it newly reaches, encoding
     * each into one write set. {@link #rollback()} undoes what the walk did to memory.
     */
    private final class Commit implements RecordEncoder.Reach {
        private final WriteSet writes = new WriteSet();
        private final RecordEncoder encoder = new RecordEncoder(classes, this);
        private final ArrayDeque<Object> work = new ArrayDeque<>();
        private final ArrayDeque<PathNode> workPaths = new ArrayDeque<>();
        /** Handles made by this commit's walk, undone if it fails. */
        private final List<Handle> assigned = new ArrayList<>();
        /** The objects this commit encodes, marked {@link ObjectState#WRITING_NEW} or {@link ObjectState#WRITING_DIRTY} as it does. */
        private final List<Persistent> written = new ArrayList<>();
        /**
         * Objects the program wrote while this commit ran, on its thread (its own code the
         * encoder ran: a record's accessor, a {@code writeObject}), whether this commit writes
         * them or not: still changed after it, and pending for the next.
         */
        private final List<Persistent> writtenAgain = new ArrayList<>();
        /** The tracked containers whose note this commit forgot before reading them: noted again if it fails. */
        private final List<Tracked> untouched = new ArrayList<>();
        private final List<ContainerHandle> containers = new ArrayList<>();
        private final List<byte[]> snapshots = new ArrayList<>();
        /** Every container this commit encoded: its handle is told what it holds once the commit succeeds. */
        private final List<Encoded> encoded = new ArrayList<>();
        /** Containers promoted to records of their own, with what to restore if the commit fails. */
        private final List<ContainerHandle> promoted = new ArrayList<>();
        private final List<Object[]> promotedWas = new ArrayList<>();
        /** The object the path of the object a failed commit was writing starts from, if labelled by it. */
        Object failedFrom;
        /**
         * For the new containers made with what they hold that this commit reached from another
         * such container: how many of them, in a row, end with it (see {@link #MAX_BUILT_CHAIN}).
         */
        private final Map<Object, Integer> builtChains = new IdentityHashMap<>();
        /** Of the container being encoded, if it is made with what it holds: the chain it ends; else 0. */
        private int writingChain;
        /** The id of the object being encoded, 0 while a container is. */
        private long writing;
        /** The handle of the object being encoded while it may take satellites, else null. */
        private Handle writingHome;
        /** The satellites {@link #writingHome} took while it was encoded, in order: see {@link #withSatellites}. */
        private final Persistent[] taken = new Persistent[Satellites.MAX];
        private int takenCount;
        /**
         * The homes this commit writes, {@code [0, homes)}, and their records: the recent
         * records once it succeeds. Ids in a long[]: a list boxed one Long per home.
         */
        private long[] homeIds = new long[64];
        private int homes;
        private final List<byte[]> homeRecords = new ArrayList<>();
        /** The homes of the pending satellites: see {@link #unchangedSatellites}. */
        private final LongSet changedSatelliteHomes = new LongSet();
        /**
         * The ids of the homes that took satellites in this commit; and those homes, with their
         * counts before, restored if it fails. Ids, not an identity map of handles: the first
         * identity hash of an object is a call into the JVM.
         */
        private final LongSet homesTook = new LongSet();
        private final List<Handle> homesBefore = new ArrayList<>();
        private int[] satellitesBefore = new int[16];
        /** The containers embedded in the record being encoded, so far. */
        private final List<ContainerHandle> embedding = new ArrayList<>();
        /** The objects written with (or once with) embedded containers, and those their new records hold. */
        private final List<Handle> embedOwners = new ArrayList<>();
        private final List<ContainerHandle[]> embedLists = new ArrayList<>();

        WriteSet build() {
            Map<Object, String> labels = new IdentityHashMap<>();
            for (Map.Entry<String, Object> e : boundInTransaction.entrySet()) {
                labels.putIfAbsent(e.getValue(), "\"" + e.getKey() + "\"");
            }
            // Objects changed in place are encoded last: a new leaf becomes a satellite of the
            // first object that reaches it, and that should be the new object that made it (an
            // OO1 connection, say, of its new source part), not an old one it was added to.
            ArrayDeque<Object> changed = new ArrayDeque<>();
            pending.forEach((o, h) -> { // an IdentityHashMap's entry iterator makes an entry per step
                if (Satellites.isSatellite(h.id())) {
                    changedSatelliteHomes.add(Satellites.home(h.id()));
                }
                if (o instanceof Persistent p && p.$perpetua$state() == ObjectState.DIRTY) {
                    changed.add(o);
                } else {
                    enqueueRoot(o, labels);
                }
            });
            scanContainers();
            // A name is a referrer too: a container stored in its owner's record gets a record
            // of its own when a name is bound to it, as when a second object refers to it.
            for (Map.Entry<String, Object> e : boundInTransaction.entrySet()) {
                Object o = e.getValue();
                ContainerHandle h = o instanceof Persistent ? null : table.container(o);
                if (h != null && h.embedded) {
                    promote(h, o, PathNode.root("\"" + e.getKey() + "\""));
                }
            }
            while (!work.isEmpty() || !changed.isEmpty()) {
                if (work.isEmpty()) {
                    enqueueRoot(changed.poll(), labels);
                }
                PathNode path = workPaths.poll();
                try {
                    write(work.poll(), path);
                } catch (NotPersistableException e) {
                    failedFrom = path.rootObject();
                    throw e;
                }
            }
            for (Map.Entry<String, Object> e : boundInTransaction.entrySet()) {
                writes.bind(e.getKey(), idOf(e.getValue()));
            }
            for (String name : unboundInTransaction) {
                writes.unbind(name);
            }
            if (!writes.isEmpty()) {
                for (ClassDescriptor d : classes.unwritten()) {
                    writes.classDescriptor(d.id, d.encode());
                }
                int format = classes.formatEntryToWrite();
                if (format != 0) {
                    writes.classDescriptor(format, RecordFormat.encodeCurrent());
                }
            }
            return writes;
        }

        /**
         * Enqueues every resident container changed since it was last read or committed, in
         * place (enqueue does not change the table). Arrays cannot note their own changes, so
         * each is compared with what its handle remembers (ContainerHandle#sameContents). The
         * cost is cache misses: the handle, the array, and the handle of each persistent element,
         * which is how an element is remembered without keeping it alive. A read-only commit over
         * the 40,000 arrays of OO1 small's 20,000 parts: 1.1 to 2.4 ms (with a separate copy of
         * every array, holding the elements strongly: 1.0 to 2.0 ms). Taking the misses a block
         * at a time, so that they overlap, was tried and gained 10-20%, within the noise; taking
         * them on two threads halves the scan (ContainerScan). An array is compared without
         * asking whether it is Tracked: an instanceof of an interface on an array walks its
         * secondary supers. The live containers are listed on the way, for the next transaction
         * to pin without a pass of its own (ObjectTable#nextPins).
         */
        private void scanContainers() {
            ContainerScan scan = new ContainerScan(table);
            scan.run();
            for (int i : scan.changed()) {
                ContainerHandle h = table.containerAt(i);
                Object c = h.get(); // held by the scan's list of live containers
                enqueue(c, PathNode.root(c, h.id()));
            }
            table.nextPins(scan.live(), scan.liveCount());
            for (Object c : loggedArrays) {
                ContainerHandle h = table.container(c);
                if (h != null && h.slot < 0 && h.snapshot != null && !h.sameContents(c)) {
                    enqueue(c, PathNode.root(c, h.id()));
                }
            }
        }

        /**
         * @return true for a kind of container a read makes with what it holds, by recursion, not
         *         empty to be filled in a loop (RecordDecoder#shell)
         */
        private static boolean builtWithContents(Kind kind) {
            return switch (kind) {
                case ARRAY, COLLECTION, MAP, ATOMIC_REFERENCE, ENTRY, HOLDER, SERIALIZED, ENUM_SET -> false;
                default -> true;
            };
        }

        /** Enqueues an object the walk starts from, labelled by its name if it has one. */
        private void enqueueRoot(Object o, Map<Object, String> labels) {
            String label = labels.get(o);
            enqueue(o, label != null ? PathNode.root(label) : PathNode.root(o, pending.get(o).id()));
        }

        private long idOf(Object o) {
            return o instanceof Persistent p ? p.$perpetua$handle().id() : table.container(o).id();
        }

        private void enqueue(Object o, PathNode path) {
            work.add(o);
            workPaths.add(path);
        }

        private void write(Object o, PathNode path) {
            if (o instanceof Persistent p) {
                Handle ph = (Handle) p.$perpetua$handle();
                long id = ph.id();
                if (Satellites.isSatellite(id)) {
                    rewriteOwner(Satellites.home(id)); // its home's record holds it: that is written, with it
                    return;
                }
                ClassInfo info = checkStorable(p.getClass(), path);
                if (p instanceof java.util.PriorityQueue<?> || p instanceof java.util.SortedSet<?>
                        || p instanceof java.util.SortedMap<?, ?>) {
                    checkNoComparator(p, path);
                }
                boolean isNew = markWriting(p);
                // one stored by its serialization replacement has its replacement's record: no
                // satellites, no embedded containers
                byte[] record = info.writeReplace != null ? encoder.replacedObject(p, info, path, id)
                        : objectRecord(p, ph, info, path, id, isNew);
                if (isNew) {
                    writes.put(id, record);
                } else {
                    writes.replace(id, record); // read or committed before: it has a record
                }
                return;
            }
            ContainerHandle h = table.container(o);
            if (h.embedded && h.snapshot == ContainerHandle.ARRAY_SNAPSHOT) {
                // the scan found this array changed; its owner's record, which holds it, encodes it
                rewriteOwner(h.ownerId);
                return;
            }
            untouchBeforeReading(o);
            writingChain = builtWithContents(h.descriptor.kind) ? builtChains.getOrDefault(o, 1) : 0;
            byte[] record;
            try {
                record = encoder.container(o, h.descriptor.kind, path, h.recordId());
            } finally {
                writingChain = 0;
            }
            encoded.add(new Encoded(o, h, h.contentsNow(o), false, null));
            if (h.embedded) {
                if (!Arrays.equals(record, h.snapshot)) {
                    rewriteOwner(h.ownerId); // its record holds the container
                }
                return;
            }
            if (h.snapshot == null) {
                writes.put(h.id(), record);
                containers.add(h);
                snapshots.add(record);
            } else if (!Arrays.equals(record, h.snapshot)) {
                writes.replace(h.id(), record);
                containers.add(h);
                snapshots.add(record);
            }
        }

        /**
         * Refuses a class of the program that extends {@code PriorityQueue}, {@code TreeSet} or
         * {@code TreeMap} whose object has a comparator: one read back is made by the no-argument
         * constructor, and would sort by natural order. The agent refuses the constructors that
         * pass one; this catches the one it cannot see, {@code PriorityQueue(Collection)}, which
         * takes the comparator of a queue or sorted set it is given.
         */
        private void checkNoComparator(Persistent p, PathNode path) {
            Class<?> jdk = PersistentClasses.inheritedContainer(p.getClass());
            if (jdk == null) {
                return; // a class of the program implementing the interface itself: its comparator is a field
            }
            Object comparator = p instanceof java.util.PriorityQueue<?> q ? q.comparator()
                    : p instanceof java.util.SortedSet<?> s ? s.comparator() : ((java.util.SortedMap<?, ?>) p).comparator();
            if (comparator != null) {
                throw new NotPersistableException(p.getClass().getName(), path.render(), "it has a comparator ("
                        + comparator.getClass().getName() + "), which an object read back from the store would not have"
                        + " (the object is made empty by the no-argument constructor of " + jdk.getSimpleName()
                        + "); keep a sorted collection in a field instead");
            }
        }

        /**
         * Marks an object about to be encoded as being written, before its fields are read, and
         * lists it in {@link #written}. A write from another thread then takes the slow path,
         * which waits for this commit and marks the object dirty again, so that the next commit
         * saves it; before, this commit marked it clean once written, and a write that landed
         * after its field was read was never saved. The fence orders the mark before the reads
         * of the fields; a write whose check ran just before the mark can still land after them.
         *
         * @return true if the object has no record yet (new)
         */
        private boolean markWriting(Persistent p) {
            byte state = p.$perpetua$state();
            if (state == ObjectState.NEW) {
                p.$perpetua$state(ObjectState.WRITING_NEW);
            } else if (state == ObjectState.DIRTY) {
                p.$perpetua$state(ObjectState.WRITING_DIRTY);
            } else {
                return state == ObjectState.WRITING_NEW; // encoded again (rewriteOwner), or clean
            }
            VarHandle.fullFence();
            written.add(p);
            return state == ObjectState.NEW;
        }

        /**
         * Forgets a tracked container's note of a change before the commit reads it, as
         * {@link #markWriting} marks an object: a change another thread makes after this is
         * noted again, and saved by the next commit (forgotten after the write, as before, it
         * was lost). Undone if the commit fails.
         */
        private void untouchBeforeReading(Object container) {
            if (!container.getClass().isArray() && container instanceof Tracked t && t.$perpetua$touched()) {
                t.$perpetua$untouch();
                VarHandle.fullFence();
                untouched.add(t);
            }
        }

        /** The program wrote an object while this commit ran, on the commit's thread (its own code the encoder ran). */
        void writtenAgain(Persistent p) {
            writtenAgain.add(p);
        }

        /** The record of an object with its fields, the containers embedded in it and its satellites. */
        private byte[] objectRecord(Persistent p, Handle ph, ClassInfo info, PathNode path, long id, boolean isNew) {
            writing = id;
            writingHome = ph;
            takenCount = 0;
            byte[] record = encoder.object(p, info, path, ph.lazy(), id); // copies the arrays never decoded
            writingHome = null;
            if (ph.embeds() != null || !embedding.isEmpty()) {
                embedOwners.add(ph);
                embedLists.add(embedding.toArray(new ContainerHandle[0]));
                embedding.clear();
            }
            if (ph.satellites > 0) {
                record = withSatellites(ph, record, isNew);
            }
            writing = 0;
            return record;
        }

        @Override
        public Object wrapped(Object wrapper) {
            return Kernel.this.wrapped(wrapper);
        }

        @Override
        public boolean isPersistentContainer(Object container) {
            return table.container(container) != null;
        }

        @Override
        public long object(Persistent object, PathNode parent, String field, int index) {
            // the common case first, without rendering the path that only an error needs
            if (object.$perpetua$handle() instanceof Handle h && h.kernel == Kernel.this && h.refersTo(object)) {
                return h.id();
            }
            if (object.$perpetua$handle() != null) {
                // another store's (throws), or a copy made by Object.clone() (made transient)
                handleOf(object, parent.render() + PathNode.step(field, index));
            }
            if (Constants.of(object) != null) {
                return CONSTANT; // stored by reference, never given an id
            }
            // the step's path only for an error or for an object enqueued: not for each new satellite
            ClassInfo info = storableIfKnown(object.getClass());
            if (info == null) {
                info = checkStorable(object.getClass(), parent.child(field, index)); // says why
            }
            Handle home = writingHome;
            if ((field == null || index == PathNode.KEYED) && home != null && info.leaf && info.writeReplace == null && home.satellites < Satellites.MAX) {
                // an element of a container embedded in the home's record: stored in that record
                if (homesTook.add(home.id())) {
                    if (homesBefore.size() == satellitesBefore.length) {
                        satellitesBefore = Arrays.copyOf(satellitesBefore, satellitesBefore.length * 2);
                    }
                    satellitesBefore[homesBefore.size()] = home.satellites;
                    homesBefore.add(home);
                }
                Handle h = attachNew(object, Satellites.id(home.id(), ++home.satellites),
                        () -> parent.child(field, index).render());
                assigned.add(h);
                taken[takenCount++] = object; // below MAX, as home.satellites was
                return h.id();
            }
            Handle h = attachNew(object, newId(), () -> parent.child(field, index).render());
            assigned.add(h);
            enqueue(object, parent.child(field, index));
            return h.id();
        }

        /**
         * A home's record: its body, then each of its satellites (the new and changed ones
         * encoded now, the others as its stored record has them), then the trailer. A home the
         * cache of recent records has dropped, whose satellites are all filled, has every one
         * encoded instead, and its record is not read back: a backend read on the commit's
         * path, from disk once the store outgrows the backend's cache. A new home ({@code isNew})
         * has no stored record, and the satellites it took while it was encoded ({@link #taken})
         * are all it has unless it was encoded twice.
         */
        private byte[] withSatellites(Handle home, byte[] body, boolean isNew) {
            byte[] stored = isNew ? null : recentHomes.get(home.id());
            // a new home took all its satellites while it was encoded: no lookup of them
            Persistent[] filled = isNew && takenCount == home.satellites ? Arrays.copyOf(taken, takenCount)
                    : stored == null ? filledSatellites(home) : null;
            byte[] record = null;
            if (filled == null && unchangedSatellites(home)) {
                if (stored == null) {
                    stored = read(home.id());
                }
                record = withStoredSatellites(home, body, stored);
            }
            if (record == null) {
                record = withSatellitesEncoded(home, body, stored, filled);
            }
            if (homes == homeIds.length) {
                homeIds = Arrays.copyOf(homeIds, homes * 2);
            }
            homeIds[homes++] = home.id();
            homeRecords.add(record);
            return record;
        }

        /**
         * @return true if none of a home's satellites is new or changed. A satellite is new only
         *         when this commit makes it one ({@link #homesTook}), and a changed one is
         *         pending, as every dirty object is: no satellite need be looked up.
         */
        private boolean unchangedSatellites(Handle home) {
            return !homesTook.contains(home.id()) && !changedSatelliteHomes.contains(home.id());
        }

        /**
         * @return a home's record with the satellite section of its stored record copied whole
         *         (an OO1 part that gains an incoming connection keeps its outgoing ones as they
         *         were), or null if the stored record does not hold as many as the home has
         */
        private byte[] withStoredSatellites(Handle home, byte[] body, byte[] stored) {
            int from;
            try {
                from = Satellites.bodyEnd(stored);
                if (Satellites.count(stored, from) != home.satellites) {
                    return null;
                }
            } catch (ByteIn.MalformedRecord m) {
                throw new CorruptStoreException(where(home.id()), m.getMessage(), null);
            }
            int satellites = stored.length - 4 - from;
            byte[] record = Arrays.copyOf(body, body.length + satellites + 4);
            System.arraycopy(stored, from, record, body.length, satellites);
            ByteOut.putFixedInt(record, record.length - 4, body.length); // the trailer
            return record;
        }

        /**
         * A home's record with its satellites encoded where {@code filled} holds them (all of
         * them) or where they are new or changed, the others copied from {@code stored}, its
         * committed record (read back if null and needed).
         */
        private byte[] withSatellitesEncoded(Handle home, byte[] body, byte[] stored, Persistent[] filled) {
            ByteOut out = new ByteOut(body.length + 32 * home.satellites + 8);
            out.writeBytes(body);
            out.writeVarInt(home.satellites);
            Satellites.Entry[] storedEntries = null;
            for (int k = 1; k <= home.satellites; k++) {
                long sid = Satellites.id(home.id(), k);
                Object o = filled != null ? filled[k - 1] : table.object(sid);
                if (o instanceof Persistent s && (filled != null || s.$perpetua$state() > 0 || beingWritten(s))) {
                    markWriting(s);
                    PathNode path = PathNode.root(s, sid);
                    writing = sid;
                    Handle sh = (Handle) s.$perpetua$handle();
                    // a leaf had no array field when stored, but its class may have gained one since:
                    // the stored bytes of an array field it has not read yet are copied, as for a home
                    byte[] bytes = encoder.object(s, checkStorable(s.getClass(), path), path, sh.lazy(), sid);
                    if (sh.embeds() != null || !embedding.isEmpty()) {
                        // the holders it keeps in its record (a StringBuilder, a Date) are its own, not
                        // the home's: a fill after a collection or an abort finds them resident by them
                        embedOwners.add(sh);
                        embedLists.add(embedding.toArray(new ContainerHandle[0]));
                        embedding.clear();
                    }
                    Satellites.writeSatellite(out, k, bytes, 0, bytes.length);
                } else {
                    if (stored == null) {
                        stored = read(home.id());
                    }
                    if (storedEntries == null) {
                        try {
                            storedEntries = Satellites.entries(stored, Satellites.bodyEnd(stored));
                        } catch (ByteIn.MalformedRecord m) {
                            throw new CorruptStoreException(where(home.id()), m.getMessage(), null);
                        }
                    }
                    Satellites.Entry entry = null;
                    for (Satellites.Entry e : storedEntries) {
                        if (e.k() == k) {
                            entry = e;
                        }
                    }
                    if (entry == null) {
                        throw new CorruptStoreException(where(sid), "its home's record #" + home.id() + " does not hold it", null);
                    }
                    Satellites.writeSatellite(out, k, stored, entry.from(), entry.to()); // copied as stored
                }
            }
            writing = home.id();
            out.writeFixedInt(body.length);
            return out.toByteArray();
        }

        /**
         * @return a home's satellites (satellite k at index k - 1) if every one is resident and
         *         filled, with no field left undecoded (a class that gained an array field since
         *         the satellite was stored), else null
         */
        private Persistent[] filledSatellites(Handle home) {
            Persistent[] satellites = new Persistent[home.satellites];
            for (int k = 1; k <= satellites.length; k++) {
                if (table.object(Satellites.id(home.id(), k)) instanceof Persistent s
                        && s.$perpetua$state() != ObjectState.HOLLOW && s.$perpetua$state() != ObjectState.TRANSIENT
                        && s.$perpetua$handle() instanceof Handle h && h.lazy() == null) {
                    satellites[k - 1] = s;
                } else {
                    return null;
                }
            }
            return satellites;
        }

        @Override
        public long container(Object container, Kind kind, PathNode parent, String field, int index,
                              boolean direct) {
            boolean embed = direct && writing != 0;
            ContainerHandle h = table.container(container);
            if (h == null) {
                if (ClosedContainers.wasIn(container, location)) {
                    throw ofAnEarlierOpening(container, parent.child(field, index).render());
                }
                Kernel other = ContainerOwners.active() && ContainerOwners.changeable(container, kind)
                        ? ContainerOwners.claim(container, Kernel.this) : null;
                if (other != null) {
                    throw ofAnotherStore(container, other, parent.child(field, index).render());
                }
                h = attachContainer(container, newId(), kind, embed ? writing : 0);
                assigned.add(h);
                if (embed) {
                    untouchBeforeReading(container);
                    embedding.add(h);
                    return h.id() << 1 | 1;
                }
                if (builtWithContents(kind) && writingChain > 0) {
                    int chain = writingChain + 1;
                    if (chain > MAX_BUILT_CHAIN) {
                        throw new NotPersistableException(Containers.storedClass(container).getName(),
                                parent.child(field, index).render(), "immutable collections, views or entries nest"
                                + " more than " + MAX_BUILT_CHAIN + " deep, each holding the next (List.of holding"
                                + " List.of...): a read rebuilds them by recursion and could not read them back"
                                + " (-Dperpetua.read.maxDepth). Make some levels mutable collections (new"
                                + " ArrayList<>(...)), which are read in a loop however deep");
                    }
                    builtChains.put(container, chain);
                }
                enqueue(container, parent.child(field, index));
                return h.id() << 1;
            }
            if (h.embedded) {
                if (embed && h.ownerId == writing) {
                    untouchBeforeReading(container);
                    embedding.add(h);
                    return h.id() << 1 | 1;
                }
                promote(h, container, parent.child(field, index));
            }
            return h.id() << 1;
        }

        @Override
        public void embedded(Object container, byte[] bytes) {
            // the handle container() just added: nothing is embedded while a container's body is encoded
            ContainerHandle h = embedding.get(embedding.size() - 1);
            if (!h.refersTo(container)) {
                h = table.container(container);
            }
            encoded.add(new Encoded(container, h, h.contentsNow(container), true, bytes));
        }

        /** A second referrer: the container gets a record of its own, and its owner loses it. */
        private void promote(ContainerHandle h, Object container, PathNode path) {
            promoted.add(h);
            promotedWas.add(new Object[] {h.ownerId, h.snapshot});
            long owner = h.ownerId;
            table.indexById(h);
            h.ownerId = 0;
            h.snapshot = null; // never written as a record: write it
            enqueue(container, path);
            rewriteOwner(owner);
        }

        /** Makes the object whose record embeds a container be written again by this commit. */
        private void rewriteOwner(long ownerId) {
            Object o = Kernel.this.object(ownerId); // resident, or read back now
            if (o instanceof Persistent p) {
                Handle oh = (Handle) p.$perpetua$handle();
                if (oh.lazy() != null) {
                    // Read back after it was collected, the owner holds its array fields'
                    // markers, and its encoding would copy their stored bytes: decoded, each
                    // field takes the resident container, the one that changed.
                    decodeLazyFields(oh, p, -1);
                }
                if (p.$perpetua$state() == ObjectState.CLEAN) {
                    p.$perpetua$state(ObjectState.DIRTY);
                }
                pending.put(p, oh);
                if (Satellites.isSatellite(ownerId)) {
                    // changed now, after build() listed the homes of changed satellites: its
                    // home's record must encode it, not copy what its stored record holds
                    changedSatelliteHomes.add(Satellites.home(ownerId));
                }
                enqueue(p, PathNode.root(p, ownerId));
            }
        }

        /**
         * Forgets the containers an object's record held before this commit and holds no more:
         * the program replaced them (an OO1 part growing its array of incoming connections
         * replaces it). No record refers to one of them now (a second referrer would have given
         * it a record of its own), so a change to it changes nothing stored, and one stored again
         * later is new then.
         */
        private void dropReplaced(Handle owner, ContainerHandle[] now) {
            ContainerHandle[] before = owner.embeds();
            if (before != null) {
                for (ContainerHandle c : before) {
                    if (!holds(now, c) && c.embedded && c.ownerId == owner.id()) { // holds loads no handle
                        table.remove(c);
                    }
                }
            }
            owner.embeds(now.length == 0 ? null : now);
        }

        private static boolean holds(ContainerHandle[] handles, ContainerHandle h) {
            for (ContainerHandle e : handles) {
                if (e == h) {
                    return true;
                }
            }
            return false;
        }

        void rollback() {
            for (Tracked t : untouched) {
                t.$perpetua$touch();
            }
            for (Persistent p : written) {
                byte state = p.$perpetua$state();
                if (state == ObjectState.WRITING_NEW) {
                    p.$perpetua$state(ObjectState.NEW);
                } else if (state == ObjectState.WRITING_DIRTY) {
                    p.$perpetua$state(ObjectState.DIRTY);
                }
            }
            for (int i = 0; i < homesBefore.size(); i++) {
                homesBefore.get(i).satellites = satellitesBefore[i];
            }
            for (int i = 0; i < promoted.size(); i++) {
                ContainerHandle h = promoted.get(i);
                table.unindexById(h, (Long) promotedWas.get(i)[0]);
                h.snapshot = (byte[]) promotedWas.get(i)[1];
            }
            for (Handle h : assigned) {
                Object o = h.get();
                if (o != null) {
                    pending.remove(o);
                }
                if (o instanceof Persistent p) {
                    detach(p, h);
                } else {
                    table.remove(h);
                }
            }
        }

        void succeeded() {
            for (int i = 0; i < homes; i++) {
                recentHomes.put(homeIds[i], homeRecords.get(i));
            }
            for (Persistent p : written) {
                if (beingWritten(p)) {
                    p.$perpetua$state(ObjectState.CLEAN);
                }
            }
            for (int i = 0; i < containers.size(); i++) {
                containers.get(i).snapshot = snapshot(containers.get(i), snapshots.get(i));
            }
            for (Encoded e : encoded) {
                ContainerHandle h = e.handle();
                // one embedded, then promoted later in this commit, has its own record, whose
                // bytes (set above) are its snapshot: the ones its former owner's record held
                // refer as that record does
                if (e.embedded() && h.embedded) {
                    h.snapshot = snapshot(h, e.bytes());
                }
                h.remember(e.contents());
            }
            for (int i = 0; i < embedOwners.size(); i++) {
                dropReplaced(embedOwners.get(i), embedLists.get(i));
            }
            pending.clear();
            for (Persistent p : writtenAgain) {
                p.$perpetua$state(ObjectState.DIRTY); // it has a record now
                pending.put(p, (Handle) p.$perpetua$handle());
            }
            forgetLoggedArrays();
            boundInTransaction.clear();
            unboundInTransaction.clear();
            if (!writes.isEmpty()) {
                classes.markWritten();
            }
        }
    }
}
