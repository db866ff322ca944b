package io.perpetua.benchmarks.oo1;

import java.util.Locale;

/** The OO1 database sizes (spec: {@code shared/design/oo1.md}). */
public enum Size {
    /** JSPIN's extra size. */
    TINY(2_000),
    /** Fits in memory. */
    SMALL(20_000),
    /** JSPIN could not load it. */
    LARGE(200_000);

    /** Number of parts; connections are three times as many. */
    public final int parts;

    Size(int parts) {
        this.parts = parts;
    }

    /** @return the lower-case name used on the command line and in file names */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param id {@code tiny}, {@code small} or {@code large}
     * @return the size
     * @throws IllegalArgumentException for any other name
     */
    public static Size of(String id) {
        for (Size s : values()) {
            if (s.id().equals(id.trim().toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown size '" + id + "' (tiny, small, large)");
    }
}
