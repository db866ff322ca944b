package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/**
 * A leaf whose fields hold mutable JDK holders, changed in place rather than through the
 * fields: still a leaf (no field can hold a collection or array), so stored as a satellite.
 * Protocol written by hand.
 */
public class Memo extends Base {
    static {
        PersistentClasses.register(Memo.class, () -> new Memo((HollowFactory) null));
    }

    private StringBuilder body;
    private java.util.Date when;
    private int count;

    protected Memo(HollowFactory proxy) {
    }

    public Memo(String body, long when) {
        this.body = new StringBuilder(body);
        this.when = new java.util.Date(when);
    }

    /** @return the body itself, for the caller to change in place */
    public StringBuilder body() {
        readCheck();
        return body;
    }

    /** @return the date itself, for the caller to change in place */
    public java.util.Date when() {
        readCheck();
        return when;
    }

    public int count() {
        readCheck();
        return count;
    }

    public void count(int count) {
        writeCheck();
        this.count = count;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(body); // in layout order: by name
        out.writeInt(count);
        out.writeObject(when);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        body = (StringBuilder) in.readObject();
        count = in.readInt();
        when = (java.util.Date) in.readObject();
    }
}
