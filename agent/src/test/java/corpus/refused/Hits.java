package corpus.refused;

import java.util.concurrent.atomic.LongAdder;

/** Extends LongAdder, whose sum is in Striped64's transient fields, saved by its writeReplace: refused. */
public class Hits extends LongAdder {
    String page;
}
