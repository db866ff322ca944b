package io.perpetua.agent.transform;

import java.util.List;

/**
 * Which classes the agent may touch at all, by name. What is never rewritten is data: the JDK's
 * packages and Perpetua's own (a list), then the user's include and exclude lists. Immutable and
 * thread-safe.
 *
 * <p>A list entry names a package or a class in dotted form ({@code com.acme},
 * {@code com.acme.Order}); it matches that class, its nested classes, and everything in that
 * package and below.
 */
public final class ClassFilter {

    /**
     * Internal-name prefixes of classes that are never touched: the JDK's and Perpetua's own,
     * including the Java binding of its embedded default store ({@code org.rocksdb}): a store
     * cannot persist its own native handles, and rewriting the 94 RocksDB classes loaded at
     * start-up took about 0.3 s of every JVM's first store open and put residency checks on
     * every native handle the backend touches.
     */
    static final List<String> NEVER = List.of(
            "java/", "javax/", "jdk/", "sun/", "com/sun/",
            "io/perpetua/runtime/", "io/perpetua/kernel/", "io/perpetua/spi/",
            "io/perpetua/memory/", "io/perpetua/agent/", "io/perpetua/store/",
            "org/rocksdb/");

    private static final String PERPETUA_API_PACKAGE = "io/perpetua/";

    private final List<String> include;
    private final List<String> exclude;

    /**
     * @param include dotted package or class names; if not empty, only matching classes are
     *        rewritten. Not null.
     * @param exclude dotted package or class names never touched. Not null.
     */
    public ClassFilter(List<String> include, List<String> exclude) {
        this.include = include.stream().map(ClassFilter::internal).toList();
        this.exclude = exclude.stream().map(ClassFilter::internal).toList();
    }

    /** @return the default filter: every class but the JDK's and Perpetua's own (with RocksDB's binding) */
    public static ClassFilter everything() {
        return new ClassFilter(List.of(), List.of());
    }

    /**
     * @param internalName a class's internal name, e.g. {@code com/acme/Order}
     * @return null if the class may be rewritten, else why not
     */
    public String reject(String internalName) {
        if (isSystem(internalName)) {
            return "JDK or Perpetua class (or its RocksDB binding)";
        }
        for (String e : exclude) {
            if (matches(e, internalName)) {
                return "excluded by option exclude=" + e.replace('/', '.');
            }
        }
        if (!include.isEmpty()) {
            for (String i : include) {
                if (matches(i, internalName)) {
                    return null;
                }
            }
            return "not in option include";
        }
        return null;
    }

    /** @return whether the class belongs to the JDK or to Perpetua itself (never rewritten) */
    static boolean isSystem(String internalName) {
        for (String prefix : NEVER) {
            if (internalName.startsWith(prefix)) {
                return true;
            }
        }
        // io.perpetua.Perpetua, io.perpetua.PersistentStore, ...: the public API package itself
        return internalName.startsWith(PERPETUA_API_PACKAGE)
                && internalName.indexOf('/', PERPETUA_API_PACKAGE.length()) < 0;
    }

    private static boolean matches(String entry, String name) {
        if (!name.startsWith(entry)) {
            return false;
        }
        if (name.length() == entry.length()) {
            return true;
        }
        char next = name.charAt(entry.length());
        return next == '/' || next == '$';
    }

    private static String internal(String dotted) {
        String s = dotted.trim();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty package or class name in include/exclude list");
        }
        return s.replace('.', '/');
    }
}
