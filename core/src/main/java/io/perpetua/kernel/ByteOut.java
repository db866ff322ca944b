package io.perpetua.kernel;

import java.util.Arrays;

/** A growable byte buffer with the record format's primitive encodings. Not thread-safe. */
final class ByteOut {
    private byte[] buf;
    private int len;

    ByteOut(int capacity) {
        buf = new byte[capacity];
    }

    int length() {
        return len;
    }

    void reset() {
        len = 0;
    }

    /** Truncates to {@code length} bytes, dropping what was written after. */
    void truncate(int length) {
        len = length;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    /** @return true if bytes {@code [from, length())} equal {@code other} */
    boolean contentEquals(int from, byte[] other) {
        return other != null && Arrays.equals(buf, from, len, other, 0, other.length);
    }

    byte[] copyRange(int from) {
        return Arrays.copyOfRange(buf, from, len);
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }

    void writeByte(int b) {
        ensure(1);
        buf[len++] = (byte) b;
    }

    void writeBytes(byte[] b) {
        writeBytes(b, 0, b.length);
    }

    /** Writes {@code b[from, to)}. */
    void writeBytes(byte[] b, int from, int to) {
        int n = to - from;
        ensure(n);
        System.arraycopy(b, from, buf, len, n);
        len += n;
    }

    /** Inserts {@code v} as an unsigned LEB128 at {@code at}, moving the bytes after it along. */
    void insertVarInt(int at, int v) {
        int n = 1;
        for (int rest = v >>> 7; rest != 0; rest >>>= 7) {
            n++;
        }
        ensure(n);
        System.arraycopy(buf, at, buf, at + n, len - at);
        len += n;
        for (int i = 0; i < n - 1; i++) {
            buf[at + i] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[at + n - 1] = (byte) v;
    }

    /** Unsigned LEB128. */
    void writeVarLong(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[len++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[len++] = (byte) v;
    }

    void writeVarInt(int v) {
        writeVarLong(v & 0xFFFFFFFFL);
    }

    /** Zig-zag, so that small negative numbers stay short. */
    void writeSignedVarLong(long v) {
        writeVarLong((v << 1) ^ (v >> 63));
    }

    void writeSignedVarInt(int v) {
        writeVarLong(((v << 1) ^ (v >> 31)) & 0xFFFFFFFFL);
    }

    void writeFixedInt(int v) {
        ensure(4);
        putFixedInt(buf, len, v);
        len += 4;
    }

    /** Writes {@code v} big-endian into {@code b[at, at + 4)}, as {@link #writeFixedInt} appends it. */
    static void putFixedInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    void writeFixedLong(long v) {
        writeFixedInt((int) (v >>> 32));
        writeFixedInt((int) v);
    }

    /**
     * A string: a header {@code length * 2 + 1} followed by one byte per char when every char is
     * ASCII, else {@code length * 2} followed by each char as a varint. Unlike UTF-8 this keeps
     * unpaired surrogates.
     */
    void writeString(String s) {
        int n = s.length();
        boolean ascii = true;
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                ascii = false;
                break;
            }
        }
        writeVarLong(((long) n << 1) | (ascii ? 1 : 0));
        if (ascii) {
            ensure(n);
            for (int i = 0; i < n; i++) {
                buf[len++] = (byte) s.charAt(i);
            }
        } else {
            for (int i = 0; i < n; i++) {
                writeVarInt(s.charAt(i));
            }
        }
    }
}
