package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/** A second level whose field {@code value} shadows {@link Node}'s: layouts qualify fields by owner. */
public class SpecialNode extends Node {
    static {
        PersistentClasses.register(SpecialNode.class, () -> new SpecialNode((HollowFactory) null));
    }

    private String extra;
    private long value;

    protected SpecialNode(HollowFactory proxy) {
        super(proxy);
    }

    public SpecialNode(String name, int nodeValue, long ownValue, String extra) {
        super(name, nodeValue);
        this.value = ownValue;
        this.extra = extra;
    }

    public long ownValue() {
        readCheck();
        return value;
    }

    public String extra() {
        readCheck();
        return extra;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(extra);
        out.writeLong(value);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        extra = (String) in.readObject();
        value = in.readLong();
    }
}
