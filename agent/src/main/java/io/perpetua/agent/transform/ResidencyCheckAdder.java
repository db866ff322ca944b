package io.perpetua.agent.transform;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Puts a residency check first in every instance method of a persistent-capable class (JSPIN
 * 3.5): {@code $perpetua$resident(this)}, a private static method that
 * {@link PersistentMembersAdder} generates and the JIT inlines ({@code if (state == HOLLOW)
 * Residency.load(this)}). Being a call, the check adds no branch to the method and so leaves its
 * stack map frames valid. Constructors get no check: their object is new, and nothing may be
 * called on it before the super-constructor call.
 */
final class ResidencyCheckAdder extends ClassVisitor {
    private String className;

    ResidencyCheckAdder(ClassVisitor next) {
        super(Opcodes.ASM9, next);
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName,
                      String[] interfaces) {
        className = name;
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                     String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        if ((access & Opcodes.ACC_STATIC) != 0 || "<init>".equals(name) || mv == null) {
            return mv;
        }
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, className, Protocol.RESIDENT,
                        "(L" + className + ";)V", false);
            }
        };
    }
}
