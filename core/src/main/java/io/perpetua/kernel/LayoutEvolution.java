package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.runtime.PersistentClasses;

import java.util.HashMap;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * How a record written under an older layout of a class maps onto the class's current layout:
 * which stored field each current field takes its value from ({@link #match}), and how a value
 * stored as one kind is read as another ({@link #converted}). Stateless.
 */
final class LayoutEvolution {
    /** What {@link #converted} returns for a value the field cannot hold. */
    static final Object NOT_CONVERTIBLE = new Object();


    private LayoutEvolution() {
    }

    /**
     * Matches a field by its declaring class and name, both as they are now (the application may
     * have declared them renamed, see {@link ClassRenames}); or, if it moved to another class of
     * the object's hierarchy (pulled up or pushed down), by its name alone when exactly one
     * unmatched stored field and one unmatched current field have that name.
     *
     * @return by current field, the index of the stored field it takes its value from, or -1 for
     *         none (a field added since: it reads as its default); stored fields no current one
     *         takes are dropped
     */
    static int[] match(ClassDescriptor stored, ClassDescriptor current, ClassRegistry classes) {
        String[] storedNames = new String[stored.fields.size()]; // as they are now
        Map<String, Integer> storedAt = new HashMap<>();
        for (int j = 0; j < storedNames.length; j++) {
            String qualified = classes.currentQualifiedName(stored.fields.get(j));
            storedAt.put(qualified, j);
            storedNames[j] = qualified.substring(qualified.lastIndexOf('.') + 1);
        }
        String[] currentNames = new String[current.fields.size()];
        int[] source = new int[currentNames.length];
        boolean[] taken = new boolean[storedNames.length];
        for (int i = 0; i < source.length; i++) {
            currentNames[i] = current.fields.get(i).name();
            Integer j = storedAt.get(current.fields.get(i).qualifiedName());
            source[i] = j == null ? -1 : j;
            if (j != null) {
                taken[j] = true;
            }
        }
        for (int i = 0; i < source.length; i++) {
            if (source[i] < 0) {
                int j = onlyOne(storedNames, k -> !taken[k], currentNames[i]);
                if (j >= 0 && onlyOne(currentNames, k -> source[k] < 0, currentNames[i]) == i) {
                    source[i] = j;
                    taken[j] = true;
                }
            }
        }
        for (int j = 0; j < storedNames.length; j++) {
            String name = stored.fields.get(j).name();
            if (!taken[j] && (name.equals(PersistentClasses.ELEMENTS) || name.equals(PersistentClasses.ENTRIES))) {
                // dropping it, as a removed field is, would lose what the object held
                throw new IncompatibleClassChangeException(stored.fields.get(j).owner(), name, "it holds the "
                        + (name.equals(PersistentClasses.ELEMENTS) ? "elements of the JDK collection" : "keys and values of"
                        + " the JDK map") + " the class extended, and the class now extends "
                        + (name.equals(PersistentClasses.ELEMENTS) ? "no collection" : "no map"));
            }
        }
        return source;
    }

    /**
     * @param values the stored fields' values, boxed, in the stored layout's order
     * @param source what {@link #match} returned for the two layouts
     * @return the current fields' values, boxed, in the current layout's order
     * @throws IncompatibleClassChangeException if a stored value may not fit its field's new kind
     */
    static Object[] served(Object[] values, int[] source, ClassDescriptor stored, ClassDescriptor current) {
        Object[] served = new Object[source.length];
        for (int i = 0; i < served.length; i++) {
            ClassDescriptor.Field f = current.fields.get(i);
            if (source[i] < 0) {
                served[i] = RecordDecoder.defaultValue(f.type());
                continue;
            }
            Object value = values[source[i]];
            char was = stored.fields.get(source[i]).type();
            served[i] = converted(value, was, f.type());
            if (served[i] == NOT_CONVERTIBLE) {
                throw new IncompatibleClassChangeException(f.owner(), f.name(), "it was stored as " + typeName(was)
                        + (was == 'L' ? " (" + (value == null ? "null" : "a " + value.getClass().getName()) + ")" : "")
                        + " and is now " + typeName(f.type()) + ", which cannot hold every value of it");
            }
        }
        return served;
    }

    /**
     * @return a field's stored value as the field's current kind: as it is for the same kind; a
     *         lossless widening of a primitive (byte to short, int, long, float or double; short
     *         and char to int, long, float or double; int to long or double; float to double);
     *         a primitive boxed, for a reference field (whose type must then accept the box); a
     *         box unboxed by the same rules, for a primitive field; else {@link #NOT_CONVERTIBLE}
     */
    static Object converted(Object value, char from, char to) {
        if (from == to || to == 'L') {
            return value;
        }
        if (from == 'L') {
            char boxed = value instanceof Boolean ? 'Z' : value instanceof Byte ? 'B' : value instanceof Character ? 'C'
                    : value instanceof Short ? 'S' : value instanceof Integer ? 'I' : value instanceof Long ? 'J'
                    : value instanceof Float ? 'F' : value instanceof Double ? 'D' : 'L';
            return boxed == 'L' ? NOT_CONVERTIBLE : converted(value, boxed, to);
        }
        if (widensTo(from).indexOf(to) < 0) {
            return NOT_CONVERTIBLE;
        }
        double d = value instanceof Character c ? c : ((Number) value).doubleValue(); // exact: the widening is lossless
        return switch (to) {
            case 'S' -> (short) d;
            case 'I' -> (int) d;
            case 'J' -> value instanceof Character c ? (long) c : ((Number) value).longValue();
            case 'F' -> (float) d;
            default -> d;
        };
    }

    /** @return the kinds a primitive kind widens to without loss (JLS 5.1.2 without the conversions that may round) */
    private static String widensTo(char kind) {
        return switch (kind) {
            case 'B' -> "SIJFD";
            case 'S', 'C' -> "IJFD";
            case 'I' -> "JD";
            case 'F' -> "D";
            default -> "";
        };
    }

    private static String typeName(char type) {
        return switch (type) {
            case 'Z' -> "boolean";
            case 'B' -> "byte";
            case 'C' -> "char";
            case 'S' -> "short";
            case 'I' -> "int";
            case 'J' -> "long";
            case 'F' -> "float";
            case 'D' -> "double";
            default -> "a reference";
        };
    }

    /** @return the index of the one name equal to {@code name} among those {@code open} admits, or -1 if none or several */
    private static int onlyOne(String[] names, IntPredicate open, String name) {
        int found = -1;
        for (int k = 0; k < names.length; k++) {
            if (open.test(k) && names[k].equals(name)) {
                if (found >= 0) {
                    return -1;
                }
                found = k;
            }
        }
        return found;
    }
}
