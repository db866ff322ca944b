package io.perpetua.runtime;

/**
 * Supplies the persistent fields of one object, in layout order. Generated
 * {@code $perpetua$read} methods call it; the kernel implements it. When the stored class
 * descriptor differs from the loaded class (a field added or removed), the kernel's reader
 * adapts: added fields read as their default value, removed ones are skipped.
 */
public interface RecordReader {
    /** @return the next field, a {@code boolean} */
    boolean readBoolean();

    /** @return the next field, a {@code byte} */
    byte readByte();

    /** @return the next field, a {@code char} */
    char readChar();

    /** @return the next field, a {@code short} */
    short readShort();

    /** @return the next field, a {@code int} */
    int readInt();

    /** @return the next field, a {@code long} */
    long readLong();

    /** @return the next field, a {@code float} */
    float readFloat();

    /** @return the next field, a {@code double} */
    double readDouble();

    /**
     * @return the next reference field: null, a persistent-capable object (possibly a hollow
     *         shell), or a value of a type the kernel stores itself
     */
    Object readObject();
}
