package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.runtime.Persistent;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Constants: objects of rewritten classes that are the value of a {@code static final} field of
 * their own class, of one of its rewritten super-classes, or of a class it is nested in. A Scala
 * {@code object} ({@code Nil$.MODULE$}), a Kotlin {@code object} ({@code EmptyList.INSTANCE}) or
 * companion object ({@code Duration.Companion}, a field of the class it is nested in), a Java
 * singleton, the constants of a type-safe enum, Joda-Time's {@code ISOChronology.INSTANCE_UTC}. Code
 * compares them by identity (Scala's {@code List.isEmpty} is {@code this eq Nil}), so a copy
 * read back from a store is not one of them. A constant is stored, in the record of each object
 * that refers to it, as its class and field name, and read back as the field's value: the
 * object itself, never a copy. Its own fields are class state, which is not stored, as static
 * fields are not (JSPIN 3.4). So is a plain {@code new Object()} marker held by a static final
 * field of the class of the object that refers to it (or of a class it extends or is nested
 * in). Stateless and thread-safe.
 */
final class Constants {

    /** Where a constant is: a static final field, by declaring class and name. */
    record Ref(Class<?> owner, String field) {
        /** @return the name of the class declaring the field, as stored */
        String className() {
            return owner.getName();
        }
    }

    /** By class: its instances that are constants, or null if it has none (most classes). */
    private static final ClassValue<Map<Object, Ref>> BY_CLASS = new ClassValue<>() {
        @Override
        protected Map<Object, Ref> computeValue(Class<?> type) {
            return find(type);
        }
    };

    /**
     * By class: the plain {@code new Object()} markers in static final fields of it, its
     * super-classes, and the classes they are nested in; null if none. A collection marks a
     * null key or a removed slot with one (Commons Collections' {@code AbstractHashedMap.NULL},
     * Eclipse Collections' {@code UnifiedMap.NULL_KEY}), and compares by identity.
     */
    private static final ClassValue<Map<Object, Ref>> MARKERS = new ClassValue<>() {
        @Override
        protected Map<Object, Ref> computeValue(Class<?> type) {
            Map<Object, Ref> found = null;
            for (Class<?> outer = type; outer != null; outer = outer.getEnclosingClass()) {
                for (Class<?> c = outer; c != null && c != Object.class; c = c.getSuperclass()) {
                    if (!c.getName().startsWith("java.")) {
                        found = collect(c, Object.class, found);
                    }
                }
            }
            return found;
        }
    };

    private Constants() {
    }

    /**
     * @param owner the class of the object whose record holds the value
     * @param marker a plain {@code Object}
     * @return where it is a marker constant seen from {@code owner}, or null
     */
    static Ref marker(Class<?> owner, Object marker) {
        Map<Object, Ref> markers = MARKERS.get(owner);
        return markers == null ? null : markers.get(marker);
    }

    /** @return the value of a static field, or null if it cannot be read */
    private static Object read(Field f) {
        try {
            f.setAccessible(true);
            return f.get(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // a class of a module that does not open it
        }
    }

    /**
     * @param object an object of a rewritten class (initialized: it has an instance)
     * @return where it is a constant, or null if it is none
     */
    static Ref of(Persistent object) {
        Map<Object, Ref> constants = BY_CLASS.get(object.getClass());
        return constants == null ? null : constants.get(object);
    }

    private static Map<Object, Ref> find(Class<?> type) {
        Map<Object, Ref> found = null;
        for (Class<?> c = type; c != null && Persistent.class.isAssignableFrom(c); c = c.getSuperclass()) {
            found = collect(c, type, found);
        }
        // a companion's holder: reading a field initializes its class, which made the instance anyway
        for (Class<?> outer = type.getEnclosingClass(); outer != null; outer = outer.getEnclosingClass()) {
            found = collect(outer, type, found);
        }
        return found;
    }

    /**
     * Adds to {@code found} (made if null) the objects of exactly class {@code type} that static
     * final fields of class {@code c} hold, by where they are (the first field wins).
     *
     * @return {@code found}, or a new map if it was null and something was found
     */
    private static Map<Object, Ref> collect(Class<?> c, Class<?> type, Map<Object, Ref> found) {
        for (Field f : c.getDeclaredFields()) {
            int m = f.getModifiers();
            if (!Modifier.isStatic(m) || !Modifier.isFinal(m) || !f.getType().isAssignableFrom(type)) {
                continue;
            }
            Object value = read(f); // null if unreadable: its constants are stored as objects
            if (value != null && value.getClass() == type) {
                if (found == null) {
                    found = new IdentityHashMap<>(2);
                }
                found.putIfAbsent(value, new Ref(c, f.getName()));
            }
        }
        return found;
    }

    /**
     * @param type the class a stored constant reference names (as resolved, renames applied)
     * @param storedClassName the name it was stored under, for messages
     * @param field the field it names
     * @return the field's value
     * @throws IncompatibleClassChangeException if the field is gone, is no longer a static
     *         final field, or holds null
     */
    static Object value(Class<?> type, String storedClassName, String field) {
        try {
            Field f = type.getDeclaredField(field);
            int m = f.getModifiers();
            if (!Modifier.isStatic(m) || !Modifier.isFinal(m)) {
                throw new IncompatibleClassChangeException(storedClassName, field,
                        "a stored object refers to the constant it held, and it is no longer a static final field");
            }
            f.setAccessible(true);
            Object value = f.get(null);
            if (value == null) {
                throw new IncompatibleClassChangeException(storedClassName, field,
                        "a stored object refers to the constant it held, and it now holds null");
            }
            return value;
        } catch (NoSuchFieldException e) {
            throw new IncompatibleClassChangeException(storedClassName, field,
                    "a stored object refers to the constant it held, and the field is gone", e);
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (e instanceof IncompatibleClassChangeException i) {
                throw i;
            }
            throw new IncompatibleClassChangeException(storedClassName, field,
                    "a stored object refers to the constant it held, and it cannot be read (" + e + ")", e);
        }
    }
}
