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

    @Override public boolean $perpetua$touched() { return touched; }
    @Override public void $perpetua$untouch() { touched = false; }
    @Override public void $perpetua$touch() { touched = true; }
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        return new ArrayDeque<>(this);
    }

    @Override public void addFirst(E e) { touched = true; super.addFirst(e); }
    @Override public void addLast(E e) { touched = true; super.addLast(e); }
    @Override public boolean offerFirst(E e) { touched = true; return super.offerFirst(e); }
    @Override public boolean offerLast(E e) { touched = true; return super.offerLast(e); }
    @Override public E removeFirst() { touched = true; return super.removeFirst(); }
    @Override public E removeLast() { touched = true; return super.removeLast(); }
    @Override public E pollFirst() { touched = true; return super.pollFirst(); }
    @Override public E pollLast() { touched = true; return super.pollLast(); }
    @Override public boolean removeFirstOccurrence(Object o) { touched = true; return super.removeFirstOccurrence(o); }
    @Override public boolean removeLastOccurrence(Object o) { touched = true; return super.removeLastOccurrence(o); }
    @Override public boolean add(E e) { touched = true; return super.add(e); }
    @Override public boolean offer(E e) { touched = true; return super.offer(e); }
    @Override public E remove() { touched = true; return super.remove(); }
    @Override public E poll() { touched = true; return super.poll(); }
    @Override public void push(E e) { touched = true; super.push(e); }
    @Override public E pop() { touched = true; return super.pop(); }
    @Override public boolean remove(Object o) { touched = true; return super.remove(o); }
    @Override public boolean addAll(Collection<? extends E> c) { touched = true; return super.addAll(c); }
    @Override public boolean removeAll(Collection<?> c) { touched = true; return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { touched = true; return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { touched = true; return super.removeIf(filter); }
    @Override public void clear() { touched = true; super.clear(); }
    @Override public Iterator<E> iterator() { return InheritedViews.iterator(this, super.iterator()); }
    @Override public Iterator<E> descendingIterator() { return InheritedViews.iterator(this, super.descendingIterator()); }
}
