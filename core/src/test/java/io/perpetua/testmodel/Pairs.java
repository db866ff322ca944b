package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.Residency;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

import java.io.Serializable;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * An immutable map shaped like Guava's {@code RegularImmutableMap}: its entries are objects of a
 * class extending {@code AbstractMap.SimpleImmutableEntry}, a JDK class with state, which the
 * agent leaves as it is and Perpetua cannot store; its Java serialization replaces it with a
 * {@link Form} of keys and values. Protocol written by hand, as {@link Base}'s: it extends
 * {@code AbstractMap}, so it cannot extend {@code Base}.
 */
public class Pairs extends AbstractMap<String, Object> implements Persistent, Serializable {
    private static final long serialVersionUID = 1L;

    static {
        PersistentClasses.register(Pairs.class, () -> new Pairs((HollowFactory) null));
    }

    /** Not rewritten: it extends a JDK class with state. */
    public static final class Entry extends AbstractMap.SimpleImmutableEntry<String, Object> {
        private static final long serialVersionUID = 1L;

        Entry(String key, Object value) {
            super(key, value);
        }
    }

    public transient byte $perpetua$state;
    public transient ObjectHandle $perpetua$handle;
    private Entry[] entries;

    protected Pairs(HollowFactory proxy) {
    }

    /** @param keysAndValues key, value, key, value... */
    public Pairs(Object... keysAndValues) {
        entries = new Entry[keysAndValues.length / 2];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new Entry((String) keysAndValues[2 * i], keysAndValues[2 * i + 1]);
        }
    }

    /** Adds an entry in place (as a mutable map would; Guava's make no change in place). */
    public void add(String key, Object value) {
        if ($perpetua$state < 0) {
            Residency.beforeWrite(this); // the write check rewritten code has
        }
        Entry[] grown = Arrays.copyOf(entries, entries.length + 1);
        grown[entries.length] = new Entry(key, value);
        entries = grown;
    }

    /** @return the entries themselves, objects Perpetua cannot store */
    public Map.Entry<String, Object>[] entries() {
        readCheck();
        return entries.clone();
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        readCheck();
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return Arrays.<Map.Entry<String, Object>>asList(entries).iterator();
            }

            @Override
            public int size() {
                return entries.length;
            }
        };
    }

    private void readCheck() {
        if ($perpetua$state == ObjectState.HOLLOW) {
            Residency.load(this);
        }
    }

    @Override
    public byte $perpetua$state() {
        return $perpetua$state;
    }

    @Override
    public void $perpetua$state(byte state) {
        $perpetua$state = state;
    }

    @Override
    public ObjectHandle $perpetua$handle() {
        return $perpetua$handle;
    }

    @Override
    public void $perpetua$handle(ObjectHandle handle) {
        $perpetua$handle = handle;
    }

    Object writeReplace() {
        readCheck();
        Object[] keys = new Object[entries.length];
        Object[] values = new Object[entries.length];
        for (int i = 0; i < entries.length; i++) {
            keys[i] = entries[i].getKey();
            values[i] = entries[i].getValue();
        }
        return new Form(keys, values);
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        out.writeObject(entries);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        entries = (Entry[]) in.readObject();
    }

    /** What a {@link Pairs} is serialized as. */
    public static final class Form extends Base implements Serializable {
        private static final long serialVersionUID = 1L;

        static {
            PersistentClasses.register(Form.class, () -> new Form((HollowFactory) null));
        }

        /** Set by a test: readResolve then makes a plain map, as a changed class might. */
        public static volatile boolean resolvesToAHashMap;

        private Object keys;
        private Object values;

        Form(HollowFactory proxy) {
        }

        Form(Object[] keys, Object[] values) {
            this.keys = keys;
            this.values = values;
        }

        private Object readResolve() {
            readCheck();
            Object[] k = (Object[]) keys;
            Object[] v = (Object[]) values;
            Object[] both = new Object[2 * k.length];
            for (int i = 0; i < k.length; i++) {
                both[2 * i] = k[i];
                both[2 * i + 1] = v[i];
            }
            if (resolvesToAHashMap) {
                java.util.Map<Object, Object> map = new java.util.HashMap<>();
                for (int i = 0; i < k.length; i++) {
                    map.put(k[i], v[i]);
                }
                return map;
            }
            return new Pairs(both);
        }

        @Override
        public void $perpetua$write(RecordWriter out) {
            super.$perpetua$write(out);
            out.writeObject(keys);
            out.writeObject(values);
        }

        @Override
        public void $perpetua$read(RecordReader in) {
            super.$perpetua$read(in);
            keys = in.readObject();
            values = in.readObject();
        }
    }
}
