package io.perpetua.agent.transform;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The array write barrier, added to every method of every application class (see
 * {@code io.perpetua.runtime.ArrayWrites}): arrays cannot note their own changes, so the code
 * that changes them says so, and a commit compares only the arrays written since the last one.
 * <ul>
 *   <li>Each array store ({@code AASTORE} ... {@code SASTORE}) becomes a call of the matching
 *       {@code ArrayWrites.*store} method, same stack effect, which logs the array unless it was
 *       the one logged last.</li>
 *   <li>A call of a JDK method (directly, or through an application class that inherits it from
 *       a JDK class) that passes or gets back an array logs what {@link ArrayUse} says the method
 *       may do with it. {@code System.arraycopy} becomes {@code ArrayWrites.arraycopy}.</li>
 *   <li>A method reference to such a JDK method ({@code Arrays::fill}, {@code ByteBuffer::wrap})
 *       goes through a generated static bridge in this class that does the same.</li>
 * </ul>
 * What it cannot make safe (a method reference to a super-method, which a static bridge cannot
 * call; a method it would push past the JVM's 64 KB code limit, left without it) it reports in
 * {@link #untracked()}: the agent then stops the kernel from trusting the log. Works
 * on the tree of one method at a time; one instance per class, not thread-safe.
 */
final class ArrayWriteBarrier {
    static final String RUNTIME = "io/perpetua/runtime/ArrayWrites";
    private static final String LAMBDA_METAFACTORY = "java/lang/invoke/LambdaMetafactory";

    private final TypeResolver resolver;
    private final String className;
    private final boolean classIsInterface;
    private final int classVersion;
    /** By target; in order of creation, so that the class file does not depend on hashing. */
    private final Map<String, Bridge> bridges = new LinkedHashMap<>();
    /** Methods (name and descriptor) left as they are: the barrier would make them too large. */
    private final Set<String> unbarriered;
    private String untracked;
    private int barriers;
    /** Whether {@link #rewrite} put a DUP into the method it is rewriting. */
    private boolean duplicated;

    /** A static method that calls a JDK method with the barrier around it. */
    private record Bridge(String name, String descriptor, Handle target, ArrayUse.Rule rule) {
    }

    ArrayWriteBarrier(TypeResolver resolver, String className, boolean classIsInterface, int classVersion,
                      Set<String> unbarriered) {
        this.resolver = resolver;
        this.className = className;
        this.classIsInterface = classIsInterface;
        this.classVersion = classVersion & 0xFFFF;
        this.unbarriered = unbarriered;
    }

    /** @return how many stores and calls now log */
    int barriers() {
        return barriers;
    }

    /** @return why the log cannot be trusted with this class, or null if it can */
    String untracked() {
        return untracked;
    }

    /** Adds the barrier to one method. */
    void rewrite(MethodNode method) {
        if (unbarriered.contains(method.name + method.desc)) {
            // Each store becomes a 3-byte call: a method of literal tables near the 64 KB limit
            // (a static initializer, usually) would not fit. Its writes go unlogged, so the
            // kernel compares every array at commit instead, as without the agent.
            if (untracked == null) {
                untracked = className.replace('/', '.') + "." + method.name + method.desc
                        + " is too large for the array write barrier";
            }
            return;
        }
        InsnList code = method.instructions;
        duplicated = false;
        Set<LabelNode> targets = null;
        for (AbstractInsnNode insn = code.getFirst(); insn != null; insn = insn.getNext()) {
            int op = insn.getOpcode();
            if (op == Opcodes.NEWARRAY || op == Opcodes.ANEWARRAY) {
                if (targets == null) {
                    targets = jumpTargets(method);
                }
                insn = literalStores(insn, targets);
            } else if (op >= Opcodes.IASTORE && op <= Opcodes.SASTORE) {
                String[] store = STORES[op - Opcodes.IASTORE];
                AbstractInsnNode call = new MethodInsnNode(Opcodes.INVOKESTATIC, RUNTIME, store[0], store[1], false);
                code.set(insn, call);
                insn = call;
                barriers++;
            } else if (insn instanceof MethodInsnNode m) {
                insn = call(method, m);
            } else if (insn instanceof InvokeDynamicInsnNode indy) {
                reference(method, indy);
            }
        }
        if (duplicated) {
            // Each DUP is taken by the log call right after it, so one slot covers them all. The
            // class writer recomputes the maximum anyway, but the receiver analysis that runs
            // next reads it, and failed ("Insufficient maximum stack size") on methods that
            // hand an array to the JDK at their deepest point, as H2 has 22 of.
            method.maxStack += 1;
        }
    }

    /**
     * Steps over the element stores of an array literal ({@code new int[] {1, 2, 3}}: after the
     * array is made, {@code DUP}, index, constant, store, for each element), which keep no
     * barrier: until the last of them the array is only on the operand stack, so nothing
     * persistent can hold it, and a store to an array no record holds needs no log. Literal
     * tables are the largest methods there are (Commons Math's {@code FastMathLiteralArrays}):
     * logged, they would grow by two bytes an element. The pattern stops at anything else, and
     * at a jump target (control could arrive there with another array on the stack).
     *
     * @param created the {@code NEWARRAY} or {@code ANEWARRAY}
     * @return the last instruction of the literal's stores, or {@code created} if there are none
     */
    private static AbstractInsnNode literalStores(AbstractInsnNode created, Set<LabelNode> targets) {
        AbstractInsnNode last = created;
        while (true) {
            AbstractInsnNode dup = next(last, targets);
            AbstractInsnNode index = next(dup, targets);
            AbstractInsnNode value = next(index, targets);
            AbstractInsnNode store = next(value, targets);
            if (dup == null || dup.getOpcode() != Opcodes.DUP || !pushesConstant(index) || !pushesConstant(value)
                    || store == null || store.getOpcode() < Opcodes.IASTORE || store.getOpcode() > Opcodes.SASTORE) {
                return last;
            }
            last = store;
        }
    }

    /** @return the next real instruction, stepping over line numbers and labels no jump targets; or null */
    private static AbstractInsnNode next(AbstractInsnNode insn, Set<LabelNode> targets) {
        if (insn == null) {
            return null;
        }
        for (AbstractInsnNode n = insn.getNext(); n != null; n = n.getNext()) {
            if (n instanceof LabelNode label) {
                if (targets.contains(label)) {
                    return null;
                }
            } else if (!(n instanceof LineNumberNode)) {
                return n.getOpcode() < 0 ? null : n; // a frame: a jump target, stop
            }
        }
        return null;
    }

    private static boolean pushesConstant(AbstractInsnNode insn) {
        if (insn == null) {
            return false;
        }
        int op = insn.getOpcode();
        return op >= Opcodes.ACONST_NULL && op <= Opcodes.SIPUSH || op == Opcodes.LDC;
    }

    /** @return the labels control can arrive at other than by falling through */
    private static Set<LabelNode> jumpTargets(MethodNode method) {
        Set<LabelNode> targets = new HashSet<>();
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn instanceof JumpInsnNode j) {
                targets.add(j.label);
            } else if (insn instanceof TableSwitchInsnNode t) {
                targets.add(t.dflt);
                targets.addAll(t.labels);
            } else if (insn instanceof LookupSwitchInsnNode l) {
                targets.add(l.dflt);
                targets.addAll(l.labels);
            }
        }
        for (TryCatchBlockNode t : method.tryCatchBlocks) {
            targets.add(t.handler);
        }
        return targets;
    }

    /**
     * The {@code ArrayWrites} method of each array store, by opcode from {@code IASTORE} to
     * {@code SASTORE} (consecutive): name and descriptor. {@code BASTORE} serves {@code byte[]}
     * and {@code boolean[]} alike, so its method takes an {@code Object}.
     */
    private static final String[][] STORES = {
        {"iastore", "([III)V"}, {"lastore", "([JIJ)V"}, {"fastore", "([FIF)V"}, {"dastore", "([DID)V"},
        {"aastore", "([Ljava/lang/Object;ILjava/lang/Object;)V"}, {"bastore", "(Ljava/lang/Object;II)V"},
        {"castore", "([CII)V"}, {"sastore", "([SII)V"},
    };

    /** @return the instruction to continue after */
    private AbstractInsnNode call(MethodNode method, MethodInsnNode m) {
        if (m.owner.equals("java/lang/System") && m.name.equals("arraycopy")) {
            MethodInsnNode copy = new MethodInsnNode(Opcodes.INVOKESTATIC, RUNTIME, "arraycopy", m.desc, false);
            method.instructions.set(m, copy);
            barriers++;
            return copy;
        }
        ArrayUse.Rule rule = rule(m.owner, m.name, m.desc);
        if (rule == null) {
            return m;
        }
        InsnList code = method.instructions;
        Type[] params = Type.getArgumentTypes(m.desc);
        InsnList before = new InsnList();
        int last = params.length - 1;
        boolean onlyLast = last >= 0 && rule.params()[last] != ArrayUse.Action.NONE;
        for (int i = 0; i < last && onlyLast; i++) {
            onlyLast = rule.params()[i] == ArrayUse.Action.NONE;
        }
        if (onlyLast) {
            duplicated = true;
            before.add(new InsnNode(Opcodes.DUP));
            before.add(log(rule.params()[last]));
        } else if (rule.logsParameters()) {
            // Spill the arguments into fresh locals, log the arrays among them, load them back:
            // nothing branches in between, so no stack map frame sees the new locals.
            int[] slots = new int[params.length];
            int next = method.maxLocals;
            for (int i = 0; i < params.length; i++) {
                slots[i] = next;
                next += params[i].getSize();
            }
            method.maxLocals = next;
            for (int i = params.length - 1; i >= 0; i--) {
                before.add(new VarInsnNode(params[i].getOpcode(Opcodes.ISTORE), slots[i]));
            }
            for (int i = 0; i < params.length; i++) {
                if (rule.params()[i] != ArrayUse.Action.NONE) {
                    before.add(new VarInsnNode(Opcodes.ALOAD, slots[i]));
                    before.add(log(rule.params()[i]));
                }
            }
            for (int i = 0; i < params.length; i++) {
                before.add(new VarInsnNode(params[i].getOpcode(Opcodes.ILOAD), slots[i]));
            }
        }
        code.insertBefore(m, before);
        barriers++;
        if (rule.result() == ArrayUse.Action.NONE) {
            return m;
        }
        InsnList after = new InsnList();
        duplicated = true;
        after.add(new InsnNode(Opcodes.DUP));
        MethodInsnNode escape = log(rule.result());
        after.add(escape);
        code.insert(m, after);
        return escape;
    }

    private static MethodInsnNode log(ArrayUse.Action action) {
        return new MethodInsnNode(Opcodes.INVOKESTATIC, RUNTIME,
                action == ArrayUse.Action.WRITTEN ? "written" : "escape", "(Ljava/lang/Object;)V", false);
    }

    /**
     * @return what the call may do with its arrays, or null if there is nothing to log: the
     *         method is the application's (rewritten, it logs its own stores), or it takes and
     *         returns no array
     */
    private ArrayUse.Rule rule(String owner, String name, String descriptor) {
        if (owner.startsWith("[") || owner.startsWith("io/perpetua/") || descriptor.indexOf('[') < 0
                && !ArrayUse.writesArrayTypedObject(owner, name)) {
            return null; // clone() of an array; Perpetua's own (the kernel keeps what it is given unchanged)
        }
        String jdkOwner = jdkOwner(owner, name, descriptor);
        if (jdkOwner == null) {
            return null;
        }
        ArrayUse.Rule rule = ArrayUse.of(jdkOwner, name, descriptor);
        return rule.isNone() ? null : rule;
    }

    /**
     * @return the JDK class whose code a call runs, or null if it runs the application's: the
     *         owner itself if it is the JDK's; for an application class, the first JDK class it
     *         inherits the method from, if no application class on the way declares it (a
     *         subclass may still override it: logging then is merely redundant)
     */
    private String jdkOwner(String owner, String name, String descriptor) {
        if (ClassFilter.isSystem(owner)) {
            return owner;
        }
        ClassInfo c = resolver.find(owner);
        if (c == null || c.is(Opcodes.ACC_INTERFACE)) {
            return null; // implemented by application classes, which log their own stores
        }
        for (int depth = 0; c != null && depth < 1000; depth++) {
            if (c.jdk || ClassFilter.isSystem(c.name)) {
                return c.name.equals("java/lang/Object") ? null : c.name;
            }
            for (ClassInfo.Member member : c.methods) {
                if (member.name().equals(name) && member.descriptor().equals(descriptor)) {
                    return null;
                }
            }
            c = c.superName == null ? null : resolver.find(c.superName);
        }
        return null;
    }

    private void reference(MethodNode method, InvokeDynamicInsnNode indy) {
        if (!indy.bsm.getOwner().equals(LAMBDA_METAFACTORY) || indy.bsmArgs.length < 3
                || !(indy.bsmArgs[1] instanceof Handle target)) {
            return;
        }
        ArrayUse.Rule rule = rule(target.getOwner(), target.getName(), target.getDesc());
        if (rule == null) {
            return;
        }
        if (target.getTag() == Opcodes.H_INVOKESPECIAL || classIsInterface && classVersion < Opcodes.V1_8) {
            untracked = "a method reference to " + target.getOwner().replace('/', '.') + "." + target.getName()
                    + " in " + className.replace('/', '.') + "." + method.name + " cannot be routed through a bridge";
            return;
        }
        String key = target.getTag() + " " + target.getOwner() + "." + target.getName() + target.getDesc();
        Bridge bridge = bridges.get(key);
        if (bridge == null) {
            bridge = new Bridge(Protocol.PREFIX + "array$" + bridges.size(), bridgeDescriptor(target), target, rule);
            bridges.put(key, bridge);
        }
        Object[] args = indy.bsmArgs.clone();
        args[1] = new Handle(Opcodes.H_INVOKESTATIC, className, bridge.name, bridge.descriptor, classIsInterface);
        indy.bsmArgs = args;
        barriers++;
    }

    private static String bridgeDescriptor(Handle target) {
        Type desc = Type.getMethodType(target.getDesc());
        Type owner = Type.getObjectType(target.getOwner());
        return switch (target.getTag()) {
            case Opcodes.H_INVOKESTATIC -> target.getDesc();
            case Opcodes.H_NEWINVOKESPECIAL -> Type.getMethodDescriptor(owner, desc.getArgumentTypes());
            default -> {
                Type[] params = desc.getArgumentTypes();
                Type[] withReceiver = new Type[params.length + 1];
                withReceiver[0] = owner;
                System.arraycopy(params, 0, withReceiver, 1, params.length);
                yield Type.getMethodDescriptor(desc.getReturnType(), withReceiver);
            }
        };
    }

    /** Adds the bridges that method references of this class were routed through. */
    void addBridges(ClassVisitor cv) {
        for (Bridge b : bridges.values()) {
            int access = Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC
                    | (classIsInterface && classVersion < Opcodes.V9 ? Opcodes.ACC_PUBLIC : Opcodes.ACC_PRIVATE);
            MethodVisitor mv = cv.visitMethod(access, b.name, b.descriptor, null, null);
            mv.visitCode();
            Handle t = b.target;
            Type[] params = Type.getArgumentTypes(b.descriptor);
            int firstTargetParam = t.getTag() == Opcodes.H_INVOKESTATIC || t.getTag() == Opcodes.H_NEWINVOKESPECIAL ? 0 : 1;
            if (t.getTag() == Opcodes.H_NEWINVOKESPECIAL) {
                mv.visitTypeInsn(Opcodes.NEW, t.getOwner());
                mv.visitInsn(Opcodes.DUP);
            }
            int slot = 0;
            for (int i = 0; i < params.length; i++) {
                mv.visitVarInsn(params[i].getOpcode(Opcodes.ILOAD), slot);
                int p = i - firstTargetParam;
                if (p >= 0 && b.rule.params()[p] != ArrayUse.Action.NONE) {
                    mv.visitInsn(Opcodes.DUP);
                    log(b.rule.params()[p]).accept(mv);
                }
                slot += params[i].getSize();
            }
            int opcode = switch (t.getTag()) {
                case Opcodes.H_INVOKESTATIC -> Opcodes.INVOKESTATIC;
                case Opcodes.H_INVOKEINTERFACE -> Opcodes.INVOKEINTERFACE;
                case Opcodes.H_NEWINVOKESPECIAL -> Opcodes.INVOKESPECIAL;
                default -> Opcodes.INVOKEVIRTUAL;
            };
            String name = t.getTag() == Opcodes.H_NEWINVOKESPECIAL ? "<init>" : t.getName();
            mv.visitMethodInsn(opcode, t.getOwner(), name, t.getDesc(), t.isInterface());
            Type result = Type.getReturnType(b.descriptor);
            if (b.rule.result() != ArrayUse.Action.NONE) {
                mv.visitInsn(Opcodes.DUP);
                log(b.rule.result()).accept(mv);
            }
            mv.visitInsn(result.getOpcode(Opcodes.IRETURN));
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
    }
}
