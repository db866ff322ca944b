package io.perpetua.agent.transform;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.JSRInlinerAdapter;
import org.objectweb.asm.commons.SerialVersionUIDAdder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rewrites one class file: the pipeline of one-concern adapters, in order
 * <ol>
 *   <li>{@link ClassFileUpgrader} (class files older than Java 7 only: the generated code
 *       carries stack map frames and loads class constants; frames are then recomputed from
 *       class bytes),</li>
 *   <li>{@link SerialVersionUIDAdder} (a {@code Serializable} class keeps the default
 *       {@code serialVersionUID} of its original form),</li>
 *   <li>{@link FieldAccessRedirector} (every application class),</li>
 *   <li>{@link ResidencyCheckAdder} and {@link PersistentMembersAdder} (persistent-capable
 *       classes).</li>
 * </ol>
 * Thread-safe: holds only the immutable filter.
 */
public final class ClassRewriter {

    /** The newest class file major version the bundled ASM reads. */
    public static final int NEWEST_CLASS_FILE_VERSION = Opcodes.V26;

    /** What happened to one class. */
    public enum Outcome {
        /** Made persistent-capable. */
        REWRITTEN,
        /** Not persistent-capable, but some of its field accesses now go through accessors. */
        REDIRECTED,
        /** Left exactly as it was. */
        UNCHANGED,
        /**
         * Persistent-capable classes in the JVM may already link against its generated members
         * (a subclass rewritten before it, a class reading its fields), but it could not be
         * rewritten whole: it gets those members only, with its own code unchanged, and the
         * kernel refuses to store its instances. A failure, reported as one.
         */
        LINK_ONLY
    }

    /**
     * @param outcome what happened
     * @param bytes the new class file, or null if {@code UNCHANGED}
     * @param detail a one-line summary (for {@code UNCHANGED}, the reason), not null
     * @param arraysUntracked null, or why the kernel must not trust the array write log once
     *        this class is loaded: some of its code may change arrays without logging it
     * @param failure why the class could not be rewritten whole if {@code LINK_ONLY}, else null
     */
    public record Result(Outcome outcome, byte[] bytes, String detail, String arraysUntracked,
                         RewriteException failure) {
        Result(Outcome outcome, byte[] bytes, String detail, String arraysUntracked) {
            this(outcome, bytes, detail, arraysUntracked, null);
        }

        Result(Outcome outcome, byte[] bytes, String detail) {
            this(outcome, bytes, detail, null, null);
        }
    }

    private final ClassFilter filter;

    /** @param filter which classes may be touched, not null */
    public ClassRewriter(ClassFilter filter) {
        this.filter = filter;
    }

    /** @return the filter this rewriter applies */
    public ClassFilter filter() {
        return filter;
    }

    /**
     * @param loader the class's defining loader, used to read the class files of the types it
     *        refers to; null for the bootstrap loader
     * @param className the class's internal name as the JVM gave it, for messages; may be null
     * @param bytes the class file
     * @return what was done ({@code LINK_ONLY} is a failure too, to be reported)
     * @throws RewriteException if the class cannot be rewritten (it must then be left as it was)
     */
    public Result rewrite(ClassLoader loader, String className, byte[] bytes) {
        return rewrite(TypeResolver.of(loader, filter), className, bytes);
    }

