package corpus.inherited;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Stack;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** One class of the application extending each JDK collection and map the agent supports, each with a field. */
public final class Extending {
    private Extending() {
    }

    public static class OfArrayList extends ArrayList<String> { int mark = 1; }
    public static class OfLinkedList extends LinkedList<String> { int mark = 2; }
    public static class OfArrayDeque extends ArrayDeque<String> { int mark = 3; }
    public static class OfHashSet extends HashSet<String> { int mark = 4; }
    public static class OfLinkedHashSet extends LinkedHashSet<String> { int mark = 5; }
    public static class OfTreeSet extends TreeSet<String> { int mark = 6; }
    public static class OfPriorityQueue extends PriorityQueue<String> { int mark = 7; }
    public static class OfVector extends Vector<String> { int mark = 8; }
    public static class OfStack extends Stack<String> { int mark = 9; }
    public static class OfCopyOnWriteArrayList extends CopyOnWriteArrayList<String> { int mark = 10; }
    public static class OfHashMap extends HashMap<String, String> { int mark = 11; }
    public static class OfLinkedHashMap extends LinkedHashMap<String, String> { int mark = 12; }
    public static class OfTreeMap extends TreeMap<String, String> { int mark = 13; }
    public static class OfConcurrentHashMap extends ConcurrentHashMap<String, String> { int mark = 14; }

    /** @return one filled instance of each class above */
    public static List<Object> all() {
        List<Object> all = new ArrayList<>();
        for (Collection<String> c : List.<Collection<String>>of(new OfArrayList(), new OfLinkedList(), new OfArrayDeque(),
                new OfHashSet(), new OfLinkedHashSet(), new OfTreeSet(), new OfPriorityQueue(), new OfVector(),
                new OfStack(), new OfCopyOnWriteArrayList())) {
            c.addAll(List.of("b", "a", "c"));
            all.add(c);
        }
        for (Map<String, String> m : List.<Map<String, String>>of(new OfHashMap(), new OfLinkedHashMap(), new OfTreeMap(),
                new OfConcurrentHashMap())) {
            m.put("b", "2");
            m.put("a", "1");
            all.add(m);
        }
        return all;
    }
}
