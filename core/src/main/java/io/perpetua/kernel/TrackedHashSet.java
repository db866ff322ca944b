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

    @Override public boolean $perpetua$touched() { return touched; }
    @Override public void $perpetua$untouch() { touched = false; }
    @Override public void $perpetua$touch() { touched = true; }
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        return new HashSet<>(this);
    }

    @Override public boolean add(E e) { touched = true; return super.add(e); }
    @Override public boolean addAll(Collection<? extends E> c) { touched = true; return super.addAll(c); }
    @Override public boolean remove(Object o) { touched = true; return super.remove(o); }
    @Override public boolean removeAll(Collection<?> c) { touched = true; return super.removeAll(c); }
    @Override public boolean retainAll(Collection<?> c) { touched = true; return super.retainAll(c); }
    @Override public boolean removeIf(Predicate<? super E> filter) { touched = true; return super.removeIf(filter); }
    @Override public void clear() { touched = true; super.clear(); }
    @Override public Iterator<E> iterator() { return InheritedViews.iterator(this, super.iterator()); }
}
