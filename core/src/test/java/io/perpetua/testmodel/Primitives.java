package io.perpetua.testmodel;

import io.perpetua.Persistable;
import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/** One field of each primitive type; also {@link Persistable}, for JSPIN-style calls from plain source. */
public class Primitives extends Base implements Persistable {
    static {
        PersistentClasses.register(Primitives.class, () -> new Primitives((HollowFactory) null));
    }

    public boolean z;
    public byte b;
    public char c;
    public short s;
    public int i;
    public long j;
    public float f;
    public double d;

    protected Primitives(HollowFactory proxy) {
    }

    public Primitives() {
    }

    /** Reads every field through the read check, as rewritten code would. */
    public String describe() {
        readCheck();
        return z + "," + b + "," + (int) c + "," + s + "," + i + "," + j + "," + f + "," + d;
    }

    public void set(int i) {
        writeCheck();
        this.i = i;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeByte(b);
        out.writeChar(c);
        out.writeDouble(d);
        out.writeFloat(f);
        out.writeInt(i);
        out.writeLong(j);
        out.writeShort(s);
        out.writeBoolean(z);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        b = in.readByte();
        c = in.readChar();
        d = in.readDouble();
        f = in.readFloat();
        i = in.readInt();
        j = in.readLong();
        s = in.readShort();
        z = in.readBoolean();
    }
}
