package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/** A {@link Keyed} that can hold a container ({@code any}), so it always has a record of its own. */
public class KeyedNode extends Keyed {
    static {
        PersistentClasses.register(KeyedNode.class, () -> new KeyedNode((HollowFactory) null));
    }

    private Object any;

    protected KeyedNode(HollowFactory proxy) {
        super(proxy);
    }

    public KeyedNode(String key) {
        super(key);
    }

    public Object any() {
        readCheck();
        return any;
    }

    public void any(Object any) {
        writeCheck();
        this.any = any;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(any);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        any = in.readObject();
    }
}
