package io.perpetua.kernel;

import java.lang.ref.ReferenceQueue;
import java.util.HashMap;
import java.util.Map;

/**
 * Which open store each resident collection, map or array belongs to, kept while more than one
 * store is open in the JVM. A rewritten object names its store in its handle field; a container
 * has no field, and its store knows it only in its own table. Without this, a list read from
 * one store and linked into another's graph would belong to both: one store's abort would put
 * back what the other had committed, and one's commit would mark it clean for the other.
 *
 * <p>With one store open nothing is kept (each attach reads one volatile flag). When a second
 * opens, the containers of those already open are entered, each store's under its own lock,
 * and from then on every store enters what it attaches and removes what it lets go, under its
 * own lock: the registry's lock is taken after a store's, never the other way round. Keys are
 * weak and compared by identity (a list's {@code equals} is its contents). Thread-safe.
 */
final class ContainerOwners {
    private static final Object LOCK = new Object();
    private static volatile boolean active;
    private static final Map<IdentityKey, Kernel> OWNERS = new HashMap<>();
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();

    private ContainerOwners() {
    }

    /** @return true while more than one store is open: only then are owners kept and asked */
    static boolean active() {
        return active;
    }

    /**
     * A store opened: if it makes two or more, starts keeping owners, and enters the containers
     * of every other open store (each under its own lock; {@code opening} holds none yet).
     */
    static void opened(Kernel opening, java.util.Collection<Kernel> open) {
        boolean starting;
        synchronized (LOCK) {
            // counted under the lock: a store closing meanwhile cannot undo this with an older count
            starting = open.size() > 1 && !active;
            if (starting) {
                OWNERS.clear();
                active = true;
            }
        }
        if (starting) {
            for (Kernel k : open) {
                if (k != opening) {
                    k.enterContainers();
                }
            }
        }
    }

    /**
     * A store closed: with one store or none left open, owners are no longer kept; otherwise the
     * closed store's entries go (each held the closed store, and through it its classes and
     * their class loader, while the others stayed open).
     */
    static void closed(Kernel closing, java.util.Collection<Kernel> open) {
        synchronized (LOCK) {
            if (open.size() <= 1 && active) {
                active = false;
                OWNERS.clear();
            } else if (active) {
                OWNERS.values().removeIf(owner -> owner == closing);
            }
        }
    }

    /**
     * @return true for a container that two stores could disagree about: one that can change in
     *         place. Immutable lists, sets and maps (the JVM's one {@code List.of()} is in every
     *         store), wrappers (what they wrap is a container of its own), empty arrays and
     *         immutable JDK objects cannot, and are shared freely.
     */
    static boolean changeable(Object container, ClassDescriptor.Kind kind) {
        if (!Containers.mutable(kind) || kind == ClassDescriptor.Kind.WRAPPER) {
            return false;
        }
        if (kind == ClassDescriptor.Kind.SERIALIZED) {
            return !JdkSerialized.isImmutable(container.getClass());
        }
        return !container.getClass().isArray() || java.lang.reflect.Array.getLength(container) > 0;
    }

    /**
     * Claims a changeable container for a store about to attach it, in one step: two stores
     * committing the same new list at once cannot both pass a check and then both enter it.
     *
     * @return the other open store that holds it (nothing is changed then), or null once it is
     *         entered as {@code claimant}'s
     */
    static Kernel claim(Object container, Kernel claimant) {
        synchronized (LOCK) {
            if (!active) {
                return null;
            }
            expunge();
            IdentityKey key = new IdentityKey(container, COLLECTED);
            Kernel owner = OWNERS.get(key);
            if (owner != null && owner != claimant && owner.isOpen()) {
                return owner;
            }
            OWNERS.put(key, claimant);
            return null;
        }
    }

    /** Enters a container a store attached. The store's lock is held. */
    static void entered(Object container, Kernel owner) {
        if (container == null) {
            return;
        }
        synchronized (LOCK) {
            if (active) {
                expunge();
                OWNERS.put(new IdentityKey(container, COLLECTED), owner);
            }
        }
    }

    /** Removes a container a store let go, if it is that store's. The store's lock is held. */
    static void left(Object container, Kernel owner) {
        if (container == null) {
            return;
        }
        synchronized (LOCK) {
            IdentityKey key = new IdentityKey(container, null);
            if (OWNERS.get(key) == owner) {
                OWNERS.remove(key);
            }
        }
    }

    private static void expunge() {
        for (Object k; (k = COLLECTED.poll()) != null; ) {
            OWNERS.remove(k);
        }
    }
}
