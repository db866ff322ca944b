package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;
import io.perpetua.runtime.Residency;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A list of ints that keeps its elements in a transient array and writes them itself, as
 * fastutil's {@code IntArrayList} does: its transient field is state, stored as its class
 * serializes itself. Protocol written by hand, as the agent generates it for such a field.
 */
public class SelfSerialized extends Base implements Serializable {
    private static final long serialVersionUID = 1L;

    static {
        PersistentClasses.register(SelfSerialized.class, () -> new SelfSerialized((HollowFactory) null));
    }

    private transient int[] items;
    /** Something the program hangs on the list: stored too, being transient in a class that serializes itself. */
    private transient Object attachment;
    private int size;

    protected SelfSerialized(HollowFactory proxy) {
    }

    public SelfSerialized(int... items) {
        this.items = items.clone();
        this.size = items.length;
    }

    public int[] items() {
        readCheck();
        return Arrays.copyOf(items, size);
    }

    public void add(int item) {
        readCheck();
        int[] grown = Arrays.copyOf(items, size + 1);
        grown[size] = item;
        if ($perpetua$state < 0) { // the setter of a transient field
            Residency.beforeTransientWrite(this);
        }
        items = grown;
        writeCheck();
        size++;
    }

    public void attach(Object attachment) {
        if ($perpetua$state < 0) {
            Residency.beforeTransientWrite(this);
        }
        this.attachment = attachment;
    }

    public Object attachment() {
        readCheck();
        return attachment;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        for (int i = 0; i < size; i++) {
            out.writeInt(items[i]);
        }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        items = new int[size];
        for (int i = 0; i < size; i++) {
            items[i] = in.readInt();
        }
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeInt(size);
        if (PersistentClasses.storesTransientFields(getClass())) {
            out.writeObject(attachment); // transient fields by name
            out.writeObject(items);
        }
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        size = in.readInt();
        if (PersistentClasses.storesTransientFields(getClass())) {
            attachment = in.readObject();
            items = (int[]) in.readObject();
        }
    }
}
