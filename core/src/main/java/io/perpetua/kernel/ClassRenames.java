package io.perpetua.kernel;

import io.perpetua.PersistentStoreException;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Classes and fields renamed since their objects were stored, as the application declares them:
 * every {@value #RESOURCE} its class loader sees, in {@link Properties} form, one rename per
 * line: {@code old.binary.Name = new.binary.Name} for a class, {@code binary.Name#oldField =
 * newField} for a field or an enum constant of a class (named as it is now, or as it was when
 * the field was renamed: a field's renames follow the class's). A store keeps the
 * names it was written with; a record of a renamed class is read as an object of the new class, a
 * renamed field's value as the new field's, a renamed constant as the new constant, and all are
 * written back under the new names. Renames chain ({@code a = b} and {@code b = c} read {@code a}
 * as {@code c}), so a release need not rewrite what older releases declared; a nested class
 * follows its outer class ({@code a.Outer = b.Other} reads {@code a.Outer$Inner} as
 * {@code b.Other$Inner}) unless it is declared itself. Immutable.
 */
final class ClassRenames {
    /** Where an application declares its renamed classes. */
    static final String RESOURCE = "META-INF/perpetua/renamed-classes.properties";

    static final ClassRenames NONE = new ClassRenames(Map.of(), Map.of(), Map.of());

    /** Old class name to the name it finally became. */
    private final Map<String, String> current;
    /** Old class name to the name declared for it: one step of {@link #current}'s chains. */
    private final Map<String, String> declaredClasses;
    /** {@code Class#old} (the class by the name it had when the rename was declared) to the name the field finally became in that class. */
    private final Map<String, String> currentFields;

    private ClassRenames(Map<String, String> current, Map<String, String> declaredClasses, Map<String, String> currentFields) {
        this.current = current;
        this.declaredClasses = declaredClasses;
        this.currentFields = currentFields;
    }

    /**
     * @return the renames declared by every {@value #RESOURCE} that {@code loader} sees
     * @throws PersistentStoreException if one cannot be read, two declare different new names
     *         for one class or field, renames run in a circle, or a field is renamed to
     *         something that is not a field name
     */
    static ClassRenames declaredTo(ClassLoader loader) {
        Map<String, String> declared = new HashMap<>();
        Map<String, URL> declaredBy = new HashMap<>();
        try {
            for (URL url : Collections.list(loader.getResources(RESOURCE))) {
                Properties p = new Properties();
                try (InputStream in = url.openStream()) {
                    p.load(in);
                }
                for (String key : p.stringPropertyNames()) {
                    String old = key.trim();
                    String renamed = p.getProperty(key).trim();
                    if (old.indexOf('#') >= 0 && !isFieldName(renamed)) {
                        throw new PersistentStoreException("field " + old + " is renamed to \"" + renamed + "\" by " + url
                                + ", which is not a field or enum constant name");
                    }
                    String before = declared.putIfAbsent(old, renamed);
                    if (before != null && !before.equals(renamed)) {
                        throw new PersistentStoreException(old + " is renamed to " + before + " by "
                                + declaredBy.get(old) + " and to " + renamed + " by " + url);
                    }
                    declaredBy.putIfAbsent(old, url);
                }
            }
        } catch (IOException e) {
            throw new PersistentStoreException("cannot read the renamed classes declared in " + RESOURCE + ": " + e, e);
        }
        if (declared.isEmpty()) {
            return NONE;
        }
        Map<String, String> current = new HashMap<>();
        Map<String, String> declaredClasses = new HashMap<>();
        Map<String, String> currentFields = new HashMap<>();
        for (String old : declared.keySet()) {
            int hash = old.indexOf('#');
            String prefix = hash < 0 ? "" : old.substring(0, hash + 1); // a field's chain stays in its class
            Set<String> seen = new HashSet<>();
            String name = old;
            // a class declared as itself keeps its name (a nested class kept while its outer class moved)
            while (declared.containsKey(name) && !(prefix + declared.get(name)).equals(name)) {
                if (!seen.add(name)) {
                    throw new PersistentStoreException("the renames declared in " + RESOURCE + " run in a circle through " + name);
                }
                name = prefix + declared.get(name);
            }
            if (hash < 0) {
                current.put(old, name);
                declaredClasses.put(old, declared.get(old));
            } else {
                currentFields.put(old, name.substring(prefix.length()));
            }
        }
        return new ClassRenames(current, declaredClasses, currentFields);
    }

    private static boolean isFieldName(String name) {
        if (name.isEmpty() || !Character.isJavaIdentifierStart(name.charAt(0))) {
            return false;
        }
        return name.chars().allMatch(Character::isJavaIdentifierPart);
    }

    /**
     * @param className the field's declaring class, by the name it was stored under (or any
     *                  later name of it)
     * @param storedField the field's name as stored
     * @return the name that field has now (the stored one if it was not renamed): each field
     *         rename declared under one of the class's names, from the given one to its current
     *         one, applies in turn, so that a release that renames the class again need not
     *         repeat its earlier field renames under the new name
     */
    String currentField(String className, String storedField) {
        if (currentFields.isEmpty()) {
            return storedField;
        }
        String field = storedField;
        String name = className;
        for (int steps = 0; name != null && steps <= declaredClasses.size(); steps++) {
            field = currentFields.getOrDefault(name + "#" + field, field);
            name = declaredStep(name);
        }
        return field;
    }

    /** @return the name declared for a class (or its outer class's, followed); null if none */
    private String declaredStep(String name) {
        String renamed = declaredClasses.get(name);
        if (renamed != null) {
            return renamed.equals(name) ? null : renamed;
        }
        for (int dollar = name.lastIndexOf('$'); dollar > 0; dollar = name.lastIndexOf('$', dollar - 1)) {
            String outer = declaredClasses.get(name.substring(0, dollar));
            if (outer != null) {
                return outer + name.substring(dollar);
            }
        }
        return null;
    }

    /** @return true if objects stored under this class name are read as another class */
    boolean renamedAway(String className) {
        return !current.isEmpty() && !current(className).equals(className);
    }

    /**
     * @param storedName a class name as stored: a binary name, or an array class's name
     *                   ({@code [Lold.Name;})
     * @return the name that class has now (the stored one if it was not renamed)
     */
    String current(String storedName) {
        if (current.isEmpty()) {
            return storedName;
        }
        int dims = 0;
        while (dims < storedName.length() && storedName.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return currentClass(storedName);
        }
        if (storedName.charAt(dims) != 'L') {
            return storedName; // an array of a primitive type
        }
        String element = storedName.substring(dims + 1, storedName.length() - 1);
        return storedName.substring(0, dims) + "L" + currentClass(element) + ";";
    }

    /** @return a class's current name; a nested class follows its outer class unless declared itself */
    private String currentClass(String name) {
        String renamed = current.get(name);
        if (renamed != null) {
            return renamed;
        }
        for (int dollar = name.lastIndexOf('$'); dollar > 0; dollar = name.lastIndexOf('$', dollar - 1)) {
            String outer = current.get(name.substring(0, dollar));
            if (outer != null) {
                return outer + name.substring(dollar);
            }
        }
        return name;
    }
}
