package io.perpetua.agent;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's options, parsed from the text after {@code =} in
 * {@code -javaagent:perpetua-agent.jar=OPTIONS}: a comma-separated list of
 * <dl>
 *   <dt>{@code include=PKG[:PKG...]}</dt><dd>rewrite only classes in these packages (or these
 *       classes), dotted names; may repeat. Default: every class but the JDK's and Perpetua's.</dd>
 *   <dt>{@code exclude=PKG[:PKG...]}</dt><dd>never touch these packages or classes; may repeat.
 *       Their own field accesses to persistent-capable classes then bypass the residency checks.</dd>
 *   <dt>{@code verbose}</dt><dd>print one line per class rewritten or skipped, with the reason
 *       (failures are always printed).</dd>
 *   <dt>{@code failFast}</dt><dd>halt the JVM (status 86) when a class cannot be rewritten.</dd>
 *   <dt>{@code dump=DIR}</dt><dd>write every rewritten class file under DIR, for {@code javap}.</dd>
 * </dl>
 * Example: {@code -javaagent:perpetua-agent.jar=verbose,include=com.acme:org.lib,dump=/tmp/out}.
 * Immutable.
 *
 * @param include dotted package or class names, not null
 * @param exclude dotted package or class names, not null
 * @param verbose whether every class is reported
 * @param failFast whether a failure halts the JVM
 * @param dump the dump directory, or null
 */
public record AgentOptions(List<String> include, List<String> exclude, boolean verbose, boolean failFast,
                           Path dump) {

    public AgentOptions {
        include = List.copyOf(include);
        exclude = List.copyOf(exclude);
    }

    /**
     * @param text the agent argument; null or empty for the defaults
     * @return the options
     * @throws IllegalArgumentException naming the offending option, if the text is not valid
     *         (the JVM then refuses to start, which is what a mistyped option deserves)
     */
    public static AgentOptions parse(String text) {
        List<String> include = new ArrayList<>();
        List<String> exclude = new ArrayList<>();
        boolean verbose = false;
        boolean failFast = false;
        Path dump = null;
        if (text != null && !text.isBlank()) {
            for (String option : text.split(",")) {
                String o = option.trim();
                int eq = o.indexOf('=');
                String key = eq < 0 ? o : o.substring(0, eq);
                String value = eq < 0 ? null : o.substring(eq + 1);
                switch (key) {
                    case "verbose" -> verbose = flag(key, value);
                    case "failFast" -> failFast = flag(key, value);
                    case "include" -> include.addAll(list(key, value));
                    case "exclude" -> exclude.addAll(list(key, value));
                    case "dump" -> {
                        if (value == null || value.isEmpty()) {
                            throw new IllegalArgumentException("perpetua agent: option dump needs a directory: dump=DIR");
                        }
                        dump = Path.of(value);
                    }
                    default -> throw new IllegalArgumentException("perpetua agent: unknown option '" + o
                            + "' (known: include=PKG[:PKG], exclude=PKG[:PKG], verbose, failFast, dump=DIR)");
                }
            }
        }
        return new AgentOptions(include, exclude, verbose, failFast, dump);
    }

    private static boolean flag(String key, String value) {
        if (value == null || value.equals("true")) {
            return true;
        }
        if (value.equals("false")) {
            return false;
        }
        throw new IllegalArgumentException("perpetua agent: option " + key + " takes true or false, not '" + value + "'");
    }

    private static List<String> list(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("perpetua agent: option " + key + " needs package names: " + key
                    + "=com.acme[:org.lib]");
        }
        List<String> names = new ArrayList<>();
        for (String n : value.split(":")) {
            String name = n.trim();
            if (!name.matches("[\\p{javaJavaIdentifierPart}.$]+")) {
                throw new IllegalArgumentException("perpetua agent: option " + key + ": '" + n
                        + "' is not a package or class name");
            }
            names.add(name);
        }
        return names;
    }
}
