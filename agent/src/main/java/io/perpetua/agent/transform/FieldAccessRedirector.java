package io.perpetua.agent.transform;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns every {@code GETFIELD}/{@code PUTFIELD} on a field of a persistent-capable class into a
 * call of that field's static accessor ({@code Owner.$perpetua$get$f(Declaring)} /
 * {@code Owner.$perpetua$set$f(Declaring, value)}), which does the residency check (JSPIN 3.5).
 * Exceptions, where the receiver is certainly {@code this} (by {@link ReceiverAnalysis}):
 * <ul>
 *   <li>in a constructor, reads and writes stay direct: the object is new (transient), and
 *       before the super-constructor call nothing may be called on it;</li>
 *   <li>in an instance method of a persistent-capable class, reads stay direct: the method's
 *       entry check ({@link ResidencyCheckAdder}) has made the object resident. Not those of
 *       array fields, which a fill may leave lazy (their getter decodes them); and writes still
 *       go through the setter, which marks the object dirty.</li>
 * </ul>
 * The replacement has the same stack effect as the field instruction, so stack map frames stay
 * valid. Accessors are static, so field hiding and protected access behave as for the field.
 */
final class FieldAccessRedirector extends ClassVisitor {

    private final TypeResolver resolver;
    private final boolean persistentClass;
    private String className;
    private int redirected;
    /** Added to each method first, on the same tree (see {@link ArrayWriteBarrier}). */
    private ArrayWriteBarrier barrier;

    /** Methods (name and descriptor) the barrier would push past the JVM's code size limit. */
    private final Set<String> unbarriered;

    /**
     * @param unbarriered the methods (name and descriptor) to leave without the array write
     *        barrier: with it they would exceed the JVM's code size limit
     */
    FieldAccessRedirector(ClassVisitor next, TypeResolver resolver, boolean persistentClass,
                          Set<String> unbarriered) {
        super(Opcodes.ASM9, next);
        this.resolver = resolver;
        this.persistentClass = persistentClass;
        this.unbarriered = unbarriered;
    }

    /** @return how many field instructions were replaced by accessor calls */
    int redirected() {
        return redirected;
    }

    /** @return the class's array write barrier, after the class was visited */
    ArrayWriteBarrier barrier() {
        return barrier;
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName,
                      String[] interfaces) {
        className = name;
        barrier = new ArrayWriteBarrier(resolver, name, (access & Opcodes.ACC_INTERFACE) != 0, version, unbarriered);
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                     String[] exceptions) {
        MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
        return new MethodNode(Opcodes.ASM9, access, name, descriptor, signature, exceptions) {
            @Override
            public void visitEnd() {
                barrier.rewrite(this);
                rewrite(this);
                if (persistentClass) {
                    hookClones(this);
                }
                accept(next);
            }
        };
    }

    @Override
    public void visitEnd() {
        barrier.addBridges(cv);
        super.visitEnd();
    }

