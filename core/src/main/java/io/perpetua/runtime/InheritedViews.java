package io.perpetua.runtime;

import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.ListIterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The iterators and views a rewritten class that extends a JDK collection or map
 * ({@link PersistentClasses#inheritedContainer}) hands out: the JDK's own, wrapped so that a
 * change made through them ({@code remove}, {@code set}, {@code add}, an entry's
 * {@code setValue}, a {@code pollFirst}) marks the object dirty first, while reading through them
 * marks nothing. So a {@code for} loop over such an object, or its {@code toString}, does not
 * make the next commit write it. The generated overrides of {@code iterator()},
 * {@code listIterator()}, {@code keySet()}, {@code values()}, {@code entrySet()} and the
 * navigable key and descending sets call these after the read check. The kernel's tracked
 * collections ({@link Owner}) hand out the same wrappers, which note a change instead.
 * A wrapper is a new object each call; equality, hash code and string form are the view's.
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
        return new CheckedNavigableSet<>(owner, view);
    }

    /** @see #entrySet(Persistent, Set) */
    public static <K, V> Set<Map.Entry<K, V>> entrySet(Owner owner, Set<Map.Entry<K, V>> view) {
        return new CheckedEntrySet<>(owner, view);
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
        return new CheckedNavigableSet<>(owner, view);
    }

    /**
     * @param owner the map the view shows, not null
     * @param view the map's JDK entry set, not null
     * @return the view, whose changes (and its entries' {@code setValue}) mark the owner dirty first
     */
    public static <K, V> Set<Map.Entry<K, V>> entrySet(Persistent owner, Set<Map.Entry<K, V>> view) {
        return new CheckedEntrySet<>(owner, view);
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

    /** Reads go to the view; changes mark the owner dirty first; its iterator is a {@link CheckedIterator}. */
    private static class CheckedCollection<E> extends AbstractCollection<E> {
        final Object owner;
        final Collection<E> view;

        CheckedCollection(Object owner, Collection<E> view) {
            this.owner = owner;
            this.view = view;
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
