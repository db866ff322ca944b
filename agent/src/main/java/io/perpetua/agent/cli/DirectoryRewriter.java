package io.perpetua.agent.cli;

import io.perpetua.agent.report.PrintingListener;
import io.perpetua.agent.transform.ClassFilter;
import io.perpetua.agent.transform.ClassRewriter;
import io.perpetua.agent.transform.RewriteException;
import io.perpetua.runtime.Persistent;
import org.objectweb.asm.ClassReader;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Rewrites the class files of one directory in place, with the agent's {@link ClassRewriter}:
 * each class is made persistent-capable, has only its field accesses redirected, or is left as
 * it was, exactly as under {@code -javaagent}. Classes already rewritten are left as they are,
 * so a second run changes nothing.
 *
 * <p>Types the classes refer to are read as class files, in the order the application's class
 * loader finds them: the JDK running the command (parent first), then the directory, the class
 * path, and perpetua-core (the copy this code runs with: inside the agent jar, the one the JVM
 * appends to the application's class path under {@code -javaagent}), through a
 * {@link URLClassLoader} used only for {@code getResource}: no class of the
 * directory or the class path is loaded. The directory's class files are read before they are
 * replaced (the rewriter keeps what it read), so the decisions are those of the originals.
 *
 * <p>A class that cannot be rewritten is reported and left as it was, and the others are still
 * rewritten, as the agent does; each rewritten file is replaced atomically (a temporary file
 * beside it, then a rename), so an interrupted run leaves every file either old or new.
 *
 * <p>Not thread-safe: one {@link #run} at a time. Owns nothing after {@code run} returns.
 */
public final class DirectoryRewriter {

    /**
     * What one run did.
     *
     * @param directory the directory rewritten
     * @param persistent classes made persistent-capable
     * @param redirected classes that are not persistent-capable but had field accesses redirected
     * @param unchanged classes left as they were on purpose (already rewritten, filtered out, or
     *        nothing to do)
     * @param failed classes that could not be rewritten (or written back); left as they were
     */
    public record Summary(Path directory, int persistent, int redirected, int unchanged, int failed) {
        @Override
        public String toString() {
            return "rewrite " + directory + ": " + persistent + " classes made persistent-capable, " + redirected
                    + " with field accesses redirected, " + unchanged + " unchanged, " + failed + " failed";
        }
    }

    private final Path directory;
    private final List<Path> classPath;
    private final ClassFilter filter;
    private final boolean verbose;

    /**
     * @param directory the root of a package hierarchy of class files, not null
     * @param classPath folders and jars where other types are found, not null, may be empty
     * @param include dotted package or class names; if not empty, only these are rewritten; not null
     * @param exclude dotted package or class names never touched; not null
     * @param verbose whether every class is reported, not only failures
     */
    public DirectoryRewriter(Path directory, List<Path> classPath, List<String> include, List<String> exclude,
                             boolean verbose) {
        this.directory = directory;
        this.classPath = List.copyOf(classPath);
        this.filter = new ClassFilter(include, exclude);
        this.verbose = verbose;
    }

    /**
     * Rewrites every class file under the directory, reporting to {@code report} what the agent
     * reports: failures always ({@code [perpetua] FAILED ...} with the stack trace), rewritten
     * and skipped classes when verbose.
     *
     * @param report where to print, not null, not closed
     * @return the counts; {@code failed() > 0} if any class could not be rewritten
     * @throws UncheckedIOException if the directory cannot be listed
     */
    public Summary run(PrintStream report) {
        PrintingListener listener = new PrintingListener(report, verbose);
        ClassRewriter rewriter = new ClassRewriter(filter);
        int persistent = 0;
        int redirected = 0;
        try (URLClassLoader types = new URLClassLoader("perpetua-rewrite", typePath(),
                ClassLoader.getPlatformClassLoader())) {
            for (Path file : classFiles()) {
                String internalName = internalName(file);
                String dotted = internalName.replace('/', '.');
                try {
                    byte[] bytes = Files.readAllBytes(file);
                    checkName(file, internalName, bytes);
                    ClassRewriter.Result result = rewriter.rewrite(types, internalName, bytes);
                    if (result.outcome() == ClassRewriter.Outcome.UNCHANGED) {
                        listener.onSkipped(dotted, types, result.detail());
                        continue;
                    }
                    replace(file, result.bytes());
                    if (result.outcome() == ClassRewriter.Outcome.LINK_ONLY) {
                        listener.onFailed(dotted, types, result.failure());
                        continue;
                    }
                    listener.onRewritten(dotted, types, result.detail());
                    if (result.outcome() == ClassRewriter.Outcome.REWRITTEN) {
                        persistent++;
                    } else {
                        redirected++;
                    }
                } catch (RewriteException e) {
                    listener.onFailed(dotted, types, e);
                } catch (IOException e) {
                    listener.onFailed(dotted, types, new RewriteException(dotted, "cannot read or replace " + file
                            + ": " + e, e));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rewrite " + directory + ": " + e.getMessage(), e);
        }
        report.flush();
        return new Summary(directory, persistent, redirected, listener.skipped(), listener.failed());
    }

    private List<Path> classFiles() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".class") && Files.isRegularFile(f))
                    .sorted()
                    .toList();
        }
    }

    private String internalName(Path file) {
        String relative = directory.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
        return relative.substring(0, relative.length() - ".class".length());
    }

    /**
     * A class file must sit where its name says ({@code a/b/C.class} for {@code a.b.C}): the types
     * are resolved by name, and the agent only ever sees classes found that way. This refuses,
     * for instance, the {@code META-INF/versions/N/} folders of a multi-release layout.
     */
    private static void checkName(Path file, String internalName, byte[] bytes) {
        String declared;
        try {
            declared = new ClassReader(bytes).getClassName();
        } catch (RuntimeException e) {
            return; // not a class file: the rewriter says so
        }
        if (!declared.equals(internalName)) {
            throw new RewriteException(internalName.replace('/', '.'), "the file " + file + " holds class "
                    + declared.replace('/', '.') + ", which belongs at " + declared + ".class under the directory;"
                    + " only class files at the path of their own name are rewritten", null);
        }
    }

    private static void replace(Path file, byte[] bytes) throws IOException {
        Path temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
        try {
            Files.write(temporary, bytes);
            try {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** The directory, the class path, then perpetua-core: the order the application's loader sees them in. */
    private URL[] typePath() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        urls.add(directory.toUri().toURL());
        for (Path p : classPath) {
            urls.add(p.toUri().toURL());
        }
        CodeSource core = Persistent.class.getProtectionDomain().getCodeSource();
        if (core != null && core.getLocation() != null) {
            urls.add(core.getLocation());
        }
        return urls.toArray(URL[]::new);
    }
}
