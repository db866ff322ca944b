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
    /** The store that read it, told of the first change after each commit ({@link Kernel#firstTouch}). */
    private transient Kernel owner;

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
        return new ArrayList<>(this);
    }

    @Override public boolean add(E e) { $perpetua$touch(); return super.add(e); }
    @Override public void add(int index, E e) { $perpetua$touch(); super.add(index, e); }
    @Override public boolean addAll(Collection<? extends E> c) { $perpetua$touch(); return super.addAll(c); }
    @Override public boolean addAll(int index, Collection<? extends E> c) { $perpetua$touch(); return super.addAll(index, c); }
    @Override public E set(int index, E e) { $perpetua$touch(); return super.set(index, e); }
    @Override public E remove(int index) { $perpetua$touch(); return super.remove(index); }
    @Override public boolean remove(Object o) { $perpetua$touch(); return super.remove(o); }
    @Override public boolean removeAll(Collection<?> c) { $perpetua$touch(); return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { $perpetua$touch(); return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { $perpetua$touch(); return super.removeIf(filter); }
    @Override public void replaceAll(UnaryOperator<E> operator) { $perpetua$touch(); super.replaceAll(operator); }
    @Override public void sort(Comparator<? super E> c) { $perpetua$touch(); super.sort(c); }
    @Override public void clear() { $perpetua$touch(); super.clear(); }
    @Override protected void removeRange(int from, int to) { $perpetua$touch(); super.removeRange(from, to); }
    @Override public Iterator<E> iterator() { return io.perpetua.runtime.InheritedViews.iterator(this, super.iterator()); }
    @Override public ListIterator<E> listIterator() { return io.perpetua.runtime.InheritedViews.listIterator(this, super.listIterator()); }
    @Override public ListIterator<E> listIterator(int index) { return io.perpetua.runtime.InheritedViews.listIterator(this, super.listIterator(index)); }
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
