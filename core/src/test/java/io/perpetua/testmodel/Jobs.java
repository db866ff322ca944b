package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

import java.util.Collection;
import java.util.PriorityQueue;

/**
 * A class of the program extending {@code PriorityQueue}, as the agent makes it persistent-capable
 * (protocol written by hand, contents written as the agent's codec writes them), for the kernel's
 * checks of such classes.
 */
public class Jobs extends PriorityQueue<Integer> implements Persistent {
    static {
        PersistentClasses.register(Jobs.class, () -> new Jobs((HollowFactory) null));
    }

    public transient byte $perpetua$state;
    public transient ObjectHandle $perpetua$handle;

    protected Jobs(HollowFactory proxy) {
    }

    /** Takes the elements, and, as {@code PriorityQueue(Collection)} does, the comparator of a queue or sorted set. */
    public Jobs(Collection<Integer> from) {
        super(from);
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

    @Override
    public void $perpetua$write(RecordWriter out) {
        out.writeObject(toArray());
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        clear();
        for (Object e : (Object[]) in.readObject()) {
            add((Integer) e);
        }
    }
}
