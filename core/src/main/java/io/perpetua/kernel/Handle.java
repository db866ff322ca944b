package io.perpetua.kernel;

import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.Persistent;

import java.lang.ref.ReferenceQueue;
import java.util.Arrays;

/**
 * The kernel's handle on one persistent object: a weak reference to it, with its id. A
 * rewritten object holds its handle in {@code $perpetua$handle}; a container (an array or a JDK
 * collection), which cannot hold anything extra, has a {@link ContainerHandle}, found by
 * identity in the {@link ObjectTable}. Kept small: every resident object has one.
 */
class Handle extends ObjectHandle {
    final Kernel kernel;
    /**
     * For a rewritten object: how many {@link Satellites satellites} its record holds (they are
     * numbered 1 to this), known once it was filled or written. It fits in the padding of the
     * object, so it costs no memory.
     */
    int satellites;
    /**
     * What the handle keeps besides its id, in one field: null, the array fields not decoded
     * yet ({@link LazyFields}), the containers embedded in the object's record (a
     * {@code ContainerHandle[]}), or both ({@link LazyAndEmbeds}, while some of its array
     * fields are decoded and others not). Two fields made a handle 56 bytes, one makes it 48
     * (and a {@link ContainerHandle}, which has neither, 96 instead of 104): every resident
     * object and container has a handle. Guarded by the kernel's lock.
     */
    private Object extra;

    /** A handle's {@link #extra} when it has both. */
    private record LazyAndEmbeds(LazyFields lazy, ContainerHandle[] embeds) {
    }

    /** @return the array fields not decoded yet, or null: see {@link LazyFields} */
    final LazyFields lazy() {
        Object x = extra;
        return x instanceof LazyFields l ? l : x instanceof LazyAndEmbeds both ? both.lazy() : null;
    }

    /**
     * @return the containers embedded in this object's record, as far as this JVM decoded or
     *         committed them, or null: so that a commit that writes the object without one of
     *         them (the program replaced the array, as an OO1 part does when it grows its
     *         incoming connections) can drop its handle. Nothing stored holds it then, and left
     *         in the table it would be compared at every commit until the collector took it.
     */
    final ContainerHandle[] embeds() {
        Object x = extra;
        return x instanceof ContainerHandle[] e ? e : x instanceof LazyAndEmbeds both ? both.embeds() : null;
    }

    final void lazy(LazyFields lazy) {
        extra = extra(lazy, embeds());
    }

    final void embeds(ContainerHandle[] embeds) {
        extra = extra(lazy(), embeds);
    }

    private static Object extra(LazyFields lazy, ContainerHandle[] embeds) {
        return lazy == null ? embeds : embeds == null ? lazy : new LazyAndEmbeds(lazy, embeds);
    }

    Handle(Kernel kernel, Object referent, long id, ReferenceQueue<Object> queue) {
        super(referent, id, queue);
        this.kernel = kernel;
    }

    /** Notes a container read from this object's record; forgets those collected since. */
    void embed(ContainerHandle c) {
        ContainerHandle[] old = embeds();
        int n = 0;
        ContainerHandle[] kept = new ContainerHandle[old == null ? 1 : old.length + 1];
        if (old != null) {
            for (ContainerHandle e : old) {
                if (e == c) {
                    return;
                }
                if (!e.refersTo(null)) {
                    kept[n++] = e;
                }
            }
        }
        kept[n++] = c;
        embeds(n == kept.length ? kept : Arrays.copyOf(kept, n));
    }

    /** Forgets a container noted by {@link #embed}: a read that failed let it go. */
    void unembed(ContainerHandle c) {
        ContainerHandle[] old = embeds();
        if (old == null) {
            return;
        }
        for (int i = 0; i < old.length; i++) {
            if (old[i] == c) {
                ContainerHandle[] kept = new ContainerHandle[old.length - 1];
                System.arraycopy(old, 0, kept, 0, i);
                System.arraycopy(old, i + 1, kept, i, old.length - i - 1);
                embeds(kept.length == 0 ? null : kept);
                return;
            }
        }
    }

    @Override
    protected void load(Persistent object) {
        kernel.load(this, object);
    }

    @Override
    protected void beforeWrite(Persistent object) {
        kernel.beforeWrite(this, object);
    }

    @Override
    protected void materialize(Persistent object, Object marker) {
        kernel.materialize(this, object, marker);
    }

    @Override
    protected void materializeAll(Persistent object) {
        kernel.materializeAll(this, object);
    }

    @Override
    protected void detachCopy(Persistent copy) {
        kernel.detachCopy(this, copy);
    }

    @Override
    protected boolean filling(Persistent object) {
        return refersTo(object) && kernel.filling(this); // a copy holding this handle is not the object filled
    }
}
