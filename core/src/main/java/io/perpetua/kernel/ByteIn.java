package io.perpetua.kernel;

import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link ByteOut} wrote. Every malformed input ends in a {@link MalformedRecord},
 * which the kernel turns into a {@link io.perpetua.CorruptStoreException} naming the object.
 * Not thread-safe.
 */
final class ByteIn {
    /** A record that does not decode; carries no location: the caller adds it. */
    static final class MalformedRecord extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedRecord(String message) {
            super(message, null, false, false);
        }
    }

    private final byte[] buf;
    private int pos;
    private final int end;

    ByteIn(byte[] buf) {
        this(buf, 0, buf.length);
    }

    ByteIn(byte[] buf, int from, int to) {
        this.buf = buf;
        this.pos = from;
        this.end = to;
    }

    int position() {
        return pos;
    }

    boolean atEnd() {
        return pos >= end;
    }

    byte[] buffer() {
        return buf;
    }

    int end() {
        return end;
    }

    /** @return the next byte, unsigned, without moving past it */
    int peekByte() {
        if (pos >= end) {
            throw new MalformedRecord("record ends early at byte " + pos);
        }
        return buf[pos] & 0xFF;
    }

    int readByte() {
        if (pos >= end) {
            throw new MalformedRecord("record ends early at byte " + pos);
        }
        return buf[pos++];
    }

    byte[] readBytes(int n) {
        if (n < 0 || n > end - pos) {
            throw new MalformedRecord("a length of " + n + " runs past the record's end at byte " + pos);
        }
        byte[] b = new byte[n];
        System.arraycopy(buf, pos, b, 0, n);
        pos += n;
        return b;
    }

    long readVarLong() {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = readByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new MalformedRecord("a varint longer than 10 bytes at byte " + pos);
    }

    int readVarInt() {
        long v = readVarLong();
        if ((v >>> 32) != 0) {
            throw new MalformedRecord("a varint too large for an int at byte " + pos);
        }
        return (int) v;
    }

    /** A count or length: a non-negative int no larger than what the record can still hold. */
    int readCount() {
        int n = readVarInt();
        if (n < 0 || n > end - pos) {
            throw new MalformedRecord("a count of " + (n & 0xFFFFFFFFL) + " cannot fit in the record at byte " + pos);
        }
        return n;
    }

    long readSignedVarLong() {
        long v = readVarLong();
        return (v >>> 1) ^ -(v & 1);
    }

    int readSignedVarInt() {
        int v = readVarInt();
        return (v >>> 1) ^ -(v & 1);
    }

    /** Moves past {@code n} bytes, which the caller has checked are there. */
    void skip(int n) {
        pos += n;
    }

    int readFixedInt() {
        return (readByte() & 0xFF) << 24 | (readByte() & 0xFF) << 16 | (readByte() & 0xFF) << 8 | (readByte() & 0xFF);
    }

    long readFixedLong() {
        return ((long) readFixedInt() << 32) | (readFixedInt() & 0xFFFFFFFFL);
    }

    String readString() {
        return readString(null);
    }

    /** @param cache shares short ASCII strings; null to decode every string anew */
    String readString(StringCache cache) {
        long header = readVarLong();
        long n = header >>> 1;
        if (n > end - pos) {
            throw new MalformedRecord("a string of " + n + " chars cannot fit in the record at byte " + pos);
        }
        int count = (int) n;
        if ((header & 1) != 0) {
            int start = pos;
            for (int i = start; i < start + count; i++) {
                if (buf[i] < 0) {
                    throw new MalformedRecord("a non-ASCII byte in an ASCII string at byte " + i);
                }
            }
            pos += count;
            return cache != null && count <= StringCache.MAX_LENGTH ? cache.ascii(buf, start, count)
                    : new String(buf, start, count, StandardCharsets.ISO_8859_1);
        }
        char[] chars = new char[count];
        for (int i = 0; i < count; i++) {
            int c = readVarInt();
            if (c > 0xFFFF) {
                throw new MalformedRecord("a char out of range at byte " + pos);
            }
            chars[i] = (char) c;
        }
        return new String(chars);
    }
}
