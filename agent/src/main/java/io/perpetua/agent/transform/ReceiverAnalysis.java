package io.perpetua.agent.transform;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.Interpreter;
import org.objectweb.asm.tree.analysis.Value;

import java.util.List;

/**
 * A data-flow analysis that tells, for each instruction of an instance method or constructor,
 * whether a stack slot certainly holds {@code this} (local 0 at entry), through copies,
 * stores, casts and merges. Only identity is tracked, not types, so it needs no class loading.
 */
final class ReceiverAnalysis {

    /** A value: {@code this}, or anything else, with its size in slots. */
    static final class Receiver implements Value {
        static final Receiver THIS = new Receiver(1, true);
        static final Receiver OTHER = new Receiver(1, false);
        static final Receiver OTHER_WIDE = new Receiver(2, false);

        private final int size;
        final boolean isThis;

        private Receiver(int size, boolean isThis) {
            this.size = size;
            this.isThis = isThis;
        }

        static Receiver of(int size) {
            return size == 2 ? OTHER_WIDE : OTHER;
        }

        static Receiver of(Type type) {
            return of(type.getSize());
        }

        @Override
        public int getSize() {
            return size;
        }
    }

    private ReceiverAnalysis() {
    }

    /**
     * @param owner the internal name of the method's class
     * @param method an instance method or constructor with code
     * @return one frame per instruction (null for unreachable ones)
     */
    static Frame<Receiver>[] analyze(String owner, MethodNode method) throws AnalyzerException {
        return new Analyzer<>(new ThisInterpreter()).analyze(owner, method);
    }

    /**
     * @return whether the object a GETFIELD or PUTFIELD at {@code insn} operates on is certainly
     *         {@code this}
     */
    static boolean receiverIsThis(Frame<Receiver> frame, FieldInsnNode insn) {
        if (frame == null) {
            return false; // unreachable code: leave it as the redirection makes it
        }
        int top = frame.getStackSize() - 1;
        int receiverIndex = insn.getOpcode() == Opcodes.GETFIELD ? top : top - 1;
        return receiverIndex >= 0 && frame.getStack(receiverIndex).isThis;
    }

    private static final class ThisInterpreter extends Interpreter<Receiver> {
        ThisInterpreter() {
            super(Opcodes.ASM9);
        }

        @Override
        public Receiver newValue(Type type) {
            if (type == null) {
                return Receiver.OTHER;
            }
            if (type.getSort() == Type.VOID) {
                return null;
            }
            return Receiver.of(type);
        }

        @Override
        public Receiver newParameterValue(boolean isInstanceMethod, int local, Type type) {
            if (isInstanceMethod && local == 0) {
                return Receiver.THIS;
            }
            return newValue(type);
        }

        @Override
        public Receiver newOperation(AbstractInsnNode insn) {
            switch (insn.getOpcode()) {
                case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1:
                    return Receiver.OTHER_WIDE;
                case Opcodes.LDC:
                    Object c = ((LdcInsnNode) insn).cst;
                    return c instanceof Long || c instanceof Double ? Receiver.OTHER_WIDE : Receiver.OTHER;
                case Opcodes.GETSTATIC:
                    return Receiver.of(Type.getType(((FieldInsnNode) insn).desc));
                default:
                    return Receiver.OTHER;
            }
        }

        @Override
        public Receiver copyOperation(AbstractInsnNode insn, Receiver value) {
            return value;
        }

        @Override
        public Receiver unaryOperation(AbstractInsnNode insn, Receiver value) {
            switch (insn.getOpcode()) {
                case Opcodes.CHECKCAST:
                    return value; // a cast of this is still this
                case Opcodes.LNEG, Opcodes.DNEG, Opcodes.I2L, Opcodes.I2D, Opcodes.L2D, Opcodes.F2L,
                     Opcodes.F2D, Opcodes.D2L:
                    return Receiver.OTHER_WIDE;
                case Opcodes.GETFIELD:
                    return Receiver.of(Type.getType(((FieldInsnNode) insn).desc));
                case Opcodes.IFEQ, Opcodes.IFNE, Opcodes.IFLT, Opcodes.IFGE, Opcodes.IFGT, Opcodes.IFLE,
                     Opcodes.TABLESWITCH, Opcodes.LOOKUPSWITCH, Opcodes.IRETURN, Opcodes.LRETURN,
                     Opcodes.FRETURN, Opcodes.DRETURN, Opcodes.ARETURN, Opcodes.PUTSTATIC, Opcodes.ATHROW,
                     Opcodes.MONITORENTER, Opcodes.MONITOREXIT, Opcodes.IFNULL, Opcodes.IFNONNULL:
                    return null;
                default:
                    return Receiver.OTHER;
            }
        }

        @Override
        public Receiver binaryOperation(AbstractInsnNode insn, Receiver value1, Receiver value2) {
            switch (insn.getOpcode()) {
                case Opcodes.LALOAD, Opcodes.DALOAD, Opcodes.LADD, Opcodes.DADD, Opcodes.LSUB, Opcodes.DSUB,
                     Opcodes.LMUL, Opcodes.DMUL, Opcodes.LDIV, Opcodes.DDIV, Opcodes.LREM, Opcodes.DREM,
                     Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR, Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR:
                    return Receiver.OTHER_WIDE;
                case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE,
                     Opcodes.IF_ICMPGT, Opcodes.IF_ICMPLE, Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE,
                     Opcodes.PUTFIELD:
                    return null;
                default:
                    return Receiver.OTHER;
            }
        }

        @Override
        public Receiver ternaryOperation(AbstractInsnNode insn, Receiver value1, Receiver value2,
                                         Receiver value3) {
            return null;
        }

        @Override
        public Receiver naryOperation(AbstractInsnNode insn, List<? extends Receiver> values) {
            Type returnType;
            if (insn instanceof MethodInsnNode m) {
                returnType = Type.getReturnType(m.desc);
            } else if (insn instanceof InvokeDynamicInsnNode d) {
                returnType = Type.getReturnType(d.desc);
            } else {
                return Receiver.OTHER; // MULTIANEWARRAY
            }
            return returnType.getSort() == Type.VOID ? null : Receiver.of(returnType);
        }

        @Override
        public void returnOperation(AbstractInsnNode insn, Receiver value, Receiver expected) {
        }

        @Override
        public Receiver merge(Receiver a, Receiver b) {
            if (a == b) {
                return a;
            }
            return Receiver.of(Math.min(a.getSize(), b.getSize()));
        }
    }
}
