package io.perpetua.agent.cli;

import io.perpetua.agent.report.TransformListener;
import io.perpetua.agent.transform.ClassFilter;
import io.perpetua.agent.transform.ClassRewriter;
import io.perpetua.agent.transform.PerpetuaTransformer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Defines the classes of one package prefix itself; everything else (core, JDK, test code) comes
 * from the test's loader. Either reads them from a directory as they are (the output of the
 * rewrite command: no agent involved), or reads the originals from the test class path and
 * passes them through the real {@link PerpetuaTransformer}, as the JVM does under
 * {@code -javaagent}. Tests only.
 */
final class ChildFirstLoader extends ClassLoader {
    private final String prefix;
    private final Path directory;
    private final PerpetuaTransformer transformer;
    /** Class files as defined, by internal name. */
    final Map<String, byte[]> defined = new LinkedHashMap<>();
    final List<String> failed = new ArrayList<>();

    private ChildFirstLoader(String prefix, Path directory, boolean agent) {
        super(ChildFirstLoader.class.getClassLoader());
        this.prefix = prefix;
        this.directory = directory;
        this.transformer = !agent ? null : new PerpetuaTransformer(new ClassRewriter(ClassFilter.everything()),
                new TransformListener() {
                    @Override
                    public void onRewritten(String className, ClassLoader loader, String detail) {
                    }

                    @Override
                    public void onSkipped(String className, ClassLoader loader, String reason) {
                    }

                    @Override
                    public void onFailed(String className, ClassLoader loader, Throwable error) {
                        failed.add(className + ": " + error);
                    }

                    @Override
                    public void onWarning(String className, String message) {
                    }
                }, false, null);
    }

    /** Classes as the directory holds them. */
    static ChildFirstLoader fromDirectory(String prefix, Path directory) {
        return new ChildFirstLoader(prefix, directory, false);
    }

    /** The test class path's originals, rewritten at load time by the agent's transformer. */
    static ChildFirstLoader underTheAgent(String prefix) {
        return new ChildFirstLoader(prefix, null, true);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(prefix)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                String internal = name.replace('.', '/');
                byte[] bytes = read(internal);
                if (bytes == null) {
                    throw new ClassNotFoundException(name);
                }
                if (transformer != null) {
                    byte[] rewritten = transformer.transform(this, internal, null, null, bytes);
                    bytes = rewritten != null ? rewritten : bytes;
                }
                defined.put(internal, bytes);
                c = defineClass(name, bytes, 0, bytes.length);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    private byte[] read(String internal) {
        try {
            if (directory != null) {
                Path file = directory.resolve(internal + ".class");
                return Files.exists(file) ? Files.readAllBytes(file) : null;
            }
            try (InputStream in = getParent().getResourceAsStream(internal + ".class")) {
                return in == null ? null : in.readAllBytes();
            } catch (IllegalArgumentException e) {
                // a name outside the Basic Multilingual Plane: the JDK cannot decode the URL it
                // made for it (see the agent's TypeResolver); the test classes are a directory
                for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
                    Path file = Path.of(entry, internal + ".class");
                    if (Files.isRegularFile(file)) {
                        return Files.readAllBytes(file);
                    }
                }
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the class, initialized */
    Class<?> load(String name) {
        try {
            return Class.forName(name, true, this);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    /** Calls a public static no-argument method of one of the classes. */
    Object callStatic(String className, String method) throws ReflectiveOperationException {
        try {
            return load(className).getMethod(method).invoke(null);
        } catch (InvocationTargetException e) {
            throw new AssertionError("failed in " + className + "." + method, e.getCause());
        }
    }
}
