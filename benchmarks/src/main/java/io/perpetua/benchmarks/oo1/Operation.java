package io.perpetua.benchmarks.oo1;

import java.util.Locale;

/** The timed OO1 operations, in the order a row runs them (insert changes the database: last). */
public enum Operation {
    /** 1,000 random parts fetched. */
    LOOKUP("lookup"),
    /** 7 hops over outgoing connections from a random part: 3,280 visits. */
    TRAVERSAL("traversal"),
    /** 7 hops over incoming connections from a random part; the visit count varies. */
    REVERSE("reverse traversal"),
    /** 100 new parts with 3 connections each, index update and durable commit. */
    INSERT("insert");

    /** Parts per lookup run. */
    public static final int LOOKUP_PARTS = 1000;
    /** Hops per traversal. */
    public static final int HOPS = 7;

    /** Name for tables. */
    public final String title;

    Operation(String title) {
        this.title = title;
    }

    /** @return the lower-case id used in files and on the command line */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
