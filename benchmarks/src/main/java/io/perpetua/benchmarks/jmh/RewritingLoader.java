package io.perpetua.benchmarks.jmh;

import io.perpetua.agent.transform.ClassFilter;
import io.perpetua.agent.transform.ClassRewriter;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

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
    private final Transform transform;

    /** What is done to each class file of the package. */
    private interface Transform {
        /** @return the new class file, or null to load it as it is */
        byte[] apply(ClassLoader loader, String internalName, byte[] bytes);
    }

    /** Rewrites the package's classes as the agent does. */
    RewritingLoader(ClassLoader parent, String packagePrefix) {
        this(parent, packagePrefix, rewriting(new ClassRewriter(ClassFilter.everything())));
    }

    private static Transform rewriting(ClassRewriter rewriter) {
        return (loader, internalName, bytes) -> rewriter.rewrite(loader, internalName, bytes).bytes();
    }

    private RewritingLoader(ClassLoader parent, String packagePrefix, Transform transform) {
        super(parent);
        this.prefix = packagePrefix;
        this.transform = transform;
    }

    /**
     * The control for the rewritten copy: each class of the package whose super-class is outside
     * it gets the two instance fields the agent adds to a top-most class (a {@code byte} and a
     * reference), and nothing else changes. Its objects have the rewritten objects' size and
     * layout, without a single check, so that the cost of the checks and the cost of the larger
     * objects can be told apart.
     */
    static RewritingLoader padding(ClassLoader parent, String packagePrefix) {
        String internalPrefix = packagePrefix.replace('.', '/');
        return new RewritingLoader(parent, packagePrefix, (loader, internalName, bytes) -> {
            ClassReader reader = new ClassReader(bytes);
            ClassWriter writer = new ClassWriter(reader, 0);
            reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
                private boolean topMost;

                @Override
                public void visit(int version, int access, String name, String signature, String superName,
                                  String[] interfaces) {
                    topMost = (access & Opcodes.ACC_INTERFACE) == 0 && !superName.startsWith(internalPrefix);
                    super.visit(version, access, name, signature, superName, interfaces);
                }

                @Override
                public void visitEnd() {
                    if (topMost) {
                        int access = Opcodes.ACC_PUBLIC | Opcodes.ACC_TRANSIENT | Opcodes.ACC_SYNTHETIC;
                        super.visitField(access, "$padding$state", "B", null, null).visitEnd();
                        super.visitField(access, "$padding$handle", "Ljava/lang/Object;", null, null).visitEnd();
                    }
                    super.visitEnd();
                }
            }, 0);
            return writer.toByteArray();
        });
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
                byte[] transformed = transform.apply(this, internal, bytes);
                byte[] out = transformed != null ? transformed : bytes;
                c = defineClass(name, out, 0, out.length);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }
}
