package io.perpetua.runtime;

/**
 * Receives the persistent fields of one object, in layout order (see the package
 * documentation). Generated {@code $perpetua$write} methods call it; the kernel implements it.
 * Not thread-safe: one writer serves one commit on one thread.
 */
public interface RecordWriter {
    /** @param v the next field, a {@code boolean} */
    void writeBoolean(boolean v);

    /** @param v the next field, a {@code byte} */
    void writeByte(byte v);

    /** @param v the next field, a {@code char} */
    void writeChar(char v);

    /** @param v the next field, a {@code short} */
    void writeShort(short v);

    /** @param v the next field, a {@code int} */
    void writeInt(int v);

    /** @param v the next field, a {@code long} */
    void writeLong(long v);

    /** @param v the next field, a {@code float} */
    void writeFloat(float v);

    /** @param v the next field, a {@code double} */
    void writeDouble(double v);

    /**
     * Writes a reference field: null, a persistent-capable object (stored as a reference, and
     * made persistent by reachability if it is not yet), or a value of a type the kernel
     * stores itself (strings, boxes, enums, arrays, collections, records, {@code java.time}
     * values and more).
     *
     * @param v the next field, may be null
     * @throws io.perpetua.NotPersistableException if the value cannot be stored
     */
    void writeObject(Object v);
}
