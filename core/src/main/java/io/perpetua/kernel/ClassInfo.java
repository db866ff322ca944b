package io.perpetua.kernel;

import io.perpetua.runtime.HollowFactory;

import java.util.BitSet;
import java.util.List;

/**
 * What the kernel knows about one loaded class whose instances it stores with a descriptor of
 * its own (a rewritten class or a record): its current layout and descriptor, and how to make
 * an instance. Immutable; computed once per class and store.
 */
final class ClassInfo {
    final Class<?> type;
    final ClassDescriptor descriptor;
    /** The creation proxy of a rewritten concrete class; null for records and abstract classes. */
    final HollowFactory factory;
    /** For records: the canonical constructor, as a spreader taking Object[]; else null. */
    final java.lang.invoke.MethodHandle recordConstructor;
    /** For records: accessors of the components, in declaration order; else null. */
    final java.lang.invoke.MethodHandle[] recordAccessors;
    /**
     * For a rewritten class: true if no persistent field can hold a container (none is an
     * array, a collection, a map, an interface or {@code Object}), so that its instances may be
     * stored as {@link Satellites satellites}.
     */
    final boolean leaf;
    /**
     * For a rewritten class with persistent array fields: by reference-field ordinal (the
     * position among the layout's reference fields), the field's lazy marker (see
     * {@link LazyFields}), null for the other reference fields. Null if the class has none.
     */
    final Object[] lazyMarkers;
    /**
     * For a rewritten class that stores its transient fields: their positions in the layout.
     * Null for every other class.
     */
    final BitSet transientFields;
    /**
     * For a rewritten class that cannot be stored field by field because a field holds objects
     * of a class extending a JDK class with state (Guava's {@code RegularImmutableMap}, whose
     * entries extend {@code AbstractMap.SimpleImmutableEntry}), but whose Java serialization
     * replaces it ({@code writeReplace}): that method. Its objects are then stored as Java
     * serialization stores them: the record of each holds its replacement's fields
     * ({@link RecordEncoder#replacedObject}), and it is filled from what the replacement's
     * {@link #readResolve} makes of them. Null for every other class.
     */
    final java.lang.invoke.MethodHandle writeReplace;
    /** For a rewritten serializable class: its {@code readResolve}, or null if it has none. */
    final java.lang.invoke.MethodHandle readResolve;
    /**
     * Why objects of the class must not be written, or null: its name, or a field's, is the old
     * name of a declared rename, so what it wrote would be read back as the other class or
     * field ({@link ClassRegistry#renameClash}). Objects stored before still read.
     */
    final String renameClash;
    /**
     * The layout's field names and type characters, by position: the encoder asks for one of
     * each per field it writes, and the descriptor's list, of whichever {@code List} class built
     * it, made that an interface call whose changing receiver classes sent the encoder back to
     * the JIT again and again.
     */
    private final String[] fieldNames;
    final char[] fieldTypes;

    ClassInfo(Class<?> type, ClassDescriptor descriptor, HollowFactory factory,
              java.lang.invoke.MethodHandle recordConstructor, java.lang.invoke.MethodHandle[] recordAccessors,
              boolean leaf, Object[] lazyMarkers, BitSet transientFields,
              java.lang.invoke.MethodHandle writeReplace, java.lang.invoke.MethodHandle readResolve,
              String renameClash) {
        this.type = type;
        this.descriptor = descriptor;
        this.factory = factory;
        this.recordConstructor = recordConstructor;
        this.recordAccessors = recordAccessors;
        this.leaf = leaf;
        this.lazyMarkers = lazyMarkers;
        this.transientFields = transientFields;
        this.writeReplace = writeReplace;
        this.readResolve = readResolve;
        this.renameClash = renameClash;
        int n = descriptor.fields.size();
        this.fieldNames = new String[n];
        this.fieldTypes = new char[n];
        for (int i = 0; i < n; i++) {
            fieldNames[i] = descriptor.fields.get(i).name();
            fieldTypes[i] = descriptor.fields.get(i).type();
        }
    }

    /** @return the ordinal of the reference field whose lazy marker this is, or -1 */
    int lazyOrdinal(Object marker) {
        Object[] m = lazyMarkers;
        if (m != null) {
            for (int k = 0; k < m.length; k++) {
                if (m[k] == marker) {
                    return k;
                }
            }
        }
        return -1;
    }

    /** @return component {@code i} of a record of this class, boxed if primitive */
    Object component(Object record, int i) {
        try {
            return recordAccessors[i].invokeExact(record);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    List<ClassDescriptor.Field> fields() {
        return descriptor.fields;
    }

    /** @return the name of the field at a layout position, for paths in messages */
    String fieldName(int index) {
        return index >= 0 && index < fieldNames.length ? fieldNames[index] : "?";
    }
}
