package corpus.inherited;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Classes extending JDK collections whose constructors pass the JDK's defaults spelled out
 * (insertion order, no comparator): stored like those calling the no-argument constructor.
 * And one passing an access order it is given, which may be true: refused.
 */
public final class DefaultsSpelledOut {
    private DefaultsSpelledOut() {
    }

    public static class InsertionOrdered extends LinkedHashMap<String, Integer> {
        private static final long serialVersionUID = 1L;

        public InsertionOrdered() {
            super(16, 0.75f, false);
        }
    }

    public static class NoComparatorMap extends TreeMap<String, Integer> {
        private static final long serialVersionUID = 1L;

        public NoComparatorMap() {
            super((Comparator<String>) null);
        }
    }

    public static class NoComparatorSet extends TreeSet<String> {
        private static final long serialVersionUID = 1L;

        public NoComparatorSet() {
            super((Comparator<String>) null);
        }
    }

    public static class NoComparatorQueue extends PriorityQueue<String> {
        private static final long serialVersionUID = 1L;

        public NoComparatorQueue() {
            super(11, null);
        }
    }

    public static class OrderGiven extends LinkedHashMap<String, Integer> {
        private static final long serialVersionUID = 1L;

        public OrderGiven(boolean accessOrder) {
            super(16, 0.75f, accessOrder);
        }
    }

    public static class OrderChosen extends LinkedHashMap<String, Integer> {
        private static final long serialVersionUID = 1L;

        public OrderChosen(int n) {
            super(16, 0.75f, n > 0 ? false : true);
        }
    }

    public static class ComparatorChosen extends TreeSet<String> {
        private static final long serialVersionUID = 1L;

        public ComparatorChosen(boolean reversed) {
            super(reversed ? Comparator.reverseOrder() : null);
        }
    }
}
