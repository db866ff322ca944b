package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

import java.util.List;

/** A graph node with every kind of field the kernel must handle; protocol written by hand. */
public class Node extends Base {
    static {
        PersistentClasses.register(Node.class, () -> new Node((HollowFactory) null));
    }

    /** Not stored: static. */
    public static int created;

    private Object any;
    private List<Node> children;
    private String name;
    private Node next;
    private int value;
    /** Not stored: transient. */
    private transient int cache;

    /** The creation proxy: runs no user code. */
    protected Node(HollowFactory proxy) {
    }

    public Node(String name) {
        this.name = name;
        this.cache = 42;
        created++;
    }

    public Node(String name, int value) {
        this(name);
        this.value = value;
    }

    /**
     * Runs {@code during}, then reads its own fields directly, after one check at entry, as a
     * method the agent rewrote does.
     */
    public String describeAround(Runnable during) {
        readCheck();
        during.run();
        return name + "/" + value + "/" + (next == null ? null : next.name());
    }

    public String name() {
        readCheck();
        return name;
    }

    public void name(String name) {
        writeCheck();
        this.name = name;
    }

    public Node next() {
        readCheck();
        return next;
    }

    public void next(Node next) {
        writeCheck();
        this.next = next;
    }

    public int value() {
        readCheck();
        return value;
    }

    public void value(int value) {
        writeCheck();
        this.value = value;
    }

    public List<Node> children() {
        readCheck();
        return children;
    }

    public void children(List<Node> children) {
        writeCheck();
        this.children = children;
    }

    public Object any() {
        readCheck();
        return any;
    }

    public void any(Object any) {
        writeCheck();
        this.any = any;
    }

    public int cache() {
        readCheck();
        return cache;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(any);
        out.writeObject(children);
        out.writeObject(name);
        out.writeObject(next);
        out.writeInt(value);
    }

    @SuppressWarnings("unchecked")
    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        any = in.readObject();
        children = (List<Node>) in.readObject();
        name = (String) in.readObject();
        next = (Node) in.readObject();
        value = in.readInt();
    }
}
