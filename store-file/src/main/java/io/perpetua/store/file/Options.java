package io.perpetua.store.file;

import io.perpetua.spi.Backends;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A file store's settings; see {@link FileBackendProvider} for what each means.
 *
 * @param sync fsync on every commit and id allocation
 * @param segmentSize the size at which a segment file is closed and the next one begun
 * @param checkpointBytes how much log after the last checkpoint makes the next one due
 * @param autoCompact compact in the background when garbage passes the ratio
 * @param garbageRatio the share of a segment that must be garbage before it is compacted
 */
record Options(boolean sync, long segmentSize, long checkpointBytes, boolean autoCompact, double garbageRatio) {
    static final Options DEFAULT = new Options(true, 64L << 20, 32L << 20, true, 0.5);

    Options {
        if (segmentSize < 4096 || segmentSize > (1L << 38)) {
            throw new IllegalArgumentException("segmentSize must be between 4k and 256g: " + segmentSize);
        }
        if (checkpointBytes < 1) {
            throw new IllegalArgumentException("checkpointBytes must be positive: " + checkpointBytes);
        }
        if (!(garbageRatio > 0 && garbageRatio <= 1)) {
            throw new IllegalArgumentException("garbageRatio must be in (0, 1]: " + garbageRatio);
        }
    }

    /** Takes the options this store knows from {@code given} and rejects the rest. */
    static Options parse(Map<String, String> given) {
        Map<String, String> options = new HashMap<>(given);
        boolean sync = Backends.booleanOption(options, "sync", DEFAULT.sync);
        long segmentSize = sizeOption(options, "segmentSize", DEFAULT.segmentSize);
        long checkpointBytes = sizeOption(options, "checkpointBytes", DEFAULT.checkpointBytes);
        boolean autoCompact = Backends.booleanOption(options, "autoCompact", DEFAULT.autoCompact);
        double garbageRatio = DEFAULT.garbageRatio;
        String ratio = options.remove("garbageRatio");
        if (ratio != null) {
            try {
                garbageRatio = Double.parseDouble(ratio);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("option garbageRatio takes a number in (0, 1], not \"" + ratio + "\"");
            }
        }
        Backends.rejectUnknownOptions("file", options, "sync", "segmentSize", "checkpointBytes", "autoCompact",
                "garbageRatio");
        return new Options(sync, segmentSize, checkpointBytes, autoCompact, garbageRatio);
    }

    /** A byte count, optionally with a binary suffix {@code k}, {@code m} or {@code g}. */
    private static long sizeOption(Map<String, String> options, String key, long defaultValue) {
        String v = options.remove(key);
        if (v == null) {
            return defaultValue;
        }
        String s = v.trim().toLowerCase(Locale.ROOT);
        int shift = 0;
        if (s.endsWith("k")) {
            shift = 10;
        } else if (s.endsWith("m")) {
            shift = 20;
        } else if (s.endsWith("g")) {
            shift = 30;
        }
        if (shift > 0) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long n = Long.parseLong(s);
            if (n < 0 || n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + key + " takes a byte count such as 1048576 or 64m, not \""
                    + v + "\"");
        }
    }

    Options withSync(boolean value) {
        return new Options(value, segmentSize, checkpointBytes, autoCompact, garbageRatio);
    }
}
