package io.perpetua.agent;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Class files with a method that fits the JVM's 64 KB code limit as written, but not once the
 * agent puts its entry check first in it (4 bytes): such a class cannot be rewritten whole.
 */
public final class TooBig {
    /** How many times {@code sum()} reads {@code this.x}: 5 bytes each, 65,532 bytes in all. */
    public static final int READS = 13_106;

    private TooBig() {
    }

    /**
     * @param name the internal name of the class
     * @param fieldAccess the access flags of its field {@code int x}
     * @param withMain whether it has a {@code main} that prints {@code main ran}
     * @return {@code public class name { int x; public name() {} public int sum() { return x + x +
     *         ... ; } }}, {@code x} read {@link #READS} times
     */
    public static byte[] classFile(String name, int fieldAccess, boolean withMain) {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, "java/lang/Object", null);
        cw.visitField(fieldAccess, "x", "I", null, null).visitEnd();
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor sum = cw.visitMethod(Opcodes.ACC_PUBLIC, "sum", "()I", null, null);
        sum.visitCode();
        sum.visitInsn(Opcodes.ICONST_0);
        for (int i = 0; i < READS; i++) {
            sum.visitVarInsn(Opcodes.ALOAD, 0);
            sum.visitFieldInsn(Opcodes.GETFIELD, name, "x", "I");
            sum.visitInsn(Opcodes.IADD);
        }
        sum.visitInsn(Opcodes.IRETURN);
        sum.visitMaxs(0, 0);
        sum.visitEnd();
        if (withMain) {
            MethodVisitor main = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "main",
                    "([Ljava/lang/String;)V", null, null);
            main.visitCode();
            main.visitFieldInsn(Opcodes.GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
            main.visitLdcInsn("main ran");
            main.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V",
                    false);
            main.visitInsn(Opcodes.RETURN);
            main.visitMaxs(0, 0);
            main.visitEnd();
        }
        cw.visitEnd();
        return cw.toByteArray();
    }
}
