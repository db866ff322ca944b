package io.perpetua.kernel;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/** An {@link ArrayList} that notes possible changes; see {@link Tracked}. */
final class TrackedArrayList<E> extends ArrayList<E> implements Tracked {
    private static final long serialVersionUID = 1L;
    private transient boolean touched;

    @Override public boolean $perpetua$touched() { return touched; }
    @Override public void $perpetua$untouch() { touched = false; }
    @Override public void $perpetua$touch() { touched = true; }
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        return new ArrayList<>(this);
    }

    @Override public boolean add(E e) { touched = true; return super.add(e); }
    @Override public void add(int index, E e) { touched = true; super.add(index, e); }
    @Override public boolean addAll(Collection<? extends E> c) { touched = true; return super.addAll(c); }
    @Override public boolean addAll(int index, Collection<? extends E> c) { touched = true; return super.addAll(index, c); }
    @Override public E set(int index, E e) { touched = true; return super.set(index, e); }
    @Override public E remove(int index) { touched = true; return super.remove(index); }
    @Override public boolean remove(Object o) { touched = true; return super.remove(o); }
    @Override public boolean removeAll(Collection<?> c) { touched = true; return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { touched = true; return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { touched = true; return super.removeIf(filter); }
    @Override public void replaceAll(UnaryOperator<E> operator) { touched = true; super.replaceAll(operator); }
    @Override public void sort(Comparator<? super E> c) { touched = true; super.sort(c); }
    @Override public void clear() { touched = true; super.clear(); }
    @Override protected void removeRange(int from, int to) { touched = true; super.removeRange(from, to); }
    @Override public Iterator<E> iterator() { touched = true; return super.iterator(); }
    @Override public ListIterator<E> listIterator() { touched = true; return super.listIterator(); }
    @Override public ListIterator<E> listIterator(int index) { touched = true; return super.listIterator(index); }
    @Override public List<E> subList(int from, int to) { return io.perpetua.runtime.InheritedViews.list(this, super.subList(from, to)); }

    // Java 21's SequencedCollection methods, written with Java 17's API (ArrayList overrides
    // them from 21 on, so these declarations override them there).
    public void addFirst(E e) { add(0, e); }
    public void addLast(E e) { add(e); }

    public E removeFirst() {
        if (isEmpty()) {
            throw new java.util.NoSuchElementException();
        }
        return remove(0);
    }

    public E removeLast() {
        if (isEmpty()) {
            throw new java.util.NoSuchElementException();
        }
        return remove(size() - 1);
    }
}
