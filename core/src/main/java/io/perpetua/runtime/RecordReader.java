package io.perpetua.runtime;

/**
 * Supplies the persistent fields of one object, in layout order. Generated
 * {@code $perpetua$read} methods call it; the kernel implements it. When the stored class
 * descriptor differs from the loaded class (a field added or removed), the kernel's reader
 * adapts: added fields read as their default value, removed ones are skipped.
 */
public interface RecordReader {
    boolean readBoolean();

    byte readByte();

    char readChar();

    short readShort();

    int readInt();

    long readLong();

    float readFloat();

    double readDouble();

    /**
     * @return the next reference field: null, a persistent-capable object (possibly a hollow
     *         shell), or a value of a type the kernel stores itself
     */
    Object readObject();
}
