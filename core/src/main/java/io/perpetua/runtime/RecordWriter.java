package io.perpetua.runtime;

/**
 * Receives the persistent fields of one object, in layout order (see the package
 * documentation). Generated {@code $perpetua$write} methods call it; the kernel implements it.
 * Not thread-safe: one writer serves one commit on one thread.
 */
public interface RecordWriter {
    void writeBoolean(boolean v);

    void writeByte(byte v);

    void writeChar(char v);

    void writeShort(short v);

    void writeInt(int v);

    void writeLong(long v);

    void writeFloat(float v);

    void writeDouble(double v);

    /**
     * Writes a reference field: null, a persistent-capable object (stored as a reference, and
     * made persistent by reachability if it is not yet), or a value of a type the kernel
     * stores itself (strings, boxes, enums, arrays, collections, records, {@code java.time}
     * values and more).
     *
     * @throws io.perpetua.NotPersistableException if the value cannot be stored
     */
    void writeObject(Object v);
}