    /**
     * Passes the result of each {@code clone()} call (on an object, not an array) to
     * {@code Residency.afterClone(copy, original)}: {@code Object.clone()} copies the state and
     * handle of a persistent object, and the copy must become a new, transient object. Only a
     * persistent-capable class can reach {@code Object.clone()} on its instances (it is protected),
     * so only their methods are hooked; a public {@code clone()} they declare is hooked inside.
     * <pre>
     *   recv                     recv
     *   invoke clone       =&gt;   DUP; invoke clone; SWAP; INVOKESTATIC afterClone; CHECKCAST T
     * </pre>
     */
    private static void hookClones(MethodNode method) {
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if ((insn.getOpcode() == Opcodes.INVOKESPECIAL || insn.getOpcode() == Opcodes.INVOKEVIRTUAL)
                    && insn instanceof MethodInsnNode m && m.name.equals("clone") && m.desc.startsWith("()L")
                    && !m.owner.startsWith("[")) {
                method.instructions.insertBefore(m, new InsnNode(Opcodes.DUP));
                InsnList after = new InsnList();
                after.add(new InsnNode(Opcodes.SWAP));
                after.add(new MethodInsnNode(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.AFTER_CLONE,
                        Protocol.AFTER_CLONE_DESC, false));
                String returned = Type.getReturnType(m.desc).getInternalName();
                if (!returned.equals("java/lang/Object")) {
                    after.add(new TypeInsnNode(Opcodes.CHECKCAST, returned));
                }
                method.instructions.insert(m, after);
            }
        }
    }

    /**
     * A field of the JDK collection a persistent-capable class extends ({@code Vector}'s
     * {@code elementData} or {@code elementCount}: {@link TypeResolver#isInheritedContainerField})
     * has no accessor: the access stays direct, after {@code Residency.beforeWrite(receiver)},
     * which fills the object if hollow and marks it dirty. A read too, even on {@code this}
     * (whose method-entry check is a read check): a subclass writes into {@code elementData} by
     * reading it, and its stored contents change only through a write check.
     * <pre>
     *   GETFIELD:           recv        =&gt;  DUP; INVOKESTATIC beforeWrite; GETFIELD
     *   PUTFIELD (1 slot):  recv, v     =&gt;  DUP2; POP; INVOKESTATIC beforeWrite; PUTFIELD
     *   PUTFIELD (2 slots): recv, vv    =&gt;  DUP2_X1; POP2; DUP_X2; INVOKESTATIC beforeWrite; PUTFIELD
     * </pre>
     */
    private static void checkContainerField(MethodNode method, FieldInsnNode f) {
        InsnList check = new InsnList();
        if (f.getOpcode() == Opcodes.GETFIELD) {
            check.add(new InsnNode(Opcodes.DUP));
        } else if (Type.getType(f.desc).getSize() == 1) {
            check.add(new InsnNode(Opcodes.DUP2));
            check.add(new InsnNode(Opcodes.POP));
        } else {
            check.add(new InsnNode(Opcodes.DUP2_X1));
            check.add(new InsnNode(Opcodes.POP2));
            check.add(new InsnNode(Opcodes.DUP_X2));
        }
        // the receiver is of the rewritten class (protected access), which implements Persistent
        check.add(new MethodInsnNode(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.BEFORE_WRITE,
                Protocol.SLOW_PATH_DESC, false));
        method.instructions.insertBefore(f, check);
    }

    private void rewrite(MethodNode method) {
        List<FieldInsnNode> candidates = new ArrayList<>();
        List<ClassInfo> declaring = new ArrayList<>();
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn.getOpcode() == Opcodes.GETFIELD || insn.getOpcode() == Opcodes.PUTFIELD) {
                FieldInsnNode f = (FieldInsnNode) insn;
                ClassInfo d = resolver.redirectTarget(f.owner, f.name, f.desc);
                if (d != null || persistentClass && resolver.isInheritedContainerField(f.owner, f.name, f.desc)) {
                    candidates.add(f);
                    declaring.add(d); // null: a JDK collection's own field, see checkContainerField
                }
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        boolean constructor = "<init>".equals(method.name);
        boolean instance = (method.access & Opcodes.ACC_STATIC) == 0;
        Frame<ReceiverAnalysis.Receiver>[] frames = null;
        if (instance && (constructor || persistentClass)) {
            try {
                frames = ReceiverAnalysis.analyze(className, method);
            } catch (AnalyzerException e) {
                throw new IllegalStateException("cannot analyze method " + method.name + method.desc + ": "
                        + e.getMessage(), e);
            }
        }
        List<FieldInsnNode> containerFields = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            FieldInsnNode f = candidates.get(i);
            boolean get = f.getOpcode() == Opcodes.GETFIELD;
            if (frames != null) {
                boolean onThis = ReceiverAnalysis.receiverIsThis(frames[method.instructions.indexOf(f)], f);
                // an array field is read through its getter even on this: a fill may have left it lazy
                if (onThis && (constructor || get && !f.desc.startsWith("[") && declaring.get(i) != null)) {
                    continue;
                }
            }
            if (declaring.get(i) == null) {
                containerFields.add(f); // checked after the loop: inserting shifts the frames' indices
                continue;
            }
            String decl = declaring.get(i).name;
            MethodInsnNode call = get
                    ? new MethodInsnNode(Opcodes.INVOKESTATIC, f.owner, Protocol.GET + f.name,
                            Protocol.getterDescriptor(decl, f.desc), false)
                    : new MethodInsnNode(Opcodes.INVOKESTATIC, f.owner, Protocol.SET + f.name,
                            Protocol.setterDescriptor(decl, f.desc), false);
            method.instructions.set(f, call);
            redirected++;
        }
        for (FieldInsnNode f : containerFields) {
            checkContainerField(method, f);
        }
    }
}
