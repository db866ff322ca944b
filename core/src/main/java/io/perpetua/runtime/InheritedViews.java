package io.perpetua.runtime;

import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The iterators and views a rewritten class that extends a JDK collection or map
 * ({@link PersistentClasses#inheritedContainer}) hands out: the JDK's own, wrapped so that a
 * change made through them ({@code remove}, {@code set}, {@code add}, an entry's
 * {@code setValue}, a {@code pollFirst}) marks the object dirty first, while reading through them
 * marks nothing. So a {@code for} loop over such an object, or its {@code toString}, does not
 * make the next commit write it. The generated overrides of {@code iterator()},
 * {@code listIterator()}, {@code keySet()}, {@code values()}, {@code entrySet()}, the
 * navigable key and descending sets, the range views of sorted sets and maps and
 * {@code subList} call these after the read check. The kernel's tracked collections
 * ({@link Owner}) hand out the same wrappers, which note a change instead. A wrapper is a new
 * object each call (a view already wrapped for the same owner is returned as it is: a JDK
 * method may make its view through another that was wrapped); equality, hash code and string
 * form are the view's.
 * Not thread-safe, like the views they wrap.
 */
public final class InheritedViews {
    private InheritedViews() {
    }

    /**
     * A JDK collection or map subclass that notes its own changes (the kernel's tracked
     * collections, which it reads from a store in place of the JDK's): its views and iterators,
     * wrapped by the methods taking one, note a change made through them, so that a view kept
     * across a commit and changed after it is seen by the next commit.
     */
    public interface Owner {
        /** Notes that the collection may change: called before a change made through a view. */
        void $perpetua$touch();
    }

    /** @see #iterator(Persistent, Iterator) */
    public static <E> Iterator<E> iterator(Owner owner, Iterator<E> it) {
        return new CheckedIterator<>(owner, it);
    }

    /** @see #listIterator(Persistent, ListIterator) */
    public static <E> ListIterator<E> listIterator(Owner owner, ListIterator<E> it) {
        return new CheckedListIterator<>(owner, it);
    }

    /** @see #collection(Persistent, Collection) */
    public static <E> Collection<E> collection(Owner owner, Collection<E> view) {
        return new CheckedCollection<>(owner, view);
    }

    /** @see #set(Persistent, Set) */
    public static <E> Set<E> set(Owner owner, Set<E> view) {
        return new CheckedSet<>(owner, view);
    }

    /** @see #navigableSet(Persistent, NavigableSet) */
    public static <E> NavigableSet<E> navigableSet(Owner owner, NavigableSet<E> view) {
        return checkedNavigableSet(owner, view);
    }

    /** @see #entrySet(Persistent, Set) */
    public static <K, V> Set<Map.Entry<K, V>> entrySet(Owner owner, Set<Map.Entry<K, V>> view) {
        return new CheckedEntrySet<>(owner, view);
    }

    /** @see #list(Persistent, List) */
    public static <E> List<E> list(Owner owner, List<E> view) {
        return checkedList(owner, view);
    }

    /** @see #sortedSet(Persistent, SortedSet) */
    public static <E> SortedSet<E> sortedSet(Owner owner, SortedSet<E> view) {
        return checkedSortedSet(owner, view);
    }

    /** @see #navigableMap(Persistent, NavigableMap) */
    public static <K, V> NavigableMap<K, V> navigableMap(Owner owner, NavigableMap<K, V> view) {
        return checkedNavigableMap(owner, view);
    }

    /** @see #sortedMap(Persistent, SortedMap) */
    public static <K, V> SortedMap<K, V> sortedMap(Owner owner, SortedMap<K, V> view) {
        return checkedSortedMap(owner, view);
    }

    /** Tells the owner a change is about to be made through one of its views. */
    private static void beforeChange(Object owner) {
        if (owner instanceof Persistent p) {
            Residency.beforeWrite(p);
        } else {
            ((Owner) owner).$perpetua$touch();
        }
    }

    /**
     * @param owner the object the iterator iterates, not null
     * @param it its JDK iterator, not null
     * @return an iterator whose {@code remove} marks the owner dirty first
     */
    public static <E> Iterator<E> iterator(Persistent owner, Iterator<E> it) {
        return new CheckedIterator<>(owner, it);
    }

    /**
     * @param owner the list the iterator iterates, not null
     * @param it its JDK list iterator, not null
     * @return a list iterator whose {@code remove}, {@code set} and {@code add} mark the owner dirty first
     */
    public static <E> ListIterator<E> listIterator(Persistent owner, ListIterator<E> it) {
        return new CheckedListIterator<>(owner, it);
    }

    /**
     * @param owner the map or collection the view shows, not null
     * @param view a JDK collection view (a map's values), not null
     * @return the view, whose changes mark the owner dirty first
     */
    public static <E> Collection<E> collection(Persistent owner, Collection<E> view) {
        return new CheckedCollection<>(owner, view);
    }

    /**
     * @param owner the map the view shows, not null
     * @param view a JDK set view (a map's key set), not null
     * @return the view, whose changes mark the owner dirty first
     */
    public static <E> Set<E> set(Persistent owner, Set<E> view) {
        return new CheckedSet<>(owner, view);
    }

    /**
     * @param owner the sorted map or set the view shows, not null
     * @param view a JDK navigable set view (a sorted map's key set, a sorted set's descending set), not null
     * @return the view, whose changes (and those of the views it gives) mark the owner dirty first
     */
    public static <E> NavigableSet<E> navigableSet(Persistent owner, NavigableSet<E> view) {
        return checkedNavigableSet(owner, view);
    }

    /**
     * @param owner the map the view shows, not null
     * @param view the map's JDK entry set, not null
     * @return the view, whose changes (and its entries' {@code setValue}) mark the owner dirty first
     */
    public static <K, V> Set<Map.Entry<K, V>> entrySet(Persistent owner, Set<Map.Entry<K, V>> view) {
        return new CheckedEntrySet<>(owner, view);
    }

    /**
     * @param owner the list the view shows part of, not null
     * @param view its JDK sub-list, not null
     * @return the view, whose changes (and those of its iterators and sub-lists) mark the owner dirty first
     */
    public static <E> List<E> list(Persistent owner, List<E> view) {
        return checkedList(owner, view);
    }

    /**
     * @param owner the sorted set the view shows part of, not null
     * @param view its JDK head, tail or sub set, not null
     * @return the view, checked as {@link #navigableSet(Persistent, NavigableSet)} checks one; a
     *         view that is not a navigable set marks the owner dirty now instead
     */
    public static <E> SortedSet<E> sortedSet(Persistent owner, SortedSet<E> view) {
        return checkedSortedSet(owner, view);
    }

    /**
     * @param owner the sorted map the view shows (part of), not null
     * @param view its JDK head, tail, sub or descending map, not null
     * @return the view, whose changes (and those of its entries and the views it gives) mark the owner dirty first
     */
    public static <K, V> NavigableMap<K, V> navigableMap(Persistent owner, NavigableMap<K, V> view) {
        return checkedNavigableMap(owner, view);
    }

    /**
     * @param owner the sorted map the view shows part of, not null
     * @param view its JDK head, tail or sub map, not null
     * @return the view, checked as {@link #navigableMap(Persistent, NavigableMap)} checks one; a
     *         view that is not a navigable map marks the owner dirty now instead
     */
    public static <K, V> SortedMap<K, V> sortedMap(Persistent owner, SortedMap<K, V> view) {
        return checkedSortedMap(owner, view);
    }

    private static <E> List<E> checkedList(Object owner, List<E> view) {
        if (view instanceof CheckedList<E> checked && checked.owner == owner) {
            return view;
        }
        return view instanceof RandomAccess ? new CheckedRandomAccessList<>(owner, view) : new CheckedList<>(owner, view);
    }

    private static <E> SortedSet<E> checkedSortedSet(Object owner, SortedSet<E> view) {
        if (view instanceof NavigableSet<E> nav) {
            return checkedNavigableSet(owner, nav);
        }
        beforeChange(owner); // no JDK class the agent rewrites on gives one; noted now, as before
        return view;
    }

    private static <E> NavigableSet<E> checkedNavigableSet(Object owner, NavigableSet<E> view) {
        if (view instanceof CheckedNavigableSet<E> checked && checked.owner == owner) {
            return view;
        }
        return new CheckedNavigableSet<>(owner, view);
    }

    private static <K, V> NavigableMap<K, V> checkedNavigableMap(Object owner, NavigableMap<K, V> view) {
        if (view instanceof CheckedNavigableMap<K, V> checked && checked.owner == owner) {
            return view;
        }
        return new CheckedNavigableMap<>(owner, view);
    }

    private static <K, V> SortedMap<K, V> checkedSortedMap(Object owner, SortedMap<K, V> view) {
        if (view instanceof NavigableMap<K, V> nav) {
            return checkedNavigableMap(owner, nav);
        }
        beforeChange(owner);
        return view;
    }

    private static class CheckedIterator<E> implements Iterator<E> {
        final Object owner;
        private final Iterator<E> it;

        CheckedIterator(Object owner, Iterator<E> it) {
            this.owner = owner;
            this.it = it;
        }

        @Override
        public boolean hasNext() {
            return it.hasNext();
        }

        @Override
        public E next() {
            return it.next();
        }

        @Override
        public void remove() {
            beforeChange(owner);
            it.remove();
        }

        @Override
        public void forEachRemaining(Consumer<? super E> action) {
            it.forEachRemaining(action);
        }
    }

    private static final class CheckedListIterator<E> extends CheckedIterator<E> implements ListIterator<E> {
        private final ListIterator<E> it;

        CheckedListIterator(Object owner, ListIterator<E> it) {
            super(owner, it);
            this.it = it;
        }

        @Override
        public boolean hasPrevious() {
            return it.hasPrevious();
        }

        @Override
        public E previous() {
            return it.previous();
        }

        @Override
        public int nextIndex() {
            return it.nextIndex();
        }

        @Override
        public int previousIndex() {
            return it.previousIndex();
        }

        @Override
        public void set(E e) {
            beforeChange(owner);
            it.set(e);
        }

        @Override
        public void add(E e) {
            beforeChange(owner);
            it.add(e);
        }
    }

    /**
     * Reads go to the view; changes mark the owner dirty first; its iterator is a
     * {@link CheckedIterator}. Serialized, it is the view it wraps (a {@code TreeSet}'s head set
     * is serializable, a {@code HashMap}'s key set is not), without the owner.
     */
    private static class CheckedCollection<E> extends AbstractCollection<E> implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        final transient Object owner;
        final transient Collection<E> view;

        CheckedCollection(Object owner, Collection<E> view) {
            this.owner = owner;
            this.view = view;
        }

        /** Protected, so that serialization finds it in the subclasses too. */
        protected Object writeReplace() {
            return view;
        }

        @Override
        public Iterator<E> iterator() {
            return new CheckedIterator<>(owner, view.iterator());
        }

        @Override
        public int size() {
            return view.size();
        }

        @Override
        public boolean isEmpty() {
            return view.isEmpty();
        }

        @Override
        public boolean contains(Object o) {
            return view.contains(o);
        }

        @Override
        public Object[] toArray() {
            return view.toArray();
        }

        @Override
        public <T> T[] toArray(T[] a) {
            return view.toArray(a);
        }

        @Override
        public void forEach(Consumer<? super E> action) {
            view.forEach(action);
        }

        @Override
        public boolean add(E e) {
            beforeChange(owner);
            return view.add(e);
        }

        @Override
        public boolean remove(Object o) {
            beforeChange(owner);
            return view.remove(o);
        }

        @Override
        public boolean addAll(Collection<? extends E> c) {
            beforeChange(owner);
            return view.addAll(c);
        }

        @Override
        public boolean removeAll(Collection<?> c) {
            beforeChange(owner);
            return view.removeAll(c);
        }

        @Override
        public boolean retainAll(Collection<?> c) {
            beforeChange(owner);
            return view.retainAll(c);
        }

        @Override
        public boolean removeIf(Predicate<? super E> filter) {
            beforeChange(owner);
            return view.removeIf(filter);
        }

        @Override
        public void clear() {
            beforeChange(owner);
            view.clear();
        }

        @Override
        public String toString() {
            return view.toString();
        }
    }

    private static class CheckedSet<E> extends CheckedCollection<E> implements Set<E> {
        CheckedSet(Object owner, Set<E> view) {
            super(owner, view);
        }

        @Override
        public boolean equals(Object o) {
            return o == this || view.equals(o);
        }

        @Override
        public int hashCode() {
            return view.hashCode();
        }
    }

    /** A navigable set: its own views and descending iterator are checked too; {@code pollFirst} and {@code pollLast} change it. */
    private static final class CheckedNavigableSet<E> extends CheckedSet<E> implements NavigableSet<E> {
        private final NavigableSet<E> nav;

        CheckedNavigableSet(Object owner, NavigableSet<E> view) {
            super(owner, view);
            this.nav = view;
        }

        @Override
        public E lower(E e) {
            return nav.lower(e);
        }

        @Override
        public E floor(E e) {
            return nav.floor(e);
        }

        @Override
        public E ceiling(E e) {
            return nav.ceiling(e);
        }

        @Override
        public E higher(E e) {
            return nav.higher(e);
        }

        @Override
        public E pollFirst() {
            beforeChange(owner);
            return nav.pollFirst();
        }

        @Override
        public E pollLast() {
            beforeChange(owner);
            return nav.pollLast();
        }

        @Override
        public NavigableSet<E> descendingSet() {
            return new CheckedNavigableSet<>(owner, nav.descendingSet());
        }

        @Override
        public Iterator<E> descendingIterator() {
            return new CheckedIterator<>(owner, nav.descendingIterator());
        }

        @Override
        public NavigableSet<E> subSet(E from, boolean fromInclusive, E to, boolean toInclusive) {
            return new CheckedNavigableSet<>(owner, nav.subSet(from, fromInclusive, to, toInclusive));
        }

        @Override
        public NavigableSet<E> headSet(E to, boolean inclusive) {
            return new CheckedNavigableSet<>(owner, nav.headSet(to, inclusive));
        }

        @Override
        public NavigableSet<E> tailSet(E from, boolean inclusive) {
            return new CheckedNavigableSet<>(owner, nav.tailSet(from, inclusive));
        }

        @Override
        public SortedSet<E> subSet(E from, E to) {
            return subSet(from, true, to, false);
        }

        @Override
        public SortedSet<E> headSet(E to) {
            return headSet(to, false);
        }

        @Override
        public SortedSet<E> tailSet(E from) {
            return tailSet(from, true);
        }

        @Override
        public Comparator<? super E> comparator() {
            return nav.comparator();
        }

        @Override
        public E first() {
            return nav.first();
        }

        @Override
        public E last() {
            return nav.last();
        }
    }

    /** A sub-list: its changes, list iterators and own sub-lists are checked. */
    private static class CheckedList<E> extends CheckedCollection<E> implements List<E> {
        private final List<E> list;

        CheckedList(Object owner, List<E> view) {
            super(owner, view);
            this.list = view;
        }

        @Override
        public E get(int index) {
            return list.get(index);
        }

        @Override
        public int indexOf(Object o) {
            return list.indexOf(o);
        }

        @Override
        public int lastIndexOf(Object o) {
            return list.lastIndexOf(o);
        }

        @Override
        public E set(int index, E element) {
            beforeChange(owner);
            return list.set(index, element);
        }

        @Override
        public void add(int index, E element) {
            beforeChange(owner);
            list.add(index, element);
        }

        @Override
        public E remove(int index) {
            beforeChange(owner);
            return list.remove(index);
        }

        @Override
        public boolean addAll(int index, Collection<? extends E> c) {
            beforeChange(owner);
            return list.addAll(index, c);
        }

        @Override
        public void replaceAll(UnaryOperator<E> operator) {
            beforeChange(owner);
            list.replaceAll(operator);
        }

        @Override
        public void sort(Comparator<? super E> c) {
            beforeChange(owner);
            list.sort(c);
        }

        @Override
        public ListIterator<E> listIterator() {
            return new CheckedListIterator<>(owner, list.listIterator());
        }

        @Override
        public ListIterator<E> listIterator(int index) {
            return new CheckedListIterator<>(owner, list.listIterator(index));
        }

        @Override
        public List<E> subList(int from, int to) {
            return checkedList(owner, list.subList(from, to));
        }

        @Override
        public boolean equals(Object o) {
            return o == this || list.equals(o);
        }

        @Override
        public int hashCode() {
            return list.hashCode();
        }
    }

    private static final class CheckedRandomAccessList<E> extends CheckedList<E> implements RandomAccess {
        CheckedRandomAccessList(Object owner, List<E> view) {
            super(owner, view);
        }
    }

    /**
     * A sorted map's range or descending view: reads go to it, changes mark the owner dirty
     * first, and the views it gives are checked too. The entries its queries return
     * ({@code firstEntry}, {@code floorEntry}...) are the JDK's snapshots, which refuse
     * {@code setValue}.
     */
    private static final class CheckedNavigableMap<K, V> implements NavigableMap<K, V>, java.io.Serializable {
        private static final long serialVersionUID = 1L;
        final transient Object owner;
        private final transient NavigableMap<K, V> map;

        CheckedNavigableMap(Object owner, NavigableMap<K, V> map) {
            this.owner = owner;
            this.map = map;
        }

        /** Serialized, it is the JDK's view (a sorted map's sub-map is serializable), without the owner. */
        private Object writeReplace() {
            return map;
        }

        // reads

        @Override public int size() { return map.size(); }
        @Override public boolean isEmpty() { return map.isEmpty(); }
        @Override public boolean containsKey(Object key) { return map.containsKey(key); }
        @Override public boolean containsValue(Object value) { return map.containsValue(value); }
        @Override public V get(Object key) { return map.get(key); }
        @Override public V getOrDefault(Object key, V defaultValue) { return map.getOrDefault(key, defaultValue); }
        @Override public void forEach(BiConsumer<? super K, ? super V> action) { map.forEach(action); }
        @Override public Comparator<? super K> comparator() { return map.comparator(); }
        @Override public K firstKey() { return map.firstKey(); }
        @Override public K lastKey() { return map.lastKey(); }
        @Override public Map.Entry<K, V> lowerEntry(K key) { return map.lowerEntry(key); }
        @Override public K lowerKey(K key) { return map.lowerKey(key); }
        @Override public Map.Entry<K, V> floorEntry(K key) { return map.floorEntry(key); }
        @Override public K floorKey(K key) { return map.floorKey(key); }
        @Override public Map.Entry<K, V> ceilingEntry(K key) { return map.ceilingEntry(key); }
        @Override public K ceilingKey(K key) { return map.ceilingKey(key); }
        @Override public Map.Entry<K, V> higherEntry(K key) { return map.higherEntry(key); }
        @Override public K higherKey(K key) { return map.higherKey(key); }
        @Override public Map.Entry<K, V> firstEntry() { return map.firstEntry(); }
        @Override public Map.Entry<K, V> lastEntry() { return map.lastEntry(); }
        @Override public boolean equals(Object o) { return o == this || map.equals(o); }
        @Override public int hashCode() { return map.hashCode(); }
        @Override public String toString() { return map.toString(); }

        // changes

        @Override public V put(K key, V value) { beforeChange(owner); return map.put(key, value); }
        @Override public void putAll(Map<? extends K, ? extends V> m) { beforeChange(owner); map.putAll(m); }
        @Override public V putIfAbsent(K key, V value) { beforeChange(owner); return map.putIfAbsent(key, value); }
        @Override public V remove(Object key) { beforeChange(owner); return map.remove(key); }
        @Override public boolean remove(Object key, Object value) { beforeChange(owner); return map.remove(key, value); }
        @Override public boolean replace(K key, V oldValue, V newValue) { beforeChange(owner); return map.replace(key, oldValue, newValue); }
        @Override public V replace(K key, V value) { beforeChange(owner); return map.replace(key, value); }
        @Override public void replaceAll(BiFunction<? super K, ? super V, ? extends V> f) { beforeChange(owner); map.replaceAll(f); }
        @Override public V computeIfAbsent(K key, Function<? super K, ? extends V> f) { beforeChange(owner); return map.computeIfAbsent(key, f); }
        @Override public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> f) { beforeChange(owner); return map.computeIfPresent(key, f); }
        @Override public V compute(K key, BiFunction<? super K, ? super V, ? extends V> f) { beforeChange(owner); return map.compute(key, f); }
        @Override public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> f) { beforeChange(owner); return map.merge(key, value, f); }
        @Override public void clear() { beforeChange(owner); map.clear(); }
        @Override public Map.Entry<K, V> pollFirstEntry() { beforeChange(owner); return map.pollFirstEntry(); }
        @Override public Map.Entry<K, V> pollLastEntry() { beforeChange(owner); return map.pollLastEntry(); }

        // views

        @Override public Set<K> keySet() { return navigableKeySet(); }
        @Override public NavigableSet<K> navigableKeySet() { return checkedNavigableSet(owner, map.navigableKeySet()); }
        @Override public NavigableSet<K> descendingKeySet() { return checkedNavigableSet(owner, map.descendingKeySet()); }
        @Override public Collection<V> values() { return new CheckedCollection<>(owner, map.values()); }
        @Override public Set<Map.Entry<K, V>> entrySet() { return new CheckedEntrySet<>(owner, map.entrySet()); }
        @Override public NavigableMap<K, V> descendingMap() { return checkedNavigableMap(owner, map.descendingMap()); }
        @Override public NavigableMap<K, V> subMap(K from, boolean fromInclusive, K to, boolean toInclusive) {
            return checkedNavigableMap(owner, map.subMap(from, fromInclusive, to, toInclusive));
        }
        @Override public NavigableMap<K, V> headMap(K to, boolean inclusive) { return checkedNavigableMap(owner, map.headMap(to, inclusive)); }
        @Override public NavigableMap<K, V> tailMap(K from, boolean inclusive) { return checkedNavigableMap(owner, map.tailMap(from, inclusive)); }
        @Override public SortedMap<K, V> subMap(K from, K to) { return subMap(from, true, to, false); }
        @Override public SortedMap<K, V> headMap(K to) { return headMap(to, false); }
        @Override public SortedMap<K, V> tailMap(K from) { return tailMap(from, true); }
    }

    /** An entry set whose entries' {@code setValue} marks the owner dirty first. */
    private static final class CheckedEntrySet<K, V> extends CheckedSet<Map.Entry<K, V>> {
        CheckedEntrySet(Object owner, Set<Map.Entry<K, V>> view) {
            super(owner, view);
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            Iterator<Map.Entry<K, V>> it = view.iterator();
            return new CheckedIterator<>(owner, it) {
                @Override
                public Map.Entry<K, V> next() {
                    return new CheckedEntry<>(owner, it.next());
                }

                @Override
                public void forEachRemaining(Consumer<? super Map.Entry<K, V>> action) {
                    it.forEachRemaining(e -> action.accept(new CheckedEntry<>(owner, e)));
                }
            };
        }

        @Override
        public void forEach(Consumer<? super Map.Entry<K, V>> action) {
            view.forEach(e -> action.accept(new CheckedEntry<>(owner, e)));
        }

        @Override
        public Object[] toArray() {
            return toArray(new Object[0]);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T[] toArray(T[] a) {
            T[] entries = view.toArray(a);
            for (int i = 0; i < entries.length && entries[i] != null; i++) {
                entries[i] = (T) new CheckedEntry<>(owner, (Map.Entry<K, V>) entries[i]);
            }
            return entries;
        }
    }

    private record CheckedEntry<K, V>(Object owner, Map.Entry<K, V> entry) implements Map.Entry<K, V> {
        @Override
        public K getKey() {
            return entry.getKey();
        }

        @Override
        public V getValue() {
            return entry.getValue();
        }

        @Override
        public V setValue(V value) {
            beforeChange(owner);
            return entry.setValue(value);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && Objects.equals(getKey(), e.getKey())
                    && Objects.equals(getValue(), e.getValue());
        }

        @Override
        public int hashCode() {
            return entry.hashCode();
        }

        @Override
        public String toString() {
            return entry.toString();
        }
    }
}
