package io.perpetua.kernel;

import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/**
 * The current values of an object's persistent fields, taken with its {@code $perpetua$write}
 * and given back with its {@code $perpetua$read}: how the kernel sets one field of a resident
 * object (a lazy array field it decodes, see {@link LazyFields}) through the codec the agent
 * generated, without reflection. Primitives are kept as raw bits, so nothing is boxed.
 */
final class FieldValues implements RecordWriter, RecordReader {
    private final long[] bits;
    private final Object[] refs;
    private int count;
    private int refCount;
    private int next;
    private int nextRef;

    FieldValues(int fields) {
        bits = new long[fields];
        refs = new Object[fields];
    }

    /** @return the value of the reference field of this ordinal */
    Object reference(int ordinal) {
        return refs[ordinal];
    }

    /** Sets the reference field of this ordinal, before {@link #replay}. */
    void reference(int ordinal, Object value) {
        refs[ordinal] = value;
    }

    /** Rewinds, to be read back. */
    FieldValues replay() {
        next = 0;
        nextRef = 0;
        return this;
    }

    private void put(long v) {
        bits[count++] = v;
    }

    private long take() {
        if (next >= count) {
            throw new IllegalStateException("the class reads more fields than it wrote");
        }
        return bits[next++];
    }

    @Override
    public void writeBoolean(boolean v) {
        put(v ? 1 : 0);
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
        put(Float.floatToRawIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        put(Double.doubleToRawLongBits(v));
    }

    @Override
    public void writeObject(Object v) {
        refs[refCount++] = v;
    }

    @Override
    public boolean readBoolean() {
        return take() != 0;
    }

    @Override
    public byte readByte() {
        return (byte) take();
    }

    @Override
    public char readChar() {
        return (char) take();
    }

    @Override
    public short readShort() {
        return (short) take();
    }

    @Override
    public int readInt() {
        return (int) take();
    }

    @Override
    public long readLong() {
        return take();
    }

    @Override
    public float readFloat() {
        return Float.intBitsToFloat((int) take());
    }

    @Override
    public double readDouble() {
        return Double.longBitsToDouble(take());
    }

    @Override
    public Object readObject() {
        if (nextRef >= refCount) {
            throw new IllegalStateException("the class reads more reference fields than it wrote");
        }
        return refs[nextRef++];
    }
}
