package io.perpetua.spi;

import java.util.Map;
import java.util.SortedMap;

/** A backend that hands every call to another: tests override the calls they make fail. */
public class ForwardingBackend implements Backend {
    /** The real backend, owned: closed with this one. */
    public final Backend inner;

    public ForwardingBackend(Backend inner) {
        this.inner = inner;
    }

    @Override public byte[] read(long id) { return inner.read(id); }
    @Override public byte[][] readMany(long[] ids) { return inner.readMany(ids); }
    @Override public long[] recordIds() { return inner.recordIds(); }
    @Override public long lookup(String name) { return inner.lookup(name); }
    @Override public SortedMap<String, Long> names() { return inner.names(); }
    @Override public Map<Integer, byte[]> classDescriptors() { return inner.classDescriptors(); }
    @Override public long allocateIds(int count) { return inner.allocateIds(count); }
    @Override public void commit(WriteSet writes) { inner.commit(writes); }
    @Override public BackendStatistics statistics() { return inner.statistics(); }
    @Override public String location() { return inner.location(); }
    @Override public void close() { inner.close(); }
}
