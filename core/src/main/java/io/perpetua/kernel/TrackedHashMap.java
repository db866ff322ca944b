package io.perpetua.kernel;

import io.perpetua.runtime.InheritedViews;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/** A {@link HashMap} that notes possible changes; see {@link Tracked}. */
final class TrackedHashMap<K, V> extends HashMap<K, V> implements Tracked {
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
    @Override public java.util.Iterator<?> $perpetua$contents() { return super.entrySet().iterator(); }

    private Object writeReplace() {
        if (Containers.findingWrapped()) {
            return this; // the finder wants this object, not a copy: see Containers#wrapped
        }
        return new HashMap<>(this);
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
    @Override public Set<K> keySet() { return InheritedViews.set(this, super.keySet()); }
    @Override public Collection<V> values() { return InheritedViews.collection(this, super.values()); }
    @Override public Set<Map.Entry<K, V>> entrySet() { return InheritedViews.entrySet(this, super.entrySet()); }
}
