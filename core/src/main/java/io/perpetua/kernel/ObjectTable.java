package io.perpetua.kernel;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Id → object, and container → id, for one store: one Java object per stored object, however
 * it is reached. Objects are held only weakly (through their {@link Handle}); the kernel holds
 * new and dirty ones strongly elsewhere until they are committed. Guarded by the kernel's lock.
 *
 * <p>A container embedded in its owner's record is found by identity only, not by id: no record
 * refers to it by id (a second referrer gives it a record of its own, {@link #indexById}), and a
 * read that meets it again does so inside its owner's record, so its owner's handle lists it
 * ({@link Handle#embeds()}), or, if the owner was collected while the container was kept,
 * {@link #orphans} does. An OO1 insert makes about 460 embedded arrays and drops about 260 (each
 * grown array of incoming connections replaces one); keeping them out of the id index took about
 * a tenth off the CPU time of its commit.
 */
final class ObjectTable {
    private static final int MAX_SINCE = 4096;

    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    /**
     * Handles by id, and container handles by identity hash: open addressing over handles,
     * with no boxed keys and no entry objects. A {@code HashMap<Long, Handle>} (a Long and a
     * node per handle, and its resizes) was about 40% of the Java samples of faulting in the
     * 20,000 parts of OO1 small.
     */
    private final Probing byId = new Probing(false);
    private final Probing containers = new Probing(true);
    /** How many handles of {@link #containers} are embedded ones, which {@link #byId} does not hold. */
    private int embeddedCount;
    /**
     * The live embedded containers of owners whose handles left the table (the owner was
     * collected, its container kept by the program), by owner id: the owner's next read takes
     * them back ({@link #embedded}). Empty unless that happens.
     */
    private final Map<Long, ContainerHandle[]> orphans = new HashMap<>();
    /**
     * The container handles that can change in place, again, densely, in no particular order (a
     * removal moves the last one into the hole; {@link ContainerHandle#slot} is each one's
     * index). A commit must look at each of them, since arrays cannot note their own changes;
     * walking this array instead of the identity map's buckets, without copying it into a list
     * first, cut the Java samples of OO1 small's insert runs (about 40,000 resident arrays) by
     * more than half. An empty array or an immutable collection never changes, so it is not
     * listed: each listed handle costs the commit a cache miss or more, and an OO1 insert leaves
     * 100 empty arrays resident (the new parts' incoming connections). While the array write log
     * is trusted ({@link #arraysTracked(boolean)}), an array is listed only once it escaped.
     */
    private ContainerHandle[] dense = new ContainerHandle[64];
    private int denseCount;
    /** See {@link #arraysTracked(boolean)}. */
    private boolean arraysTracked;
    /**
     * While a transaction is active: the containers of {@link #dense}, held strongly. The table
     * holds objects weakly so that what the program drops can be collected; but an array or a
     * collection changed in place does not say so (nothing marks it dirty, as a write marks an
     * object), and if the program dropped it, with everything it was reached through, the
     * collector would take the change with it before the commit could see it. So a transaction
     * holds every container it could change, from its start (what is resident then) or from
     * when it was read (what the transaction reads), until it ends. Null between transactions.
     */
    private Object[] pinned;
    private int pinnedCount;
    /**
     * What the next transaction will pin, as a commit's scan of {@link #dense} found it, held
     * only weakly, so that between transactions nothing is held: if no collection ran before
     * the next transaction begins, the array is still there, and beginning costs nothing per
     * container, instead of a pass over every handle (about 20 ns each: 0.9 to 1.3 ms with OO1
     * small resident). {@link #since} lists what was listed after the scan, up to
     * {@link #MAX_SINCE}; past that the list is dropped, and the next begin makes the pass.
     */
    private WeakReference<Object[]> nextPins;
    private int nextPinsCount;
    private ContainerHandle[] since = new ContainerHandle[16];
    private int sinceCount;

    ReferenceQueue<Object> queue() {
        return queue;
    }

    /** @return the live handle of an id, or null */
    Handle get(long id) {
        Handle h = byId.get(id);
        return h == null || h.refersTo(null) ? null : h;
    }

    /** @return the live object of an id, or null */
    Object object(long id) {
        Handle h = byId.get(id);
        return h == null ? null : h.get();
    }

    /**
     * Adds a handle; it replaces any handle of the same id (one whose object was collected). The
     * handle of a container embedded in its owner's record has {@link ContainerHandle#embedded}
     * set before it is put, and goes in the identity index only.
     */
    void put(Handle h) {
        if (h instanceof ContainerHandle c && c.embedded) {
            embeddedCount++;
        } else {
            Handle old = byId.putById(h);
            if (old instanceof ContainerHandle c) {
                removeContainer(c);
            } else if (old != null) {
                orphan(old);
            }
        }
        if (h instanceof ContainerHandle c) {
            containers.add(c);
            if (mustCompare(c)) {
                list(c);
            }
        }
    }

    private static void enterOwner(ContainerHandle c) {
        Object o = c.get();
        if (o != null && ContainerOwners.changeable(o, c.descriptor.kind)) {
            ContainerOwners.entered(o, c.kernel);
        }
    }

    /** Enters every resident container in {@link ContainerOwners}, when a second store opens. */
    void enterContainers() {
        for (int i = 0; i < containers.size(); i++) {
            if (containers.at(i) instanceof ContainerHandle c) {
                enterOwner(c);
            }
        }
    }

    /**
     * Marks every resident container that can change in place in {@link ClosedContainers}: the
     * store of {@code location} is closing, and a later opening is to refuse them.
     */
    void markClosed(String location) {
        List<Object> resident = new ArrayList<>();
        for (int i = 0; i < containers.size(); i++) {
            if (containers.at(i) instanceof ContainerHandle c) {
                Object o = c.get();
                if (o != null && ContainerOwners.changeable(o, c.descriptor.kind)) {
                    resident.add(o);
                }
            }
        }
        ClosedContainers.mark(resident, location);
    }

    /** A container handle stops being embedded (it gets a record of its own): it is found by id from now on. */
    void indexById(ContainerHandle c) {
        c.embedded = false;
        embeddedCount--;
        byId.putById(c);
    }

    /** Undoes {@link #indexById}: the container is embedded in {@code ownerId}'s record again. */
    void unindexById(ContainerHandle c, long ownerId) {
        byId.remove(c);
        c.embedded = true;
        c.ownerId = ownerId;
        embeddedCount++;
    }

    /**
     * @return the resident container with id {@code id} that the record of the object whose
     *         handle is {@code owner} embeds, or null. It may be embedded there no more: a commit
     *         under way has just given it a record of its own, and reads its owner to rewrite it.
     *         One found among the {@link #orphans} leaves them: the caller lists it in its owner's
     *         handle again, or it is found by id from now on.
     */
    ContainerHandle embedded(Handle owner, long id) {
        ContainerHandle[] listed = owner.embeds();
        if (listed != null) {
            for (ContainerHandle c : listed) {
                if (c.id() == id && !c.refersTo(null)) {
                    return c;
                }
            }
        }
        if (orphans.isEmpty()) {
            return null;
        }
        ContainerHandle[] kept = orphans.get(owner.id());
        if (kept != null) {
            for (ContainerHandle c : kept) {
                if (c.id() == id && !c.refersTo(null)) {
                    forgetOrphan(owner.id(), c);
                    return c;
                }
            }
        }
        return null;
    }

    /**
     * Keeps the live embedded containers of an owner whose handle leaves the table, for its next
     * read. Loops, not streams: this runs for every collected object that had containers, and
     * those are nearly always collected with it.
     */
    private void orphan(Handle owner) {
        ContainerHandle[] listed = owner.embeds();
        if (listed == null) {
            return;
        }
        for (ContainerHandle c : listed) {
            if (c.refersTo(null)) {
                continue;
            }
            ContainerHandle[] kept = orphans.get(owner.id());
            if (kept == null) {
                orphans.put(owner.id(), new ContainerHandle[] {c});
            } else if (indexOf(kept, c) < 0) {
                kept = Arrays.copyOf(kept, kept.length + 1);
                kept[kept.length - 1] = c;
                orphans.put(owner.id(), kept);
            }
        }
    }

    /** Forgets a container kept for owner {@code ownerId}. */
    private void forgetOrphan(long ownerId, ContainerHandle c) {
        ContainerHandle[] kept = orphans.get(ownerId);
        int at = kept == null ? -1 : indexOf(kept, c);
        if (at < 0) {
            return;
        }
        if (kept.length == 1) {
            orphans.remove(ownerId);
            return;
        }
        ContainerHandle[] rest = new ContainerHandle[kept.length - 1];
        System.arraycopy(kept, 0, rest, 0, at);
        System.arraycopy(kept, at + 1, rest, at, rest.length - at);
        orphans.put(ownerId, rest);
    }

    private static int indexOf(ContainerHandle[] handles, ContainerHandle h) {
        for (int i = 0; i < handles.length; i++) {
            if (handles[i] == h) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether arrays are left out of {@link #dense}: rewritten code logs its writes to them
     * ({@link io.perpetua.runtime.ArrayWrites}), so a commit compares only those logged, and
     * those that escaped to JDK code.
     */
    void arraysTracked(boolean tracked) {
        arraysTracked = tracked;
        if (!tracked) {
            for (int i = 0; i < containers.size(); i++) {
                if (containers.at(i) instanceof ContainerHandle c && c.slot < 0 && c.canChangeInPlace() && !c.refersTo(null)) {
                    list(c);
                }
            }
        }
    }

    /** @return whether every commit must compare this container (see {@link #dense}) */
    private boolean mustCompare(ContainerHandle c) {
        return c.canChangeInPlace() && (!arraysTracked || c.escaped || c.descriptor.kind != ClassDescriptor.Kind.ARRAY);
    }

    /** Marks an array as escaped: code that does not log its writes may change it, so every commit compares it. */
    void escaped(ContainerHandle c) {
        c.escaped = true;
        if (c.slot < 0 && mustCompare(c)) {
            list(c);
        }
    }

    /**
     * Calls {@code action} with each array handle whose array is still resident. The action may
     * list handles ({@link #escaped}), which does not change the identity map walked here.
     */
    void forEachArray(java.util.function.Consumer<ContainerHandle> action) {
        for (int i = 0; i < containers.size(); i++) {
            if (containers.at(i) instanceof ContainerHandle c && c.descriptor.kind == ClassDescriptor.Kind.ARRAY && !c.refersTo(null)) {
                action.accept(c);
            }
        }
    }

    /** Adds a container to {@link #dense}, and pins it if a transaction is active. */
    private void list(ContainerHandle c) {
        if (denseCount == dense.length) {
            dense = Arrays.copyOf(dense, denseCount * 2);
        }
        c.slot = denseCount;
        dense[denseCount++] = c;
        if (pinned != null && pinnable(c)) {
            pin(c.get());
        }
        if (nextPins != null) {
            if (sinceCount == MAX_SINCE) {
                forgetNextPins(); // a long stretch of reading between transactions
            } else {
                if (sinceCount == since.length) {
                    since = Arrays.copyOf(since, sinceCount * 2);
                }
                since[sinceCount++] = c;
            }
        }
    }

    /**
     * Holds every resident container that can change in place, and each one listed from now
     * on, until {@link #unpinContainers}.
     */
    void pinContainers() {
        Object[] scanned = nextPins == null ? null : nextPins.get();
        if (scanned != null) {
            pinned = scanned;
            pinnedCount = nextPinsCount;
            for (int i = 0; i < sinceCount; i++) {
                Object c = since[i].get();
                if (c != null && pinnable(since[i])) {
                    pin(c);
                }
            }
        } else {
            pinned = new Object[denseCount + 16];
            pinnedCount = 0;
            for (int i = 0; i < denseCount; i++) {
                Object c = dense[i].get();
                if (c != null && pinnable(dense[i])) {
                    pinned[pinnedCount++] = c;
                }
            }
        }
        forgetNextPins();
    }

    /**
     * @return false for a tracked container, which the kernel holds itself from its first
     *         change to its commit ({@code Kernel#touchedTracked}): only read, it need not be held
     */
    static boolean pinnable(ContainerHandle c) {
        return c.descriptor.kind == ClassDescriptor.Kind.ARRAY || !(c.get() instanceof Tracked);
    }

    /**
     * Keeps, weakly, what the next transaction will pin: {@code containers[0, count)}, every
     * live container of {@link #containerAt} as a commit's scan found them.
     */
    void nextPins(Object[] containers, int count) {
        forgetNextPins();
        nextPins = new WeakReference<>(containers);
        nextPinsCount = count;
    }

    /** Forgets what a scan found: the next transaction pins by a pass over every handle. */
    void forgetNextPins() {
        nextPins = null;
        nextPinsCount = 0;
        Arrays.fill(since, 0, sinceCount, null);
        sinceCount = 0;
    }

    private void pin(Object container) {
        if (pinnedCount == pinned.length) {
            pinned = Arrays.copyOf(pinned, pinnedCount * 2);
        }
        pinned[pinnedCount++] = container;
    }

    /** Lets the containers go: the table holds them weakly again. */
    void unpinContainers() {
        pinned = null;
        pinnedCount = 0;
    }

    /** @return the handle of a persistent container, or null if it is not persistent here */
    ContainerHandle container(Object container) {
        return (ContainerHandle) containers.byIdentity(container);
    }

    void remove(Handle h) {
        if (h instanceof ContainerHandle c) {
            boolean held = removeContainer(c); // false if removed before: dropped by a commit, then collected
            if (!c.embedded) {
                byId.remove(c);
            } else if (held) {
                embeddedCount--;
                if (!orphans.isEmpty()) {
                    forgetOrphan(c.ownerId, c);
                }
            }
        } else if (byId.remove(h)) { // not if a handle of the same id replaced it (put), which orphaned it then
            orphan(h);
        }
    }

    /** @return whether the table held the handle (it does nothing if it was removed before) */
    private boolean removeContainer(ContainerHandle h) {
        if (ContainerOwners.active()) {
            ContainerOwners.left(h.get(), h.kernel);
        }
        if (h.slot >= 0) {
            ContainerHandle last = dense[--denseCount];
            dense[h.slot] = last;
            last.slot = h.slot;
            dense[denseCount] = null;
            h.slot = -1;
        }
        return containers.remove(h);
    }

    /** Forgets the handles of collected objects. */
    void expunge() {
        for (Reference<?> r; (r = queue.poll()) != null; ) {
            remove((Handle) r);
        }
    }

    /** @return the live container handles that can change in place, a snapshot */
    List<ContainerHandle> liveContainers() {
        List<ContainerHandle> out = new ArrayList<>(denseCount);
        for (int i = 0; i < denseCount; i++) {
            if (!dense[i].refersTo(null)) {
                out.add(dense[i]);
            }
        }
        return out;
    }

    /**
     * @return how many container handles that can change in place {@link #containerAt} serves
     *         (live or not yet expunged); valid until the next {@link #put} or {@link #remove}
     */
    int containerCount() {
        return denseCount;
    }

    /** @return the container handle at an index below {@link #containerCount()}; its object may be gone */
    ContainerHandle containerAt(int index) {
        return dense[index];
    }

    /** Spreads a key (an id, an identity hash) over a power-of-two table's slots. */
    static int mix(long key) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> 32);
    }

    /**
     * Spreads an id over the slots eight at a time: eight ids in a row (alike but for their
     * low three bits) have slots in a row, from a place {@link #mix} draws for the eight. Ids
     * are handed out in increasing order, so a commit's new objects, and the satellites of new
     * homes, share a few lines of the slots instead of taking a cache miss each: putting an
     * OO1 insert's 400 new objects was 6.4% of the samples of a kept commit, then 0.9% (perf).
     * The price is longer runs (linear probing of blocks of eight: at half full, about 5
     * slots a hit and 9 a miss instead of 1.5 and 2.5, simulated), which stay within a line or
     * two.
     */
    static int spread(long id) {
        return mix(id >>> 3) + ((int) id & 7);
    }

    /**
     * @return the ids of the records that hold what is resident, a snapshot: each live handle's
     *         own, or, for an embedded container, its owner's
     */
    long[] liveIds() {
        long[] ids = new long[byId.size() + containers.size()];
        int n = 0;
        for (int i = 0; i < byId.size(); i++) {
            Handle h = byId.at(i);
            if (!h.refersTo(null)) {
                ids[n++] = h.id();
            }
        }
        for (int i = 0; i < containers.size(); i++) {
            if (containers.at(i) instanceof ContainerHandle c && c.embedded && !c.refersTo(null)) {
                ids[n++] = c.ownerId;
            }
        }
        return Arrays.copyOf(ids, n);
    }

    /** @return how many handles the table holds (live or not yet expunged) */
    int size() {
        return byId.size() + embeddedCount;
    }

    /**
     * Handles keyed by id or by identity hash: an open-addressing table with linear probing whose
     * slots hold no references. A slot is one {@code long}: in its high half a 32-bit hash of
     * the key (its fragment: {@link #spread} of an id, {@link #mix} of an identity hash; its low
     * bits are also the slot's home), in its low half the index of the handle in a dense array
     * plus one (0: empty). Probing and growing never
     * load a handle they do not return (growing through the handles' ids was 30% of the Java
     * samples of a fault-in loop): a probe loads a handle only where the fragment matches, to
     * tell the key apart from another of the same fragment (every key of an identity hash, one
     * id in four billion), and the caller uses the handle it finds anyway. Removal shifts the
     * rest of a run back, so there are no tombstones; the slots are at most half full.
     * <p>
     * A slot was a key and an index in two {@code long}s, and each handle's key was kept again
     * in a dense {@code long[]}: 44 to 88 bytes per handle. With OO1 small resident (80,000
     * handles by id, 40,000 by identity) the table's arrays were 8.7 MB, more than the handles
     * themselves (8.6 MB) and twice the program's objects (4.4 MB); now 20 to 40 bytes per
     * handle.
     * <p>
     * Why the handles are not in the slots themselves: under G1, the JVM's default collector, a
     * reference stored into an old array dirties the array's 512-byte card, which a refinement
     * thread then scans. The table is old and megabytes large, and a handle put at a random slot
     * dirtied a card per insert: with OO1 small resident, the refinement thread used about 1.6 ms
     * of CPU per OO1 commit (of 2 cores, beside a commit of about 4 ms). Appended to the dense
     * array, 128 handles share a card; a removal moves the last handle into the hole.
     */
    private static final class Probing {
        /**
         * Slots to start with: 4,096 (40 KB with the dense array). The first commit after an
         * open attaches a thousand handles or so (an OO1 insert: its objects and arrays), and
         * doubling up to that from 256 slots was about 6% of its Java samples.
         */
        private static final int INITIAL_SLOTS = 4096;
        private final boolean byIdentity;
        /**
         * Slot {@code i}: a key's fragment in the high 32 bits, its handle's index in
         * {@link #handles} plus one in the low 32, or 0 if empty.
         */
        private long[] slots = new long[INITIAL_SLOTS];
        /** The handles, in {@code [0, size)}. */
        private Handle[] handles = new Handle[INITIAL_SLOTS / 2];
        private int size;

        Probing(boolean byIdentity) {
            this.byIdentity = byIdentity;
        }

        /** @return how many handles the table holds */
        int size() {
            return size;
        }

        /** @return the handle at an index below {@link #size()}, in no particular order; valid until the next change */
        Handle at(int index) {
            return handles[index];
        }

        private static long slot(int fragment, int index) {
            return (long) fragment << 32 | (index + 1);
        }

        private int fragmentOf(Handle h) {
            return byIdentity ? mix(((ContainerHandle) h).identityHash) : spread(h.id());
        }

        Handle get(long id) {
            long[] s = slots;
            int mask = s.length - 1;
            int f = spread(id);
            for (int i = f & mask; ; i = (i + 1) & mask) {
                long slot = s[i];
                if (slot == 0) {
                    return null;
                }
                if ((int) (slot >>> 32) == f) {
                    Handle h = handles[(int) slot - 1];
                    if (h.id() == id) {
                        return h;
                    }
                }
            }
        }

        Handle byIdentity(Object o) {
            long[] s = slots;
            int mask = s.length - 1;
            int f = mix(System.identityHashCode(o));
            for (int i = f & mask; ; i = (i + 1) & mask) {
                long slot = s[i];
                if (slot == 0) {
                    return null;
                }
                if ((int) (slot >>> 32) == f) {
                    Handle h = handles[(int) slot - 1];
                    if (h.refersTo(o)) {
                        return h;
                    }
                }
            }
        }

        /** Adds a handle by id, replacing the one of the same id if any. @return the replaced one, or null */
        Handle putById(Handle h) {
            long[] s = slots;
            int mask = s.length - 1;
            long id = h.id();
            int f = spread(id);
            for (int i = f & mask; ; i = (i + 1) & mask) {
                long slot = s[i];
                if (slot == 0) {
                    insert(i, f, h);
                    return null;
                }
                if ((int) (slot >>> 32) == f) {
                    int at = (int) slot - 1;
                    Handle o = handles[at];
                    if (o.id() == id) {
                        handles[at] = h;
                        return o == h ? null : o;
                    }
                }
            }
        }

        /** Adds a handle that is not in the table (several may share an identity hash). */
        void add(Handle h) {
            long[] s = slots;
            int mask = s.length - 1;
            int f = fragmentOf(h);
            int i = f & mask;
            while (s[i] != 0) {
                i = (i + 1) & mask;
            }
            insert(i, f, h);
        }

        private void insert(int slot, int fragment, Handle h) {
            if (size == handles.length) {
                handles = Arrays.copyOf(handles, size * 2);
            }
            handles[size] = h;
            slots[slot] = slot(fragment, size);
            size++;
            if (size * 2 > slots.length) {
                grow();
            }
        }

        /**
         * Removes a handle if the table holds it (by id or identity hash: several may share a key).
         *
         * @return whether it held it
         */
        boolean remove(Handle h) {
            long[] s = slots;
            int mask = s.length - 1;
            int f = fragmentOf(h);
            for (int i = f & mask; s[i] != 0; i = (i + 1) & mask) {
                if ((int) (s[i] >>> 32) == f && handles[(int) s[i] - 1] == h) {
                    removeAt(i);
                    return true;
                }
            }
            return false;
        }

        private void removeAt(int hole) {
            long[] s = slots;
            int mask = s.length - 1;
            int index = (int) s[hole] - 1;
            for (int j = (hole + 1) & mask; s[j] != 0; j = (j + 1) & mask) {
                int home = (int) (s[j] >>> 32) & mask;
                // the entry at j moves back to the hole unless its home lies cyclically in (hole, j]
                boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
                if (!stays) {
                    s[hole] = s[j];
                    hole = j;
                }
            }
            s[hole] = 0;
            int last = --size;
            if (index != last) {
                // the last handle moves into the freed index; its slot says so. It is the
                // newest handle, so loading it for its key is likely a cache hit.
                Handle moved = handles[last];
                handles[index] = moved;
                int f = fragmentOf(moved);
                for (int i = f & mask; ; i = (i + 1) & mask) {
                    if (s[i] == slot(f, last)) {
                        s[i] = slot(f, index);
                        break;
                    }
                    if (s[i] == 0) {
                        throw new IllegalStateException("object table: no slot for handle " + last);
                    }
                }
            }
            handles[last] = null;
        }

        /**
         * Doubles the slots. The old slots are taken in order: a key's slot in the doubled table
         * is its old home or that plus the old size (its fragment has the bit that tells), so
         * the writes go forward through two regions of the new array instead of to a random
         * slot each (filled from the dense array, in the handles' order, a table of a million
         * handles took a cache miss per handle).
         */
        private void grow() {
            long[] old = slots;
            long[] s = new long[old.length * 2];
            int mask = s.length - 1;
            for (long slot : old) {
                if (slot != 0) {
                    int i = (int) (slot >>> 32) & mask;
                    while (s[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    s[i] = slot;
                }
            }
            slots = s;
        }
    }
}
