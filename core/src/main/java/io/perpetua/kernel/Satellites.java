package io.perpetua.kernel;

/**
 * Clustering: small objects stored inside the record of the object they hang from, so that one
 * read brings in both. JSPIN left clustering to its store (Mneme's segments); here the kernel
 * does it, because a store sees ids and bytes only.
 *
 * <h2>Which objects</h2>
 * An object becomes a <em>satellite</em> of a <em>home</em> at the commit that first writes it,
 * if it is then new, is first reached as an element of a container embedded in the home's
 * record (an array or collection that only the home refers to), its class is a leaf (no field
 * that can hold a container: {@link ClassInfo#leaf}), the home is not itself a
 * satellite, and the home has fewer than {@link #MAX} satellites. OO1's connections become
 * satellites of one of the two parts they join, so a traversal reads one record per hop rather
 * than two. Objects persisted explicitly ({@code persist}) get records of their own.
 *
 * <h2>Ids</h2>
 * Satellite {@code k} (1, 2, ...) of home {@code h} has id {@code k << SHIFT | h}: the id alone
 * says which record holds the object, so references, names and fault-ins need nothing more.
 * Homes' ids stay below {@code 1 << SHIFT}. A satellite stays in its home's record for good. A
 * record refers to a satellite by its home's id and {@code k} ({@link Tag#SATELLITE}), and to
 * its own object or one of its own satellites by {@code k} alone ({@link Tag#LOCAL}, 0 for the
 * home): as one varlong, an id above {@code 1 << SHIFT} takes six or seven bytes.
 *
 * <h2>Fault-in</h2>
 * Filling a home leaves its satellites hollow; a satellite's first touch fills it from its
 * home's record, which the kernel keeps for the homes filled or written last
 * ({@link RecentHomes}), or reads again. A change to a satellite rewrites its home's record:
 * the new and changed satellites encoded, the others copied.
 *
 * <h2>Record</h2>
 * A home's record is its own body, then, if it has satellites, a section and a trailer:
 * {@code count}, then per satellite {@code k, length, body}, and last the length of the home's
 * own body as four bytes, so that a satellite can be found without decoding its home. A record
 * without satellites is exactly what it was before satellites existed.
 */
final class Satellites {
    /** Bits of a home's id; above them, the satellite's index. */
    static final int SHIFT = 40;
    /** The largest home id. */
    static final long MAX_HOME = (1L << SHIFT) - 1;
    /**
     * Satellites per home at most. A home's record is rewritten, satellites and all, whenever
     * any of them changes: OO1's inserts, which all aim at the newest parts, committed in 8.8 ms
     * with 8 against 10.3 ms with 16 (JMH, same machine); an OO1 part holds 3 on average.
     */
    static final int MAX = 8;

    private Satellites() {
    }

    static boolean isSatellite(long id) {
        return id > MAX_HOME;
    }

    static long id(long home, int k) {
        return (long) k << SHIFT | home;
    }

    static long home(long id) {
        return id & MAX_HOME;
    }

    static int index(long id) {
        return (int) (id >>> SHIFT);
    }

    /**
     * Reads the rest of a {@link Tag#LOCAL} reference, found in the record of {@code home}.
     *
     * @return the id of the object it refers to: the home, or one of its satellites
     * @throws ByteIn.MalformedRecord if the index is out of range
     */
    static long readLocalReference(ByteIn in, long home) {
        int k = in.readVarInt();
        if (k < 0 || k > MAX) {
            throw new ByteIn.MalformedRecord("a reference to satellite " + k + " of its own record");
        }
        return k == 0 ? home : id(home, k);
    }

    /**
     * Reads the rest of a {@link Tag#SATELLITE} reference: its home's id and its index.
     *
     * @return the satellite's id
     * @throws ByteIn.MalformedRecord if either is out of range
     */
    static long readReference(ByteIn in) {
        long home = in.readVarLong();
        int k = in.readVarInt();
        if (home < 1 || home > MAX_HOME || k < 1 || k > MAX) {
            throw new ByteIn.MalformedRecord("a reference to satellite " + k + " of object #" + home);
        }
        return id(home, k);
    }

