package io.perpetua.kernel;

import io.perpetua.runtime.InheritedViews;

import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.function.Predicate;

/** A {@link TreeSet} that notes possible changes; see {@link Tracked}. */
final class TrackedTreeSet<E> extends TreeSet<E> implements Tracked {
    private static final long serialVersionUID = 1L;
    private transient boolean touched;
    /** The store that read it, told of the first change after each commit ({@link Kernel#firstTouch}). */
    private transient Kernel owner;

    TrackedTreeSet(Comparator<? super E> comparator) {
        super(comparator);
    }

    @Override public boolean $perpetua$touched() { return touched; }
    @Override public void $perpetua$untouch() { touched = false; }
    @Override public void $perpetua$touch() {
        if (!touched) {
            touched = true;
            Kernel.firstTouch(owner, this);
        }
    }
    @Override public void $perpetua$owner(Kernel kernel) { owner = kernel; }
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        TreeSet<E> plain = new TreeSet<>(comparator());
        plain.addAll(this);
        return plain;
    }

    @Override public boolean add(E e) { $perpetua$touch(); return super.add(e); }
    @Override public boolean addAll(Collection<? extends E> c) { $perpetua$touch(); return super.addAll(c); }
    @Override public boolean remove(Object o) { $perpetua$touch(); return super.remove(o); }
    @Override public boolean removeAll(Collection<?> c) { $perpetua$touch(); return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { $perpetua$touch(); return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { $perpetua$touch(); return super.removeIf(filter); }
    @Override public void clear() { $perpetua$touch(); super.clear(); }
    @Override public E pollFirst() { $perpetua$touch(); return super.pollFirst(); }
    @Override public E pollLast() { $perpetua$touch(); return super.pollLast(); }
    @Override public Iterator<E> iterator() { return InheritedViews.iterator(this, super.iterator()); }
    @Override public Iterator<E> descendingIterator() { return InheritedViews.iterator(this, super.descendingIterator()); }
    // the views of a range or order: wrapped, so that a change through one kept across a commit
    // is noted (Java 21's reversed() is the descending set)
    @Override public java.util.SortedSet<E> headSet(E to) { return headSet(to, false); }
    @Override public java.util.SortedSet<E> tailSet(E from) { return tailSet(from, true); }
    @Override public java.util.SortedSet<E> subSet(E from, E to) { return subSet(from, true, to, false); }
    @Override public NavigableSet<E> descendingSet() { return InheritedViews.navigableSet(this, super.descendingSet()); }
    @Override public NavigableSet<E> headSet(E to, boolean inclusive) { return InheritedViews.navigableSet(this, super.headSet(to, inclusive)); }
    @Override public NavigableSet<E> tailSet(E from, boolean inclusive) { return InheritedViews.navigableSet(this, super.tailSet(from, inclusive)); }
    @Override public NavigableSet<E> subSet(E from, boolean fromInclusive, E to, boolean toInclusive) {
        return InheritedViews.navigableSet(this, super.subSet(from, fromInclusive, to, toInclusive));
    }
}
