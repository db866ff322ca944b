package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A list of ints that keeps its elements in a transient array and writes them itself, as
 * fastutil's {@code IntArrayList} does: its state is not all in its stored fields. Protocol
 * written by hand.
 */
public class SelfSerialized extends Base implements Serializable {
    private static final long serialVersionUID = 1L;

    static {
        PersistentClasses.register(SelfSerialized.class, () -> new SelfSerialized((HollowFactory) null));
    }

    private transient int[] items;
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
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        size = in.readInt();
    }
}
