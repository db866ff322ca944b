package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/**
 * A small object with no field that can hold a container (a leaf, like OO1's connection): the
 * kind the kernel stores inside the record of the object it hangs from. Protocol written by hand.
 */
public class Leaf extends Base {
    static {
        PersistentClasses.register(Leaf.class, () -> new Leaf((HollowFactory) null));
    }

    private String label;
    private Node peer;
    private int weight;

    protected Leaf(HollowFactory proxy) {
    }

    public Leaf(String label, int weight) {
        this.label = label;
        this.weight = weight;
    }

    public String label() {
        readCheck();
        return label;
    }

    public int weight() {
        readCheck();
        return weight;
    }

    public void weight(int weight) {
        writeCheck();
        this.weight = weight;
    }

    public Node peer() {
        readCheck();
        return peer;
    }

    public void peer(Node peer) {
        writeCheck();
        this.peer = peer;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(label);
        out.writeObject(peer);
        out.writeInt(weight);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        label = (String) in.readObject();
        peer = (Node) in.readObject();
        weight = in.readInt();
    }
}
