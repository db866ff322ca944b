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
 * Classes renamed since their objects were stored, as the application declares them: every
 * {@value #RESOURCE} its class loader sees, in {@link Properties} form, one
 * {@code old.binary.Name = new.binary.Name} per line. A store keeps the names it was written
 * with; a record of a renamed class is read as an object of the new class, and written back
 * under the new name. Renames chain ({@code a = b} and {@code b = c} read {@code a} as
 * {@code c}), so a release need not rewrite what older releases declared. Immutable.
 */
final class ClassRenames {
    /** Where an application declares its renamed classes. */
    static final String RESOURCE = "META-INF/perpetua/renamed-classes.properties";

    static final ClassRenames NONE = new ClassRenames(Map.of());

    /** Old name to the name it finally became. */
    private final Map<String, String> current;

    private ClassRenames(Map<String, String> current) {
        this.current = current;
    }

    /**
     * @return the renames declared by every {@value #RESOURCE} that {@code loader} sees
     * @throws PersistentStoreException if one cannot be read, two declare different new names
     *         for one class, or renames run in a circle
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
                for (String old : p.stringPropertyNames()) {
                    String renamed = p.getProperty(old).trim();
                    String before = declared.putIfAbsent(old.trim(), renamed);
                    if (before != null && !before.equals(renamed)) {
                        throw new PersistentStoreException("class " + old.trim() + " is renamed to " + before + " by "
                                + declaredBy.get(old.trim()) + " and to " + renamed + " by " + url);
                    }
                    declaredBy.putIfAbsent(old.trim(), url);
                }
            }
        } catch (IOException e) {
            throw new PersistentStoreException("cannot read the renamed classes declared in " + RESOURCE + ": " + e, e);
        }
        if (declared.isEmpty()) {
            return NONE;
        }
        Map<String, String> current = new HashMap<>();
        for (String old : declared.keySet()) {
            Set<String> seen = new HashSet<>();
            String name = old;
            while (declared.containsKey(name)) {
                if (!seen.add(name)) {
                    throw new PersistentStoreException("the renamed classes declared in " + RESOURCE
                            + " run in a circle through " + name);
                }
                name = declared.get(name);
            }
            current.put(old, name);
        }
        return new ClassRenames(current);
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
            return current.getOrDefault(storedName, storedName);
        }
        if (storedName.charAt(dims) != 'L') {
            return storedName; // an array of a primitive type
        }
        String element = storedName.substring(dims + 1, storedName.length() - 1);
        String renamed = current.get(element);
        return renamed == null ? storedName : storedName.substring(0, dims) + "L" + renamed + ";";
    }
}
