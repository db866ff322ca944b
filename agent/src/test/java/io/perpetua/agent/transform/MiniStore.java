package io.perpetua.agent.transform;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

import java.lang.reflect.Array;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A tiny stand-in for the kernel, enough to drive the generated code through the runtime
 * protocol: it records objects with their generated {@code $perpetua$write}, then hands out
 * hollow shells made by the registered creation proxies, filled by {@code $perpetua$read} when
 * the residency checks call {@link ObjectHandle#load}. It counts what was loaded and dirtied.
 * Not thread-safe.
 */
final class MiniStore {
    private record Ref(long id) {
    }

    private record ArrayOf(Class<?> component, Object[] elements) {
    }

    private final Map<Long, List<Object>> records = new HashMap<>();
    private final Map<Long, Class<?>> classes = new HashMap<>();
    private final IdentityHashMap<Object, Long> ids = new IdentityHashMap<>();
    private final Map<Long, Persistent> shells = new HashMap<>();
    final Set<Long> loaded = new LinkedHashSet<>();
    final Set<Long> dirtied = new LinkedHashSet<>();

    /** Saves everything reachable from the root; returns the root's id. */
    long save(Object root) {
        ArrayDeque<Persistent> todo = new ArrayDeque<>();
        long rootId = idOf(root, todo);
        while (!todo.isEmpty()) {
            Persistent p = todo.poll();
            List<Object> record = new ArrayList<>();
            p.$perpetua$write(new Writer(record, todo));
            records.put(ids.get(p), record);
            classes.put(ids.get(p), p.getClass());
        }
        return rootId;
    }

    private long idOf(Object o, ArrayDeque<Persistent> todo) {
        Long id = ids.get(o);
        if (id == null) {
            id = (long) ids.size() + 1;
            ids.put(o, id);
            todo.add((Persistent) o);
        }
        return id;
    }

    /** @return the one shell of a saved object (hollow until touched) */
    Object fetch(long id) {
        Persistent p = shells.get(id);
        if (p == null) {
            HollowFactory factory = PersistentClasses.factory(classes.get(id));
            if (factory == null) {
                throw new AssertionError("no creation proxy registered for " + classes.get(id));
            }
            p = factory.newInstance();
            if (p.$perpetua$state() != ObjectState.TRANSIENT) {
                throw new AssertionError("a new instance must be transient");
            }
            p.$perpetua$handle(new Handle(p, id));
            p.$perpetua$state(ObjectState.HOLLOW);
            shells.put(id, p);
        }
        return p;
    }

    /** @return the id of a shell handed out by {@link #fetch} */
    long idOfShell(Object shell) {
        return ((Persistent) shell).$perpetua$handle().id();
    }

    private final class Handle extends ObjectHandle {
        /** While its fill runs: a class extending a JDK collection may be called back meanwhile, as the kernel allows. */
        private boolean filling;

        Handle(Object referent, long id) {
            super(referent, id, null);
        }

        @Override
        protected void load(Persistent object) {
            if (object.$perpetua$state() != ObjectState.HOLLOW || filling) {
                return;
            }
            loaded.add(id());
            filling = true;
            try {
                object.$perpetua$read(new Reader(records.get(id())));
            } finally {
                filling = false;
            }
            object.$perpetua$state(ObjectState.CLEAN);
        }

        @Override
        protected void beforeWrite(Persistent object) {
            load(object);
            if (object.$perpetua$state() == ObjectState.HOLLOW) {
                return; // called back during its fill
            }
            dirtied.add(id());
            object.$perpetua$state(ObjectState.DIRTY);
        }

        @Override
        protected void materialize(Persistent object, Object marker) {
            throw new UnsupportedOperationException("MiniStore never leaves a field lazy");
        }
    }

    private final class Writer implements RecordWriter {
        private final List<Object> out;
        private final ArrayDeque<Persistent> todo;

        Writer(List<Object> out, ArrayDeque<Persistent> todo) {
            this.out = out;
            this.todo = todo;
        }

        @Override public void writeBoolean(boolean v) { out.add(v); }
        @Override public void writeByte(byte v) { out.add(v); }
        @Override public void writeChar(char v) { out.add(v); }
        @Override public void writeShort(short v) { out.add(v); }
        @Override public void writeInt(int v) { out.add(v); }
        @Override public void writeLong(long v) { out.add(v); }
        @Override public void writeFloat(float v) { out.add(v); }
        @Override public void writeDouble(double v) { out.add(v); }

        @Override
        public void writeObject(Object v) {
            out.add(encode(v));
        }

        private Object encode(Object v) {
            if (v instanceof Persistent) {
                return new Ref(idOf(v, todo));
            }
            if (v instanceof Object[] array) {
                Object[] elements = new Object[array.length];
                for (int i = 0; i < array.length; i++) {
                    elements[i] = encode(array[i]);
                }
                return new ArrayOf(array.getClass().getComponentType(), elements);
            }
            if (v instanceof List<?> list) {
                return new ArrayList<>(list);
            }
            if (v instanceof int[] ints) {
                return ints.clone();
            }
            return v; // strings, boxes, null
        }
    }

    private final class Reader implements RecordReader {
        private final List<Object> in;
        private int next;

        Reader(List<Object> in) {
            this.in = in;
        }

        private Object next() {
            return in.get(next++);
        }

        @Override public boolean readBoolean() { return (Boolean) next(); }
        @Override public byte readByte() { return (Byte) next(); }
        @Override public char readChar() { return (Character) next(); }
        @Override public short readShort() { return (Short) next(); }
        @Override public int readInt() { return (Integer) next(); }
        @Override public long readLong() { return (Long) next(); }
        @Override public float readFloat() { return (Float) next(); }
        @Override public double readDouble() { return (Double) next(); }

        @Override
        public Object readObject() {
            return decode(next());
        }

        private Object decode(Object v) {
            if (v instanceof Ref r) {
                return fetch(r.id());
            }
            if (v instanceof ArrayOf a) {
                Object array = Array.newInstance(a.component(), a.elements().length);
                for (int i = 0; i < a.elements().length; i++) {
                    Array.set(array, i, decode(a.elements()[i]));
                }
                return array;
            }
            if (v instanceof List<?> list) {
                return new ArrayList<>(list);
            }
            if (v instanceof int[] ints) {
                return ints.clone();
            }
            return v;
        }
    }
}