    /**
     * Rewrites a generated sample class ({@code perpetua/warmup/Sample}: an int, an int array and
     * a reference field; a constructor; a method that stores into the array, copies a field and
     * concatenates a string with {@code invokedynamic}) with a resolver of its own and the
     * default filter, so that the first application class does not load the agent's code paths.
     *
     * @return the sample's result, {@code REWRITTEN}
     */
    public Result warmUp() {
        String name = "perpetua/warmup/Sample";
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, "java/lang/Object", null);
        cw.visitField(0, "count", "I", null, null).visitEnd();
        cw.visitField(0, "counts", "[I", null, null).visitEnd();
        cw.visitField(0, "next", "Ljava/lang/Object;", null, null).visitEnd();
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "touch", "()Ljava/lang/String;", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, name, "counts", "[I");
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, name, "count", "I");
        mv.visitInsn(Opcodes.IASTORE);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, name, "next", "Ljava/lang/Object;");
        mv.visitFieldInsn(Opcodes.PUTFIELD, name, "next", "Ljava/lang/Object;");
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, name, "next", "Ljava/lang/Object;");
        mv.visitInvokeDynamicInsn("makeConcatWithConstants", "(Ljava/lang/Object;)Ljava/lang/String;",
                new org.objectweb.asm.Handle(Opcodes.H_INVOKESTATIC, "java/lang/invoke/StringConcatFactory",
                        "makeConcatWithConstants", "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
                        + "Ljava/lang/invoke/MethodType;Ljava/lang/String;[Ljava/lang/Object;)"
                        + "Ljava/lang/invoke/CallSite;", false), "next \u0001");
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return rewrite(TypeResolver.unshared(ClassRewriter.class.getClassLoader(), ClassFilter.everything()), name,
                cw.toByteArray());
    }

    Result rewrite(TypeResolver resolver, String className, byte[] bytes) {
        String name = className == null ? "?" : className;
        ClassReader reader = null;
        ClassInfo info = null;
        Capability capability = null;
        try {
            checkVersion(name.replace('/', '.'), bytes);
            reader = new ClassReader(bytes);
            name = reader.getClassName();
            info = ClassInfo.read(reader, false);
            resolver.define(info);
            capability = resolver.capability(info);
            if (capability.kind == Capability.Kind.UNTOUCHED) {
                return new Result(Outcome.UNCHANGED, null, capability.reason);
            }
            if (capability.alreadyRewritten) {
                return new Result(Outcome.UNCHANGED, null, "already rewritten", logsArrayWrites(reader) ? null
                        : name.replace('/', '.') + " was rewritten before, by a Perpetua without the array write"
                        + " barrier or with its own code left unchanged");
            }
            Set<String> unbarriered = new HashSet<>();
            while (true) {
                try {
                    return transform(resolver, reader, info, capability, unbarriered);
                } catch (MethodTooLargeException e) {
                    // once more without the array write barrier in that method, if that was what
                    // pushed it over; a method too large even without it fails the class
                    if (!unbarriered.add(e.getMethodName() + e.getDescriptor())) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            RewriteException failure = failure(name.replace('/', '.'), e);
            if (capability == null || !capability.isPersistent() || capability.alreadyRewritten) {
                throw failure;
            }
            return linkOnly(resolver, reader, info, capability, failure);
        }
    }

    private static RewriteException failure(String name, Throwable e) {
        if (e instanceof RewriteException re) {
            return re;
        }
        if (e instanceof TypeResolver.UnresolvedTypeException) {
            return new RewriteException(name, e.getMessage(), e);
        }
        return new RewriteException(name, "rewriting failed: " + e, e);
    }

    /**
     * Once a class is known persistent-capable, rewritten classes may link against its
     * generated members: a subclass is rewritten before its super-class is loaded, and code
     * anywhere reads its fields through its accessors. Left as it was, it would make them fail
     * with {@code NoSuchFieldError} or {@code NoSuchMethodError}, far from the cause. So a class
     * that fails to be rewritten whole gets those members, and its own code is left exactly as
     * it was (no entry checks, no redirected field accesses, no array write barrier: whatever
     * made it fail is in them), with {@code $perpetua$refused} saying why so that the kernel
     * refuses its instances.
     *
     * @return the {@code LINK_ONLY} result
     * @throws RewriteException {@code failure} if even that cannot be done
     */
    private Result linkOnly(TypeResolver resolver, ClassReader reader, ClassInfo info, Capability capability,
                            RewriteException failure) {
        String dotted = info.name.replace('/', '.');
        // the generated code loads class constants, which class files before Java 5 cannot
        if ((info.version & 0xFFFF) < Opcodes.V1_5) {
            throw failure;
        }
        try {
            ClassWriter writer = writer(resolver, reader, ClassWriter.COMPUTE_MAXS);
            String reason = failure.getMessage().substring(Math.min(failure.getMessage().length(),
                    dotted.length() + 2));
            if (reason.length() > 1_000) {
                reason = reason.substring(0, 1_000) + "...";
            }
            ClassVisitor chain = new PersistentMembersAdder(writer, info, resolver, capability.topMost,
                    new ArrayList<>(), reason);
            if (resolver.isSubtype(info.name, "java/io/Serializable")) {
                chain = new SerialVersionUIDAdder(chain);
            }
            reader.accept(chain, 0);
            RewriteException reported = new RewriteException(dotted, reason + "; given only the members other"
                    + " rewritten classes link against: its own code is unchanged and unchecked, and its instances"
                    + " cannot persist", failure.getCause() == null ? failure : failure.getCause(), true);
            return new Result(Outcome.LINK_ONLY, writer.toByteArray(), reported.getMessage(),
                    dotted + " could not be rewritten whole", reported);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            failure.addSuppressed(e);
            throw failure;
        }
    }

    private Result transform(TypeResolver resolver, ClassReader reader, ClassInfo info, Capability capability,
                             Set<String> unbarriered) {
        boolean persistent = capability.isPersistent();
        boolean upgrade = persistent && (info.version & 0xFFFF) < Opcodes.V1_7;
        ClassWriter writer = writer(resolver, reader, upgrade ? ClassWriter.COMPUTE_FRAMES : ClassWriter.COMPUTE_MAXS);
        List<String> notes = new ArrayList<>();
        ClassVisitor chain = writer;
        if (persistent) {
            chain = new PersistentMembersAdder(chain, info, resolver, capability.topMost, notes);
            chain = new ResidencyCheckAdder(chain);
        }
        FieldAccessRedirector redirector = new FieldAccessRedirector(chain, resolver, persistent, unbarriered);
        chain = redirector;
        if (persistent && resolver.isSubtype(info.name, "java/io/Serializable")) {
            chain = new SerialVersionUIDAdder(chain);
        }
        if (upgrade) {
            chain = new ClassFileUpgrader(chain);
        }
        reader.accept(chain, upgrade ? ClassReader.SKIP_FRAMES : 0);
        ArrayWriteBarrier barrier = redirector.barrier();
        String untracked = barrier.untracked();
        if (!persistent) {
            if (redirector.redirected() == 0 && barrier.barriers() == 0) {
                return new Result(Outcome.UNCHANGED, null, capability.reason + "; no field access to redirect",
                        untracked);
            }
            return new Result(Outcome.REDIRECTED, writer.toByteArray(), capability.reason + "; "
                    + redirector.redirected() + " field accesses redirected, " + barrier.barriers()
                    + " array writes logged", untracked);
        }
        // The mark of this version, whether or not the class writes an array: an unused constant
        // naming the log, which logsArrayWrites looks for when the class comes back rewritten
        // (built ahead of time, then loaded under the agent)
        writer.newClass(ArrayWriteBarrier.RUNTIME);
        StringBuilder detail = new StringBuilder("persistent-capable");
        detail.append(capability.topMost ? ", top-most" : ", below " + info.superName.replace('/', '.'));
        detail.append(", ").append(info.persistentFields().size()).append(" persistent fields, ")
                .append(redirector.redirected()).append(" field accesses redirected, ")
                .append(barrier.barriers()).append(" array writes logged");
        if (upgrade) {
            detail.append(", class file upgraded from version ").append(info.version & 0xFFFF).append(" to 51");
        }
        for (String note : notes) {
            detail.append("; ").append(note);
        }
        return new Result(Outcome.REWRITTEN, writer.toByteArray(), detail.toString(), untracked);
    }

    /** @return a writer that copies what is not changed from {@code reader} and resolves types from bytes */
    private static ClassWriter writer(TypeResolver resolver, ClassReader reader, int flags) {
        return new ClassWriter(reader, flags) {
            @Override
            protected String getCommonSuperClass(String type1, String type2) {
                return resolver.commonSuperClass(type1, type2);
            }

            @Override
            protected ClassLoader getClassLoader() {
                throw new IllegalStateException("the rewriter must not load classes");
            }
        };
    }

    /**
     * @return whether a class file refers to the array write log, as every persistent-capable
     *         class rewritten by this version does (it is given the constant even if it writes no
     *         array); one rewritten by a version without the barrier does not
     */
    private static boolean logsArrayWrites(ClassReader reader) {
        char[] buffer = new char[reader.getMaxStringLength()];
        for (int i = 1; i < reader.getItemCount(); i++) {
            int offset = reader.getItem(i);
            if (offset > 0 && reader.readByte(offset - 1) == 7 // CONSTANT_Class
                    && ArrayWriteBarrier.RUNTIME.equals(reader.readUTF8(offset, buffer))) {
                return true;
            }
        }
        return false;
    }

    private static void checkVersion(String name, byte[] bytes) {
        if (bytes.length < 10 || (bytes[0] & 0xff) != 0xCA || (bytes[1] & 0xff) != 0xFE
                || (bytes[2] & 0xff) != 0xBA || (bytes[3] & 0xff) != 0xBE) {
            throw new RewriteException(name, "not a class file", null);
        }
        int major = ((bytes[6] & 0xff) << 8) | (bytes[7] & 0xff);
        if (major > NEWEST_CLASS_FILE_VERSION) {
            throw new RewriteException(name, "class file version " + major + " (Java " + (major - 44)
                    + ") is newer than the newest this agent's ASM reads (" + NEWEST_CLASS_FILE_VERSION
                    + ", Java " + (NEWEST_CLASS_FILE_VERSION - 44) + "); the class is left as it was and its"
                    + " instances cannot be made persistent", null);
        }
    }

    /**
     * Raises class files older than Java 7 to version 51, the version the generated code is
     * written for (it carries stack map frames, and its static initializer loads a class
     * constant, which versions before 49 cannot); inlines {@code JSR}/{@code RET} subroutines,
     * which version 51 forbids. Frames are then computed by the writer.
     */
    static final class ClassFileUpgrader extends ClassVisitor {
        ClassFileUpgrader(ClassVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            super.visit(Opcodes.V1_7, access, name, signature, superName, interfaces);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                         String[] exceptions) {
            MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
            return mv == null ? null : new JSRInlinerAdapter(mv, access, name, descriptor, signature, exceptions);
        }
    }
}
