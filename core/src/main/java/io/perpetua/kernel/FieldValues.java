package io.perpetua.kernel;

import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

import java.util.Arrays;

/**
 * An object's persistent field values in layout order, boxed, served to its
 * {@code $perpetua$read} (or, for a record, to its canonical constructor). Filled either from a
 * record written under an older layout ({@link RecordDecoder#evolved}), or by the object's own
 * {@code $perpetua$write}: how the kernel sets one field of a resident object (a lazy array
 * field it decodes, see {@link LazyFields}) through the codec the agent generated, without
 * reflection. Used on slow paths only, so boxing is no concern.
 */
final class FieldValues implements RecordWriter, RecordReader {
    private final Object[] values;
    /** By reference-field ordinal: the layout position of that field, as taken by {@link #writeObject}. */
    private int[] references = new int[4];
    private int count;
    private int referenceCount;
    private int next;

    /** Values to be taken with {@code $perpetua$write}. */
    FieldValues(int fields) {
        values = new Object[fields];
    }

    /** Values decoded already, to be served. */
    FieldValues(Object[] values) {
        this.values = values;
        this.count = values.length;
    }

    /** @return the value of the reference field of this ordinal (taken with {@code $perpetua$write}) */
    Object reference(int ordinal) {
        return values[references[ordinal]];
    }

    /** Sets the reference field of this ordinal, before {@link #replay}. */
    void reference(int ordinal, Object value) {
        values[references[ordinal]] = value;
    }

    /** Rewinds, to be read back. */
    FieldValues replay() {
        next = 0;
        return this;
    }

    /** @return how many values {@link #next} has served since the last {@link #replay} */
    int served() {
        return next;
    }

    /** @return the next value, boxed */
    Object next() {
        if (next >= count) {
            throw new IllegalStateException("the class reads more fields than its layout has");
        }
        return values[next++];
    }

    private void put(Object v) {
        values[count++] = v;
    }

    @Override
    public void writeBoolean(boolean v) {
        put(v);
    }

    @Override
    public void writeByte(byte v) {
        put(v);
    }

    @Override
    public void writeChar(char v) {
        put(v);
    }

    @Override
    public void writeShort(short v) {
        put(v);
    }

    @Override
    public void writeInt(int v) {
        put(v);
    }

    @Override
    public void writeLong(long v) {
        put(v);
    }

    @Override
    public void writeFloat(float v) {
        put(v);
    }

    @Override
    public void writeDouble(double v) {
        put(v);
    }

    @Override
    public void writeObject(Object v) {
        if (referenceCount == references.length) {
            references = Arrays.copyOf(references, referenceCount * 2);
        }
        references[referenceCount++] = count;
        put(v);
    }

    @Override
    public boolean readBoolean() {
        return (Boolean) next();
    }

    @Override
    public byte readByte() {
        return (Byte) next();
    }

    @Override
    public char readChar() {
        return (Character) next();
    }

    @Override
    public short readShort() {
        return (Short) next();
    }

    @Override
    public int readInt() {
        return (Integer) next();
    }

    @Override
    public long readLong() {
        return (Long) next();
    }

    @Override
    public float readFloat() {
        return (Float) next();
    }

    @Override
    public double readDouble() {
        return (Double) next();
    }

    @Override
    public Object readObject() {
        return next();
    }
}
