package io.perpetua.kernel;

import io.perpetua.runtime.InheritedViews;

import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.function.Predicate;

/** A {@link HashSet} that notes possible changes; see {@link Tracked}. */
final class TrackedHashSet<E> extends HashSet<E> implements Tracked {
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
        return new HashSet<>(this);
    }

    @Override public boolean add(E e) { $perpetua$touch(); return super.add(e); }
    @Override public boolean addAll(Collection<? extends E> c) { $perpetua$touch(); return super.addAll(c); }
    @Override public boolean remove(Object o) { $perpetua$touch(); return super.remove(o); }
    @Override public boolean removeAll(Collection<?> c) { $perpetua$touch(); return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { $perpetua$touch(); return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { $perpetua$touch(); return super.removeIf(filter); }
    @Override public void clear() { $perpetua$touch(); super.clear(); }
    @Override public Iterator<E> iterator() { return InheritedViews.iterator(this, super.iterator()); }
}
