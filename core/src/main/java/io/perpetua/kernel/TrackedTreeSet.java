package io.perpetua.kernel;

import io.perpetua.runtime.InheritedViews;

import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;

/** A {@link TreeSet} that notes possible changes; see {@link Tracked}. */
final class TrackedTreeSet<E> extends TreeSet<E> implements Tracked {
    private static final long serialVersionUID = 1L;
    private transient boolean touched;

    TrackedTreeSet(Comparator<? super E> comparator) {
        super(comparator);
    }

    @Override public boolean $perpetua$touched() { return touched; }
    @Override public void $perpetua$untouch() { touched = false; }
    @Override public void $perpetua$touch() { touched = true; }
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        TreeSet<E> plain = new TreeSet<>(comparator());
        plain.addAll(this);
        return plain;
    }

    @Override public boolean add(E e) { touched = true; return super.add(e); }
    @Override public boolean addAll(Collection<? extends E> c) { touched = true; return super.addAll(c); }
    @Override public boolean remove(Object o) { touched = true; return super.remove(o); }
    @Override public boolean removeAll(Collection<?> c) { touched = true; return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { touched = true; return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { touched = true; return super.removeIf(filter); }
    @Override public void clear() { touched = true; super.clear(); }
    @Override public E pollFirst() { touched = true; return super.pollFirst(); }
    @Override public E pollLast() { touched = true; return super.pollLast(); }
    @Override public Iterator<E> iterator() { return InheritedViews.iterator(this, super.iterator()); }
    @Override public Iterator<E> descendingIterator() { return InheritedViews.iterator(this, super.descendingIterator()); }
    @Override public NavigableSet<E> descendingSet() { touched = true; return super.descendingSet(); }
    @Override public NavigableSet<E> headSet(E to, boolean inclusive) { touched = true; return super.headSet(to, inclusive); }
    @Override public SortedSet<E> headSet(E to) { touched = true; return super.headSet(to); }
    @Override public NavigableSet<E> tailSet(E from, boolean inclusive) { touched = true; return super.tailSet(from, inclusive); }
    @Override public SortedSet<E> tailSet(E from) { touched = true; return super.tailSet(from); }
    @Override public NavigableSet<E> subSet(E from, boolean fromInclusive, E to, boolean toInclusive) {
        touched = true;
        return super.subSet(from, fromInclusive, to, toInclusive);
    }
    @Override public SortedSet<E> subSet(E from, E to) { touched = true; return super.subSet(from, to); }
}
