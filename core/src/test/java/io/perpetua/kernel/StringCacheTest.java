package io.perpetua.kernel;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StringCacheTest {

    private static byte[] encode(String s) {
        ByteOut out = new ByteOut(16);
        out.writeString(s);
        return out.toByteArray();
    }

    private static String decode(byte[] record, StringCache cache) {
        return new ByteIn(record).readString(cache);
    }

    @Test
    void decodesEveryStringAsWritten() {
        StringCache cache = new StringCache();
        String thirtyTwo = "x".repeat(StringCache.MAX_LENGTH);
        // "Aa" and "BB" have the same hash code, so they share a slot and must not be confused
        List<String> strings = List.of("", "a", "part-type3", "Aa", "BB", "Aa", thirtyTwo, thirtyTwo + "y",
                "na\u00efve", "\u65e5\u672c", "part-type3", "BB");
        for (String s : strings) {
            assertEquals(s, decode(encode(s), cache));
            assertEquals(s, decode(encode(s), null));
        }
    }

    @Test
    void aShortStringReadTwiceIsOneObject() {
        StringCache cache = new StringCache();
        String first = decode(encode("part-type3"), cache);
        String again = decode(encode("part-type3"), cache);
        assertSame(first, again);
        String longer = "y".repeat(StringCache.MAX_LENGTH + 1);
        assertNotSame(decode(encode(longer), cache), decode(encode(longer), cache), "long strings are not cached");
        assertNotSame(decode(encode("part-type3"), null), decode(encode("part-type3"), null));
    }

    @Test
    void aNonAsciiByteInAnAsciiStringIsMalformed() {
        byte[] record = encode("abc");
        record[record.length - 1] = (byte) 0xE9;
        ByteIn.MalformedRecord e = assertThrows(ByteIn.MalformedRecord.class, () -> decode(record, new StringCache()));
        assertTrue(e.getMessage().contains("non-ASCII"), e.getMessage());
        assertThrows(ByteIn.MalformedRecord.class, () -> decode(record, null));
    }
}
