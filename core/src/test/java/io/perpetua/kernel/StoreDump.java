package io.perpetua.kernel;

import io.perpetua.spi.Backend;
import io.perpetua.spi.WriteSet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * A store's records, names and class descriptors as text, one per line, read and written
 * through the backend SPI: how the stores that the record format tests read were kept as
 * written by an earlier version of Perpetua. Lines: {@code record <id> <hex>},
 * {@code name <name> <id>}, {@code descriptor <id> <hex>}; {@code #} starts a comment.
 */
final class StoreDump {
    private static final HexFormat HEX = HexFormat.of();

    private StoreDump() {
    }

    /** Writes everything a backend holds, records in id order, after a comment line. */
    static String write(Backend backend, String comment) {
        StringBuilder out = new StringBuilder("# ").append(comment).append('\n');
        long[] ids = backend.recordIds();
        Arrays.sort(ids);
        byte[][] records = backend.readMany(ids);
        for (int i = 0; i < ids.length; i++) {
            out.append("record ").append(ids[i]).append(' ').append(HEX.formatHex(records[i])).append('\n');
        }
        backend.names().forEach((name, id) -> out.append("name ").append(name).append(' ').append(id).append('\n'));
        for (Map.Entry<Integer, byte[]> e : new TreeMap<>(backend.classDescriptors()).entrySet()) {
            out.append("descriptor ").append(e.getKey()).append(' ').append(HEX.formatHex(e.getValue())).append('\n');
        }
        return out.toString();
    }

    /**
     * Writes what a dump holds into an empty backend, in one commit, after reserving ids past
     * every home id in it so that new objects do not take them.
     */
    static void load(BufferedReader in, Backend into) {
        WriteSet writes = new WriteSet();
        long maxHome = 0;
        try {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "record" -> {
                        long id = Long.parseLong(f[1]);
                        writes.put(id, HEX.parseHex(f[2]));
                        maxHome = Math.max(maxHome, Satellites.home(id));
                    }
                    case "name" -> writes.bind(f[1], Long.parseLong(f[2]));
                    case "descriptor" -> writes.classDescriptor(Integer.parseInt(f[1]), HEX.parseHex(f[2]));
                    default -> throw new IllegalArgumentException("not a dump line: " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (maxHome > 0) {
            into.allocateIds(Math.toIntExact(maxHome)); // an empty backend hands out 1 to maxHome
        }
        into.commit(writes);
    }
}
