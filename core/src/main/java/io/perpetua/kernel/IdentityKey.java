package io.perpetua.kernel;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * A map key that holds an object weakly and compares by identity (a list's {@code equals} is its
 * contents), for the registries of containers kept beside the stores' tables
 * ({@link ContainerOwners}, {@link ClosedContainers}). A key whose object was collected equals
 * only itself; its queue tells the registry to remove it.
 */
final class IdentityKey extends WeakReference<Object> {
    private final int hash;

    /**
     * @param object the object, held weakly
     * @param queue where the key goes once the object is collected; null for a key only looked up with
     */
    IdentityKey(Object object, ReferenceQueue<Object> queue) {
        super(object, queue);
        this.hash = System.identityHashCode(object);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof IdentityKey k && k.hash == hash && k.get() != null && k.get() == get();
    }
}
