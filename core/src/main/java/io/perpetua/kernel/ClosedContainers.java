package io.perpetua.kernel;

import java.lang.ref.ReferenceQueue;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The changeable collections, maps and arrays that were resident in a store when it closed,
 * with that store's location, so that a later opening of the store refuses one as it refuses
 * an object of its earlier opening, instead of storing a copy of it as a new container (one
 * list in the program became two in the store, and writes made to it after the close, which
 * are saved nowhere, were committed in the copy). A rewritten object names its
 * store in its handle; a container has no field to name it, so its store marks it here at close.
 *
 * <p>Marking costs the close one entry per resident changeable container; the commit asks only
 * for a container it has not met (about to be attached), and only while an entry is left (one
 * volatile read otherwise). Keys are weak and compared by identity; values are locations, not
 * stores, so that an entry does not keep a closed store, its classes and their class loader.
 * Thread-safe; the lock is taken after a store's, never the other way round.
 */
final class ClosedContainers {
    private static final Object LOCK = new Object();
    /** By container: the locations of the stores it was resident in when they closed (several, if it went from one to another). */
    private static final Map<IdentityKey, Set<String>> CLOSED = new HashMap<>();
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();
    /** False while {@link #CLOSED} is empty, so that the commit's common path reads only this. */
    private static volatile boolean any;

    private ClosedContainers() {
    }

    /** Marks the containers resident in the store of {@code location}, which is closing. */
    static void mark(java.util.List<Object> containers, String location) {
        if (containers.isEmpty()) {
            return;
        }
        synchronized (LOCK) {
            expunge();
            for (Object c : containers) {
                CLOSED.computeIfAbsent(new IdentityKey(c, COLLECTED), k -> new HashSet<>(2)).add(location);
            }
            any = true;
        }
    }

    /**
     * @return true if the container was resident in a store of this location when it closed
     *         (another store it went to since, and that closed too, does not hide that)
     */
    static boolean wasIn(Object container, String location) {
        if (!any) {
            return false;
        }
        synchronized (LOCK) {
            expunge();
            Set<String> locations = CLOSED.get(new IdentityKey(container, null));
            return locations != null && locations.contains(location);
        }
    }

    private static void expunge() {
        for (Object k; (k = COLLECTED.poll()) != null; ) {
            CLOSED.remove(k);
        }
        any = !CLOSED.isEmpty();
    }
}
