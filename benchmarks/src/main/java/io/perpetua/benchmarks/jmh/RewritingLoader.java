package io.perpetua.benchmarks.jmh;

import io.perpetua.agent.transform.ClassFilter;
import io.perpetua.agent.transform.ClassRewriter;

import java.io.IOException;
import java.io.InputStream;

/**
 * Loads the classes of one package a second time, child-first, rewritten by the agent's own
 * pipeline ({@link ClassRewriter}) exactly as {@code -javaagent} would; everything else (core,
 * {@link Workload}, the JDK) comes from the parent. Lets one JVM hold the plain and the
 * rewritten copy of the same code.
 */
final class RewritingLoader extends ClassLoader {
    private final String prefix;
    private final ClassRewriter rewriter = new ClassRewriter(ClassFilter.everything());

    RewritingLoader(ClassLoader parent, String packagePrefix) {
        super(parent);
        this.prefix = packagePrefix;
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
                byte[] bytes;
                try (InputStream in = getParent().getResourceAsStream(internal + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    bytes = in.readAllBytes();
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
                ClassRewriter.Result r = rewriter.rewrite(this, internal, bytes);
                byte[] out = r.bytes() != null ? r.bytes() : bytes;
                c = defineClass(name, out, 0, out.length);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }
}
