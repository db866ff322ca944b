package io.perpetua.kernel;

import io.perpetua.runtime.InheritedViews;

import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/** A {@link TreeMap} that notes possible changes; see {@link Tracked}. */
final class TrackedTreeMap<K, V> extends TreeMap<K, V> implements Tracked {
    private static final long serialVersionUID = 1L;
    private transient boolean touched;
    /** The store that read it, told of the first change after each commit ({@link Kernel#firstTouch}). */
    private transient Kernel owner;

    TrackedTreeMap(Comparator<? super K> comparator) {
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
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.entrySet().iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        TreeMap<K, V> plain = new TreeMap<>(comparator());
        plain.putAll(this);
        return plain;
    }

    @Override public V put(K key, V value) { $perpetua$touch(); return super.put(key, value); }
    @Override public void putAll(Map<? extends K, ? extends V> m) { $perpetua$touch(); super.putAll(m); }
    @Override public V putIfAbsent(K key, V value) { $perpetua$touch(); return super.putIfAbsent(key, value); }
    @Override public V remove(Object key) { $perpetua$touch(); return super.remove(key); }
    @Override public boolean remove(Object key, Object value) { $perpetua$touch(); return super.remove(key, value); }
    @Override public boolean replace(K key, V oldValue, V newValue) { $perpetua$touch(); return super.replace(key, oldValue, newValue); }
    @Override public V replace(K key, V value) { $perpetua$touch(); return super.replace(key, value); }
    @Override public void replaceAll(BiFunction<? super K, ? super V, ? extends V> f) { $perpetua$touch(); super.replaceAll(f); }
    @Override public V computeIfAbsent(K key, Function<? super K, ? extends V> f) { $perpetua$touch(); return super.computeIfAbsent(key, f); }
    @Override public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> f) { $perpetua$touch(); return super.computeIfPresent(key, f); }
    @Override public V compute(K key, BiFunction<? super K, ? super V, ? extends V> f) { $perpetua$touch(); return super.compute(key, f); }
    @Override public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> f) { $perpetua$touch(); return super.merge(key, value, f); }
    @Override public void clear() { $perpetua$touch(); super.clear(); }
    @Override public Map.Entry<K, V> pollFirstEntry() { $perpetua$touch(); return super.pollFirstEntry(); }
    @Override public Map.Entry<K, V> pollLastEntry() { $perpetua$touch(); return super.pollLastEntry(); }
    @Override public Set<K> keySet() { return navigableKeySet(); }
    @Override public Collection<V> values() { return InheritedViews.collection(this, super.values()); }
    @Override public Set<Map.Entry<K, V>> entrySet() { return InheritedViews.entrySet(this, super.entrySet()); }
    @Override public NavigableSet<K> navigableKeySet() { return InheritedViews.navigableSet(this, super.navigableKeySet()); }
    @Override public NavigableSet<K> descendingKeySet() { return InheritedViews.navigableSet(this, super.descendingKeySet()); }
    // the views of a range or order: wrapped, so that a change through one kept across a commit is noted
    @Override public NavigableMap<K, V> descendingMap() { return InheritedViews.navigableMap(this, super.descendingMap()); }
    @Override public NavigableMap<K, V> headMap(K to, boolean inclusive) { return InheritedViews.navigableMap(this, super.headMap(to, inclusive)); }
    @Override public SortedMap<K, V> headMap(K to) { return headMap(to, false); }
    @Override public NavigableMap<K, V> tailMap(K from, boolean inclusive) { return InheritedViews.navigableMap(this, super.tailMap(from, inclusive)); }
    @Override public SortedMap<K, V> tailMap(K from) { return tailMap(from, true); }
    @Override public NavigableMap<K, V> subMap(K from, boolean fromInclusive, K to, boolean toInclusive) {
        return InheritedViews.navigableMap(this, super.subMap(from, fromInclusive, to, toInclusive));
    }
    @Override public SortedMap<K, V> subMap(K from, K to) { return subMap(from, true, to, false); }
}
