package io.perpetua.kernel;

import io.perpetua.runtime.InheritedViews;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.function.Predicate;

/** An {@link ArrayDeque} that notes possible changes; see {@link Tracked}. */
final class TrackedArrayDeque<E> extends ArrayDeque<E> implements Tracked {
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
        return new ArrayDeque<>(this);
    }

    @Override public void addFirst(E e) { $perpetua$touch(); super.addFirst(e); }
    @Override public void addLast(E e) { $perpetua$touch(); super.addLast(e); }
    @Override public boolean offerFirst(E e) { $perpetua$touch(); return super.offerFirst(e); }
    @Override public boolean offerLast(E e) { $perpetua$touch(); return super.offerLast(e); }
    @Override public E removeFirst() { $perpetua$touch(); return super.removeFirst(); }
    @Override public E removeLast() { $perpetua$touch(); return super.removeLast(); }
    @Override public E pollFirst() { $perpetua$touch(); return super.pollFirst(); }
    @Override public E pollLast() { $perpetua$touch(); return super.pollLast(); }
    @Override public boolean removeFirstOccurrence(Object o) { $perpetua$touch(); return super.removeFirstOccurrence(o); }
    @Override public boolean removeLastOccurrence(Object o) { $perpetua$touch(); return super.removeLastOccurrence(o); }
    @Override public boolean add(E e) { $perpetua$touch(); return super.add(e); }
    @Override public boolean offer(E e) { $perpetua$touch(); return super.offer(e); }
    @Override public E remove() { $perpetua$touch(); return super.remove(); }
    @Override public E poll() { $perpetua$touch(); return super.poll(); }
    @Override public void push(E e) { $perpetua$touch(); super.push(e); }
    @Override public E pop() { $perpetua$touch(); return super.pop(); }
    @Override public boolean remove(Object o) { $perpetua$touch(); return super.remove(o); }
    @Override public boolean addAll(Collection<? extends E> c) { $perpetua$touch(); return super.addAll(c); }
    @Override public boolean removeAll(Collection<?> c) { $perpetua$touch(); return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { $perpetua$touch(); return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { $perpetua$touch(); return super.removeIf(filter); }
    @Override public void clear() { $perpetua$touch(); super.clear(); }
    @Override public Iterator<E> iterator() { return InheritedViews.iterator(this, super.iterator()); }
    @Override public Iterator<E> descendingIterator() { return InheritedViews.iterator(this, super.descendingIterator()); }
}