    /**
     * @param record a home's record, with a section
     * @return where the home's own body ends (the section starts): the trailer
     * @throws ByteIn.MalformedRecord if the trailer does not fit the record
     */
    static int bodyEnd(byte[] record) {
        if (record.length < 5) {
            throw new ByteIn.MalformedRecord("a home record of " + record.length + " bytes has no satellite trailer");
        }
        int end = new ByteIn(record, record.length - 4, record.length).readFixedInt();
        if (end < 1 || end >= record.length - 4) {
            throw new ByteIn.MalformedRecord("a satellite trailer points at byte " + end + " of " + record.length);
        }
        return end;
    }

    /**
     * Appends one satellite entry, its body {@code b[from, to)}; the caller writes the count
     * before the first and the trailer after the last.
     */
    static void writeSatellite(ByteOut out, int k, byte[] b, int from, int to) {
        out.writeVarInt(k);
        out.writeVarInt(to - from);
        out.writeBytes(b, from, to);
    }

    /**
     * @return the entry of satellite {@code k} in a home's record, or null if it holds none;
     *         found by skipping the entries before it (a satellite's fault-in; no allocation
     *         but the entry)
     * @throws ByteIn.MalformedRecord if the section does not decode
     */
    static Entry entry(byte[] record, int k) {
        int bodyEnd = bodyEnd(record);
        ByteIn in = new ByteIn(record, bodyEnd, record.length - 4);
        int count = count(in);
        for (int i = 0; i < count; i++) {
            int index = in.readVarInt();
            int length = length(in, index, i);
            int start = in.position();
            if (index == k) {
                return new Entry(k, start, start + length);
            }
            in.skip(length);
        }
        return null;
    }

    /**
     * @param from where the home's body ends, as its decoding found
     * @return how many satellites the home's record holds, checking that its trailer agrees
     * @throws ByteIn.MalformedRecord if it does not
     */
    static int count(byte[] record, int from) {
        if (bodyEnd(record) != from) {
            throw new ByteIn.MalformedRecord("the home's body ends at byte " + from + " but its trailer says "
                    + bodyEnd(record));
        }
        return count(new ByteIn(record, from, record.length - 4));
    }

    private static int count(ByteIn in) {
        int count = in.readVarInt();
        if (count < 1 || count > MAX) {
            throw new ByteIn.MalformedRecord("a home record with " + count + " satellites");
        }
        return count;
    }

    private static int length(ByteIn in, int k, int i) {
        int length = in.readVarInt();
        if (k < 1 || length < 1 || length > in.end() - in.position()) {
            throw new ByteIn.MalformedRecord("satellite entry " + i + " (index " + k + ", " + length
                    + " bytes) does not fit the record");
        }
        return length;
    }

    /**
     * The committed records of the homes filled or written last, by id: a home's satellites
     * stay hollow when the home is filled and are filled from its record when first touched,
     * so an object that is only looked at does not pay for decoding what hangs from it, and one
     * whose satellites are touched soon after does not read its record again; a commit that
     * rewrites a home copies its untouched satellites from it. Direct-mapped, 4,096 slots (an
     * OO1 insert rewrites about 300 homes; with 256 slots most of them were read back at
     * commit); a miss reads the record from the store. Not thread-safe: the kernel's lock.
     */
    static final class RecentHomes {
        private static final int SLOTS = 4096;
        private final long[] ids = new long[SLOTS];
        private final byte[][] records = new byte[SLOTS][];

        byte[] get(long home) {
            int slot = slot(home);
            return ids[slot] == home ? records[slot] : null;
        }

        void put(long home, byte[] record) {
            int slot = slot(home);
            ids[slot] = home;
            records[slot] = record;
        }

        private static int slot(long id) {
            return (int) ((id * 0x9E3779B97F4A7C15L) >>> 52);
        }
    }

    /** One satellite entry of a home's record: where its body is. */
    record Entry(int k, int from, int to) {
    }

    /**
     * Reads the section that starts at {@code from} (just after the home's body).
     *
     * @return the entries, in the order written
     * @throws ByteIn.MalformedRecord if the section does not decode
     */
    static Entry[] entries(byte[] record, int from) {
        int count = count(record, from);
        ByteIn in = new ByteIn(record, from, record.length - 4);
        in.readVarInt(); // the count
        Entry[] entries = new Entry[count];
        for (int i = 0; i < count; i++) {
            int k = in.readVarInt();
            int length = length(in, k, i);
            entries[i] = new Entry(k, in.position(), in.position() + length);
            in.skip(length);
        }
        if (!in.atEnd()) {
            throw new ByteIn.MalformedRecord((in.end() - in.position()) + " bytes left over after the satellites");
        }
        return entries;
    }
}
