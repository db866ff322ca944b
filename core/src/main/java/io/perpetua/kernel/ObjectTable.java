package io.perpetua.kernel;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Id → object, and container → id, for one store: one Java object per stored object, however
 * it is reached. Objects are held only weakly (through their {@link Handle}); the kernel holds
 * new and dirty ones strongly elsewhere until they are committed. Guarded by the kernel's lock.
 */
final class ObjectTable {
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    private final Map<Long, Handle> byId = new HashMap<>();
    /** Containers by identity: the bucket holds every container handle with that identity hash. */
    private final Map<Integer, Object> containers = new HashMap<>();

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

    void put(Handle h) {
        byId.put(h.id(), h);
        if (h.container) {
            Object bucket = containers.get(h.identityHash);
            if (bucket == null) {
                containers.put(h.identityHash, h);
            } else if (bucket instanceof Handle other) {
                List<Handle> list = new ArrayList<>(2);
                list.add(other);
                list.add(h);
                containers.put(h.identityHash, list);
            } else {
                @SuppressWarnings("unchecked") List<Handle> list = (List<Handle>) bucket;
                list.add(h);
            }
        }
    }

    /** @return the handle of a persistent container, or null if it is not persistent here */
    Handle container(Object container) {
        Object bucket = containers.get(System.identityHashCode(container));
        if (bucket == null) {
            return null;
        }
        if (bucket instanceof Handle h) {
            return h.refersTo(container) ? h : null;
        }
        @SuppressWarnings("unchecked") List<Handle> list = (List<Handle>) bucket;
        for (Handle h : list) {
            if (h.refersTo(container)) {
                return h;
            }
        }
        return null;
    }

    void remove(Handle h) {
        byId.remove(h.id(), h);
        if (h.container) {
            Object bucket = containers.get(h.identityHash);
            if (bucket == h) {
                containers.remove(h.identityHash);
            } else if (bucket instanceof List<?> list) {
                list.remove(h);
                if (list.isEmpty()) {
                    containers.remove(h.identityHash);
                }
            }
        }
    }

    /** Forgets the handles of collected objects. */
    void expunge() {
        for (Reference<?> r; (r = queue.poll()) != null; ) {
            remove((Handle) r);
        }
    }

    /** @return the live container handles, a snapshot */
    List<Handle> liveContainers() {
        List<Handle> out = new ArrayList<>();
        for (Object bucket : containers.values()) {
            if (bucket instanceof Handle h) {
                if (!h.refersTo(null)) {
                    out.add(h);
                }
            } else {
                @SuppressWarnings("unchecked") List<Handle> list = (List<Handle>) bucket;
                for (Handle h : list) {
                    if (!h.refersTo(null)) {
                        out.add(h);
                    }
                }
            }
        }
        return out;
    }

    /** @return how many handles the table holds (live or not yet expunged) */
    int size() {
        return byId.size();
    }
}
