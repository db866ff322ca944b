package io.perpetua.kernel;

import io.perpetua.runtime.ArrayWrites;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One store's share of the array write log ({@link ArrayWrites}): what rewritten code wrote and
 * what escaped to JDK code since the store's last commit or abort took it. The log is global
 * (rewritten code does not know which store an array belongs to), so every open store gets all
 * of it and looks up what is its own. Bounded: past {@link #MAX} entries it keeps only the fact
 * that it overflowed, and the next commit compares every resident array instead. Thread-safe:
 * filled under the log's lock by whichever thread flushes it, taken under the kernel's lock.
 */
final class ArrayInbox implements ArrayWrites.Sink {
    /** Entries kept at most (written and escaped arrays, each); they are held strongly. */
    static final int MAX = 1 << 16;

    private Object[] written = new Object[64];
    private int writtenCount;
    private List<Object> escaped = new ArrayList<>();
    private boolean overflowed;

    /** What a commit or abort takes: the arrays, and whether some were dropped. */
    record Taken(Object[] written, int writtenCount, List<Object> escaped, boolean overflowed) {
    }

    @Override
    public synchronized void written(Object[] arrays, int count) {
        if (overflowed) {
            return;
        }
        if (writtenCount + count > MAX) {
            overflow();
            return;
        }
        if (writtenCount + count > written.length) {
            written = Arrays.copyOf(written, Math.max(writtenCount + count, written.length * 2));
        }
        System.arraycopy(arrays, 0, written, writtenCount, count);
        writtenCount += count;
    }

    @Override
    public synchronized void escaped(Object array) {
        if (overflowed) {
            return;
        }
        if (escaped.size() == MAX) {
            overflow();
            return;
        }
        escaped.add(array);
    }

    private void overflow() {
        overflowed = true;
        written = new Object[64];
        writtenCount = 0;
        escaped = new ArrayList<>();
    }

    /** @return everything received since the last take, which the inbox then forgets */
    synchronized Taken take() {
        Taken t = new Taken(written, writtenCount, escaped, overflowed);
        written = new Object[Math.min(Math.max(64, writtenCount), 4096)];
        writtenCount = 0;
        escaped = new ArrayList<>();
        overflowed = false;
        return t;
    }
}
