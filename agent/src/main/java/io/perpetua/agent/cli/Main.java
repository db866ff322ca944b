package io.perpetua.agent.cli;

import io.perpetua.agent.AgentOptions;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent jar's {@code Main-Class}:
 * <pre>
 * java -jar perpetua-agent.jar rewrite [--verbose] [--include PKG[:PKG]] [--exclude PKG[:PKG]]
 *                                      &lt;classes-dir&gt; [--classpath PATH]
 * </pre>
 * rewrites every class file under the directory in place, exactly as
 * {@code -javaagent:perpetua-agent.jar} would when the classes load (same rewriting, same class
 * filter, same include and exclude lists, same reports). Type relationships are read from class
 * bytes, as the application's class loader would find them: the JDK running the command, then
 * the directory, the class path, and perpetua-core (embedded in the agent jar); no class is
 * loaded. Classes already rewritten are skipped,
 * so running it twice, or running the rewritten program with the agent, changes nothing.
 *
 * <p>Exit status: {@value #OK} if every class was rewritten or skipped, {@value #FAILED} if any
 * class could not be rewritten (each failure is printed; the other classes are still rewritten,
 * as the agent would), {@value #USAGE} for a mistake on the command line.
 */
public final class Main {

    /** Every class was rewritten or skipped. */
    public static final int OK = 0;
    /** At least one class could not be rewritten (or written back). */
    public static final int FAILED = 1;
    /** The command line is wrong. */
    public static final int USAGE = 2;

    static final String USAGE_TEXT = """
            usage: java -jar perpetua-agent.jar rewrite [options] <classes-dir> [--classpath <path>]

            Rewrites, in place, every class file under <classes-dir> as -javaagent:perpetua-agent.jar
            would at load time. Classes already rewritten are skipped.

            options:
              --include PKG[:PKG...]   rewrite only these packages (or classes), dotted; may repeat
              --exclude PKG[:PKG...]   never touch these packages (or classes); may repeat
              --verbose                one line per class: rewritten (with a summary) or skipped (why)
              --classpath PATH         where the types the classes refer to are found (super-classes,
                                       field owners), separated by '%s'; also -cp, --class-path

            Exit status: 0 all classes rewritten or skipped, 1 some class failed (printed), 2 usage.""";

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs a command without exiting the JVM.
     *
     * @param args the command line, not null
     * @param out where the summary goes, not null, not closed
     * @param err where per-class lines, failures and usage errors go, not null, not closed
     * @return the exit status: {@link #OK}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || List.of("-h", "--help", "help").contains(args[0])) {
            (args.length == 0 ? err : out).println(usage());
            return args.length == 0 ? USAGE : OK;
        }
        if (!args[0].equals("rewrite")) {
            err.println("perpetua: unknown command '" + args[0] + "'");
            err.println(usage());
            return USAGE;
        }
        DirectoryRewriter rewriter;
        try {
            rewriter = parseRewrite(List.of(args).subList(1, args.length));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(usage());
            return USAGE;
        }
        DirectoryRewriter.Summary summary = rewriter.run(err);
        out.println("[perpetua] " + summary);
        err.flush();
        return summary.failed() == 0 ? OK : FAILED;
    }

    /** @throws IllegalArgumentException with a message naming the mistake */
    static DirectoryRewriter parseRewrite(List<String> args) {
        List<String> agentOptions = new ArrayList<>();
        List<Path> classPath = new ArrayList<>();
        boolean verbose = false;
        Path directory = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            int eq = arg.indexOf('=');
            String key = arg.startsWith("-") && eq > 0 ? arg.substring(0, eq) : arg;
            String value = key.equals(arg) ? null : arg.substring(eq + 1);
            switch (key) {
                case "--verbose" -> {
                    if (value != null) {
                        throw new IllegalArgumentException("perpetua rewrite: --verbose takes no value");
                    }
                    verbose = true;
                }
                case "--include", "--exclude" -> {
                    String names = value != null ? value : next(args, ++i, key);
                    if (names.contains(",")) {
                        throw new IllegalArgumentException("perpetua rewrite: " + key
                                + " separates names with ':', not ',': " + names);
                    }
                    agentOptions.add(key.substring(2) + "=" + names);
                }
                case "--classpath", "--class-path", "-cp" -> {
                    String path = value != null ? value : next(args, ++i, key);
                    for (String entry : path.split(File.pathSeparator)) {
                        if (!entry.isBlank()) {
                            classPath.add(Path.of(entry));
                        }
                    }
                }
                default -> {
                    if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("perpetua rewrite: unknown option '" + arg + "'");
                    }
                    if (directory != null) {
                        throw new IllegalArgumentException("perpetua rewrite: one classes directory, not two: '"
                                + directory + "' and '" + arg + "' (put other class folders and jars on --classpath)");
                    }
                    directory = Path.of(arg);
                }
            }
        }
        if (directory == null) {
            throw new IllegalArgumentException("perpetua rewrite: which classes directory?");
        }
        if (!Files.isDirectory(directory)) {
            throw new IllegalArgumentException("perpetua rewrite: not a directory: " + directory.toAbsolutePath());
        }
        // The agent's own parser checks the package names, so both accept exactly the same lists.
        AgentOptions options = AgentOptions.parse(String.join(",", agentOptions));
        return new DirectoryRewriter(directory, classPath, options.include(), options.exclude(), verbose);
    }

    private static String next(List<String> args, int i, String option) {
        if (i >= args.size() || args.get(i).startsWith("--")) {
            throw new IllegalArgumentException("perpetua rewrite: " + option + " needs a value");
        }
        return args.get(i);
    }

    private static String usage() {
        return USAGE_TEXT.formatted(File.pathSeparator);
    }
}
