package io.perpetua.agent.transform;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Adds what makes a class persistent-capable (the shape is specified in
 * {@code io.perpetua.runtime}'s package documentation):
 * <ul>
 *   <li>on the top-most persistent-capable class of a hierarchy: {@code implements Persistent},
 *       the {@code $perpetua$state} and {@code $perpetua$handle} fields and their four accessors,
 *       and the public {@code persist(String)} and {@code persist()};</li>
 *   <li>on every persistent-capable class: a static getter and setter for each instance field
 *       with the residency check (the setter of a persistent field marks the object dirty),
 *       {@code $perpetua$resident} (the method-entry check), the record codec
 *       {@code $perpetua$write}/{@code $perpetua$read}, the creation proxy constructor
 *       {@code <init>(ObjectState)}, the static {@code fetch(String)} returning the class's own
 *       type; instance fields lose {@code ACC_FINAL} (a hollow object is filled after its
 *       creation);</li>
 *   <li>on every one with persistent array fields: a lazy marker per such field
 *       ({@code static final T[] $perpetua$lazy$f}, set first in its static initializer), which
 *       the field's getter tests for;</li>
 *   <li>on every concrete one: {@code $perpetua$new()} and, first in its static initializer,
 *       {@code PersistentClasses.register(C.class, MethodHandles.lookup())}, from which the
 *       runtime makes a lambda over {@code $perpetua$new} the first time the kernel makes a
 *       hollow object of the class (no reflection per object; a class never stored never pays
 *       for the lambda's generated class).</li>
 * </ul>
 * Generated code has its own stack map frames ({@code F_SAME} at each branch target), so the
 * class's original frames are kept.
 */
final class PersistentMembersAdder extends ClassVisitor {

    private static final String WRITE_OBJECT = "writeObject";
    private static final String WRITE_OBJECT_DESC = "(Ljava/io/ObjectOutputStream;)V";

    private final ClassInfo info;
    private final TypeResolver resolver;
    private final boolean topMost;
    private final List<String> notes;
    private final String refusal;
    private final List<ClassInfo.Member> instanceFields = new ArrayList<>();
    private String className;
    private String superName;
    private boolean concrete;
    private boolean hasClinit;
    /** Serializable and not Externalizable: Java serialization reads its fields by reflection. */
    private boolean serializedByFields;
    private boolean declaresWriteObject;
    /** The JDK collection or map the top-most class extends, or null; and its class file, as the running JDK has it. */
    private InheritedContainer inherited;
    private ClassInfo inheritedJdk;
    /** Why such a class's instances cannot persist (what its constructor gives the JDK class), or null. */
    private String inheritedRefusal;

    /**
     * @param info the class as read before rewriting
     * @param notes receives one line per decision worth reporting (a method not added, and why)
     */
    PersistentMembersAdder(ClassVisitor next, ClassInfo info, TypeResolver resolver, boolean topMost,
                           List<String> notes) {
        this(next, info, resolver, topMost, notes, null);
    }

    /**
     * @param refusal null; or, for a class that could not be rewritten whole and gets these
     *        members only so that other rewritten classes link, why (kept in
     *        {@code $perpetua$refused}, which the kernel reads to refuse its instances)
     */
    PersistentMembersAdder(ClassVisitor next, ClassInfo info, TypeResolver resolver, boolean topMost,
                           List<String> notes, String refusal) {
        super(Opcodes.ASM9, next);
        this.info = info;
        this.resolver = resolver;
        this.topMost = topMost;
        this.notes = notes;
        this.refusal = refusal;
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName,
                      String[] interfaces) {
        this.className = name;
        this.superName = superName;
        this.concrete = (access & Opcodes.ACC_ABSTRACT) == 0;
        this.serializedByFields = refusal == null && resolver.isSubtype(name, "java/io/Serializable")
                && !resolver.isSubtype(name, "java/io/Externalizable");
        this.inherited = topMost && refusal == null ? InheritedContainer.of(superName) : null;
        this.inheritedJdk = inherited == null ? null : resolver.require(superName, "the JDK class " + name + " extends");
        String[] itfs = interfaces == null ? new String[0] : interfaces;
        if (topMost && !Arrays.asList(itfs).contains(Protocol.PERSISTENT)) {
            itfs = Arrays.copyOf(itfs, itfs.length + 1);
            itfs[itfs.length - 1] = Protocol.PERSISTENT;
        }
        super.visit(version, access, name, signature, superName, itfs);
    }

    @Override
    public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
        if ((access & Opcodes.ACC_STATIC) == 0) {
            access &= ~Opcodes.ACC_FINAL;
            instanceFields.add(new ClassInfo.Member(name, descriptor, access));
        }
        return super.visitField(access, name, descriptor, signature, value);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                     String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        if (WRITE_OBJECT.equals(name) && WRITE_OBJECT_DESC.equals(descriptor)) {
            declaresWriteObject = true;
            if (serializedByFields && (access & Opcodes.ACC_PRIVATE) != 0 && (access & Opcodes.ACC_STATIC) == 0
                    && mv != null) {
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitCode() {
                        super.visitCode();
                        emitBeforeSerialization(this);
                    }
                };
            }
        }
        if (inherited != null && (access & Opcodes.ACC_STATIC) == 0 && mv != null) {
            mv = checkSuperCalls(mv);
        }
        if ("removeEldestEntry".equals(name) && "(Ljava/util/Map$Entry;)Z".equals(descriptor) && refusal == null
                && (access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT)) == 0 && mv != null
                && resolver.isSubtype(className, "java/util/LinkedHashMap")) {
            mv = new MethodVisitor(Opcodes.ASM9, mv) {
                @Override
                public void visitCode() {
                    super.visitCode();
                    emitNoEvictionWhileFilling(this);
                }
            };
        }
        if ("<clinit>".equals(name) && needsClinit() && mv != null) {
            hasClinit = true;
            return new MethodVisitor(Opcodes.ASM9, mv) {
                @Override
                public void visitCode() {
                    super.visitCode();
                    emitStaticSetUp(this);
                }
            };
        }
        return mv;
    }

    @Override
    public void visitEnd() {
        if (topMost) {
            addStateAndHandle();
        }
        addResidentCheck();
        for (ClassInfo.Member f : instanceFields) {
            addGetter(f);
            addSetter(f);
        }
        addCodec();
        addProxyConstructor();
        if (inherited != null) {
            addInheritedMembers();
        }
        if (serializedByFields && !declaresWriteObject) {
            addWriteObject();
        }
        if (needsWriteReplace()) {
            addWriteReplace();
        }
        if (concrete) {
            addNewHollow();
        }
        for (ClassInfo.Member f : lazyFields()) {
            // private: only the field's own getter reads it (the kernel, by reflection, once per class)
            super.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL | Opcodes.ACC_SYNTHETIC,
                    Protocol.LAZY + f.name(), f.descriptor(), null, null).visitEnd();
        }
        String refused = refusal != null ? refusal : inheritedRefusal;
        if (refused != null) {
            super.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL | Opcodes.ACC_SYNTHETIC,
                    Protocol.REFUSED, "Ljava/lang/String;", null, refused).visitEnd();
            if (refusal == null) {
                notes.add("its instances cannot persist: " + refused);
            }
        }
        if (needsClinit() && !hasClinit) {
            MethodVisitor mv = super.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
            mv.visitCode();
            emitStaticSetUp(mv);
            mv.visitInsn(Opcodes.RETURN);
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
        if (topMost) {
            addPersistMethods();
        }
        addFetch();
        super.visitEnd();
    }

    private void addStateAndHandle() {
        // Protected, not public: code that reflects over a class's public fields (PostgreSQL's
        // Oid reads every one as a static int constant) must not meet them. Subclasses in other
        // packages reach them, through their own type, as protected members allow.
        int fieldAccess = Opcodes.ACC_PROTECTED | Opcodes.ACC_TRANSIENT | Opcodes.ACC_SYNTHETIC;
        // Not volatile: the check on every field access must stay a plain load the JIT can reuse
        // and hoist; the kernel publishes a filled object with a release fence (see core's
        // io.perpetua.runtime package documentation).
        super.visitField(fieldAccess, Protocol.STATE_FIELD, Protocol.STATE_DESC, null, null).visitEnd();
        super.visitField(fieldAccess, Protocol.HANDLE_FIELD, Protocol.HANDLE_DESC, null, null).visitEnd();
        addPropertyGetter(Protocol.STATE_FIELD, Protocol.STATE_DESC);
        addPropertySetter(Protocol.STATE_FIELD, Protocol.STATE_DESC);
        addPropertyGetter(Protocol.HANDLE_FIELD, Protocol.HANDLE_DESC);
        addPropertySetter(Protocol.HANDLE_FIELD, Protocol.HANDLE_DESC);
    }

    private void addPropertyGetter(String field, String desc) {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNTHETIC, field, "()" + desc, null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, field, desc);
        mv.visitInsn(Type.getType(desc).getOpcode(Opcodes.IRETURN));
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private void addPropertySetter(String field, String desc) {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNTHETIC, field, "(" + desc + ")V",
                null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Type.getType(desc).getOpcode(Opcodes.ILOAD), 1);
        mv.visitFieldInsn(Opcodes.PUTFIELD, className, field, desc);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** {@code if (self.$perpetua$state == HOLLOW) Residency.load(self);} with self in local 0. */
    private void emitLoadCheck(MethodVisitor mv) {
        Label resident = new Label();
        emitHollowTest(mv, resident);
        mv.visitLabel(resident);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
    }

    /** Jumps to {@code resident} unless self (local 0) is hollow, in which case it loads it first. */
    private void emitHollowTest(MethodVisitor mv, Label resident) {
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, Protocol.STATE_FIELD, Protocol.STATE_DESC);
        mv.visitIntInsn(Opcodes.BIPUSH, Protocol.HOLLOW);
        mv.visitJumpInsn(Opcodes.IF_ICMPNE, resident);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.LOAD, Protocol.SLOW_PATH_DESC, false);
    }

    /** {@code if (self.$perpetua$state < 0) Residency.<slowPath>(self);} with self in local 0. */
    private void emitWriteCheck(MethodVisitor mv, String slowPath) {
        emitWriteCheck(mv, slowPath, Protocol.SLOW_PATH_DESC, null);
    }

    /**
     * {@code if (self.$perpetua$state < 0) Residency.<slowPath>(self, ...)}, self in local 0;
     * {@code more}, if not null, pushes the slow path's other arguments. The setter of a
     * transient reference field passes the field's value before and after
     * ({@code Residency.beforeTransientWrite(self, self.f, value)}), which leaves the object clean
     * when the field is stored as null both times (a cached view written where there was none).
     */
    private void emitWriteCheck(MethodVisitor mv, String slowPath, String slowPathDesc, ClassInfo.Member more) {
        Label writable = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, Protocol.STATE_FIELD, Protocol.STATE_DESC);
        mv.visitJumpInsn(Opcodes.IFGE, writable);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        if (more != null) {
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitFieldInsn(Opcodes.GETFIELD, className, more.name(), more.descriptor());
            mv.visitVarInsn(Opcodes.ALOAD, 1);
        }
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, slowPath, slowPathDesc, false);
        mv.visitLabel(writable);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
    }

    private void addResidentCheck() {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC,
                Protocol.RESIDENT, "(L" + className + ";)V", null, null);
        mv.visitCode();
        emitLoadCheck(mv);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** Accessors are static; a private field's accessors are package-private (for nestmates). */
    private static int accessorAccess(ClassInfo.Member field) {
        int visibility = field.access() & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED);
        return visibility | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC;
    }

    private void addGetter(ClassInfo.Member f) {
        MethodVisitor mv = super.visitMethod(accessorAccess(f), Protocol.GET + f.name(),
                Protocol.getterDescriptor(className, f.descriptor()), null, null);
        mv.visitCode();
        if (f.isPersistentField() && f.descriptor().startsWith("[")) {
            emitArrayRead(mv, f);
        } else if (f.isPersistentField()) {
            emitValueFirstRead(mv, f);
        } else {
            emitLoadCheck(mv); // a transient field: its object must be resident, whatever it holds
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitFieldInsn(Opcodes.GETFIELD, className, f.name(), f.descriptor());
            mv.visitInsn(Type.getType(f.descriptor()).getOpcode(Opcodes.IRETURN));
        }
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /**
     * The read of a persistent field, value first: every persistent field of a hollow object
     * holds its default (shells are made by the creation proxy, and abort clears an object it
     * makes hollow), so a value that is not the default proves the object filled, and only a
     * default value looks at the state:
     * <pre>
     *   T v = self.f;
     *   if (v == default) {
     *       if (self.$perpetua$state == HOLLOW) Residency.load(self);
     *       VarHandle.acquireFence();
     *       v = self.f;
     *   }
     *   return v;
     * </pre>
     * The test on a value already in a register replaces the load of the state, which made a
     * loop reading one field of many objects 1.17 to 1.33 times slower than plain code. A default
     * is read again even if the object is not hollow: another thread may have filled it between
     * the two loads (the first saw the hollow object's default, the second the filled state),
     * and the fence, paired with the kernel's release fence before it publishes the state, makes
     * the second load see the filled value (ConcurrentReadersIT found nulls without it).
     */
    private void emitValueFirstRead(MethodVisitor mv, ClassInfo.Member f) {
        Type type = Type.getType(f.descriptor());
        Label done = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, f.name(), f.descriptor());
        mv.visitVarInsn(type.getOpcode(Opcodes.ISTORE), 1);
        mv.visitVarInsn(type.getOpcode(Opcodes.ILOAD), 1);
        switch (type.getSort()) {
            case Type.LONG -> {
                mv.visitInsn(Opcodes.LCONST_0);
                mv.visitInsn(Opcodes.LCMP);
                mv.visitJumpInsn(Opcodes.IFNE, done);
            }
            case Type.FLOAT -> {
                mv.visitInsn(Opcodes.FCONST_0);
                mv.visitInsn(Opcodes.FCMPL); // NaN is not the default: FCMPL gives -1
                mv.visitJumpInsn(Opcodes.IFNE, done);
            }
            case Type.DOUBLE -> {
                mv.visitInsn(Opcodes.DCONST_0);
                mv.visitInsn(Opcodes.DCMPL);
                mv.visitJumpInsn(Opcodes.IFNE, done);
            }
            case Type.OBJECT, Type.ARRAY -> mv.visitJumpInsn(Opcodes.IFNONNULL, done);
            default -> mv.visitJumpInsn(Opcodes.IFNE, done); // boolean, byte, char, short, int
        }
        emitReread(mv, f, frameType(type));
        mv.visitLabel(done);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        mv.visitVarInsn(type.getOpcode(Opcodes.ILOAD), 1);
        mv.visitInsn(type.getOpcode(Opcodes.IRETURN));
    }

    /**
     * After a default value was read into local 1: loads self (local 0) if hollow, then reads
     * the field into local 1 again, behind an acquire fence (see {@link #emitValueFirstRead}).
     * Emits the frame that adds local 1, of verification type {@code local}.
     */
    private void emitReread(MethodVisitor mv, ClassInfo.Member f, Object local) {
        Label settled = new Label();
        emitHollowTest(mv, settled);
        mv.visitLabel(settled);
        mv.visitFrame(Opcodes.F_APPEND, 1, new Object[] {local}, 0, null);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/VarHandle", "acquireFence", "()V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, f.name(), f.descriptor());
        mv.visitVarInsn(Type.getType(f.descriptor()).getOpcode(Opcodes.ISTORE), 1);
    }

    /**
     * The read of a persistent array field: the value-first read, then a test for the field's
     * lazy marker (left by a fill that stepped over the stored value):
     * <pre>
     *   T[] v = self.f;
     *   if (v == null) { if (self.$perpetua$state == HOLLOW) Residency.load(self); VarHandle.acquireFence(); v = self.f; }
     *   if (v == $perpetua$lazy$f) { Residency.materialize(self, $perpetua$lazy$f); v = self.f; }
     *   return v;
     * </pre>
     * A filled array costs one more comparison, with a constant, than another field.
     */
    private void emitArrayRead(MethodVisitor mv, ClassInfo.Member f) {
        String marker = Protocol.LAZY + f.name();
        Label filled = new Label();
        Label done = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, f.name(), f.descriptor());
        mv.visitVarInsn(Opcodes.ASTORE, 1);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitJumpInsn(Opcodes.IFNONNULL, filled);
        emitReread(mv, f, f.descriptor());
        mv.visitLabel(filled);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitFieldInsn(Opcodes.GETSTATIC, className, marker, f.descriptor());
        mv.visitJumpInsn(Opcodes.IF_ACMPNE, done);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETSTATIC, className, marker, f.descriptor());
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.MATERIALIZE, Protocol.MATERIALIZE_DESC,
                false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, className, f.name(), f.descriptor());
        mv.visitVarInsn(Opcodes.ASTORE, 1);
        mv.visitLabel(done);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitInsn(Opcodes.ARETURN);
    }

    /** @return the verification type of a local of this type, for a stack map frame */
    private static Object frameType(Type type) {
        return switch (type.getSort()) {
            case Type.LONG -> Opcodes.LONG;
            case Type.FLOAT -> Opcodes.FLOAT;
            case Type.DOUBLE -> Opcodes.DOUBLE;
            case Type.OBJECT, Type.ARRAY -> type.getInternalName();
            default -> Opcodes.INTEGER;
        };
    }

    private void addSetter(ClassInfo.Member f) {
        MethodVisitor mv = super.visitMethod(accessorAccess(f), Protocol.SET + f.name(),
                Protocol.setterDescriptor(className, f.descriptor()), null, null);
        mv.visitCode();
        int sort = Type.getType(f.descriptor()).getSort();
        if (f.isPersistentField()) {
            emitWriteCheck(mv, Protocol.BEFORE_WRITE);
        } else if (sort == Type.OBJECT || sort == Type.ARRAY) {
            emitWriteCheck(mv, Protocol.BEFORE_TRANSIENT_WRITE, Protocol.TRANSIENT_REFERENCE_DESC, f);
        } else {
            // a transient field dirties its object only if the object's class stores transient fields
            emitWriteCheck(mv, Protocol.BEFORE_TRANSIENT_WRITE);
        }
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Type.getType(f.descriptor()).getOpcode(Opcodes.ILOAD), 1);
        mv.visitFieldInsn(Opcodes.PUTFIELD, className, f.name(), f.descriptor());
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** @return the fields this class's codec handles, persistent or transient, in layout order (by name) */
    private List<ClassInfo.Member> layout(boolean transients) {
        return instanceFields.stream()
                .filter(transients ? ClassInfo.Member::isTransientField : ClassInfo.Member::isPersistentField)
                .sorted(Comparator.comparing(ClassInfo.Member::name)).toList();
    }

    /**
     * The codec: the super-class's fields first, then this class's persistent fields, then, if
     * the object's class stores transient fields ({@code PersistentClasses.storesTransientFields},
     * a class that serializes itself), its transient ones.
     */
    private void addCodec() {
        MethodVisitor w = super.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNTHETIC, Protocol.WRITE,
                Protocol.WRITE_DESC, null, null);
        w.visitCode();
        if (!topMost) {
            w.visitVarInsn(Opcodes.ALOAD, 0);
            w.visitVarInsn(Opcodes.ALOAD, 1);
            w.visitMethodInsn(Opcodes.INVOKESPECIAL, superName, Protocol.WRITE, Protocol.WRITE_DESC, false);
        }
        emitFieldWrites(w, layout(false));
        List<ClassInfo.Member> transients = layout(true);
        if (!transients.isEmpty()) {
            Label skip = emitIfStoresTransients(w);
            emitFieldWrites(w, transients);
            w.visitLabel(skip);
            w.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        }
        if (inherited != null) {
            w.visitVarInsn(Opcodes.ALOAD, 1);
            inherited.emitContents(w, inheritedJdk);
            w.visitMethodInsn(Opcodes.INVOKEINTERFACE, Protocol.RECORD_WRITER, "writeObject", "(Ljava/lang/Object;)V", true);
        }
        w.visitInsn(Opcodes.RETURN);
        w.visitMaxs(0, 0);
        w.visitEnd();

        MethodVisitor r = super.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNTHETIC, Protocol.READ,
                Protocol.READ_DESC, null, null);
        r.visitCode();
        if (!topMost) {
            r.visitVarInsn(Opcodes.ALOAD, 0);
            r.visitVarInsn(Opcodes.ALOAD, 1);
            r.visitMethodInsn(Opcodes.INVOKESPECIAL, superName, Protocol.READ, Protocol.READ_DESC, false);
        }
        emitFieldReads(r, layout(false));
        if (!transients.isEmpty()) {
            Label skip = emitIfStoresTransients(r);
            emitFieldReads(r, transients);
            r.visitLabel(skip);
            r.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        }
        if (inherited != null) { // after the fields: what the JDK's adding calls back may read them
            r.visitVarInsn(Opcodes.ALOAD, 0);
            r.visitVarInsn(Opcodes.ALOAD, 1);
            r.visitMethodInsn(Opcodes.INVOKEINTERFACE, Protocol.RECORD_READER, "readObject", "()Ljava/lang/Object;", true);
            r.visitMethodInsn(Opcodes.INVOKESPECIAL, className, Protocol.FILL, Protocol.FILL_DESC, false);
        }
        r.visitInsn(Opcodes.RETURN);
        r.visitMaxs(0, 0);
        r.visitEnd();
    }

    /** {@code if (!PersistentClasses.storesTransientFields(this.getClass())) goto skip}; returns skip. */
    private static Label emitIfStoresTransients(MethodVisitor mv) {
        Label skip = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/Object", "getClass", "()Ljava/lang/Class;", false);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.PERSISTENT_CLASSES, Protocol.STORES_TRANSIENTS,
                Protocol.STORES_TRANSIENTS_DESC, false);
        mv.visitJumpInsn(Opcodes.IFEQ, skip);
        return skip;
    }

    private void emitFieldWrites(MethodVisitor w, List<ClassInfo.Member> fields) {
        for (ClassInfo.Member f : fields) {
            Type t = Type.getType(f.descriptor());
            w.visitVarInsn(Opcodes.ALOAD, 1);
            w.visitVarInsn(Opcodes.ALOAD, 0);
            w.visitFieldInsn(Opcodes.GETFIELD, className, f.name(), f.descriptor());
            w.visitMethodInsn(Opcodes.INVOKEINTERFACE, Protocol.RECORD_WRITER, "write" + kind(t),
                    "(" + (isReference(t) ? "Ljava/lang/Object;" : t.getDescriptor()) + ")V", true);
        }
    }

    private void emitFieldReads(MethodVisitor r, List<ClassInfo.Member> fields) {
        for (ClassInfo.Member f : fields) {
            Type t = Type.getType(f.descriptor());
            r.visitVarInsn(Opcodes.ALOAD, 0);
            r.visitVarInsn(Opcodes.ALOAD, 1);
            r.visitMethodInsn(Opcodes.INVOKEINTERFACE, Protocol.RECORD_READER, "read" + kind(t),
                    "()" + (isReference(t) ? "Ljava/lang/Object;" : t.getDescriptor()), true);
            if (isReference(t) && !"java/lang/Object".equals(t.getInternalName())) {
                r.visitTypeInsn(Opcodes.CHECKCAST, t.getInternalName());
            }
            r.visitFieldInsn(Opcodes.PUTFIELD, className, f.name(), f.descriptor());
        }
    }

    private static boolean isReference(Type t) {
        return t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY;
    }

    private static String kind(Type t) {
        return switch (t.getSort()) {
            case Type.BOOLEAN -> "Boolean";
            case Type.BYTE -> "Byte";
            case Type.CHAR -> "Char";
            case Type.SHORT -> "Short";
            case Type.INT -> "Int";
            case Type.LONG -> "Long";
            case Type.FLOAT -> "Float";
            case Type.DOUBLE -> "Double";
            default -> "Object";
        };
    }

    /**
     * First in a {@code LinkedHashMap} subclass's {@code removeEldestEntry}, before its
     * residency check: {@code if (Residency.filling(this)) return false;}. A fill puts the
     * stored entries through the JDK's {@code put}, which asks the method whether to evict; the
     * program's answer (a size limit lowered since the commit) would drop committed entries.
     */
    private static void emitNoEvictionWhileFilling(MethodVisitor mv) {
        Label own = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.FILLING, Protocol.FILLING_DESC, false);
        mv.visitJumpInsn(Opcodes.IFEQ, own);
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitLabel(own);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
    }

    /**
     * In a class extending a JDK collection or map: notes a super-class constructor call that
     * fixes what a read-back object would lack (see {@link InheritedContainer#refusedConstructor}),
     * and puts the write check before each {@code super.m(...)} call of a JDK method that may
     * change the contents (the class's own override of it has only the read check at its entry).
     */
    private MethodVisitor checkSuperCalls(MethodVisitor mv) {
        return new MethodVisitor(Opcodes.ASM9, mv) {
            /** The instruction just visited if it pushed a constant a refused constructor may be given, else -1. */
            private int constant = -1;

            @Override
            public void visitInsn(int opcode) {
                constant = opcode == Opcodes.ICONST_0 || opcode == Opcodes.ACONST_NULL ? opcode : -1;
                super.visitInsn(opcode);
            }

            @Override
            public void visitTypeInsn(int opcode, String type) {
                // (Comparator<K>) null: the cast javac may leave keeps the constant
                constant = opcode == Opcodes.CHECKCAST && constant == Opcodes.ACONST_NULL ? constant : -1;
                super.visitTypeInsn(opcode, type);
            }

            @Override
            public void visitIntInsn(int opcode, int operand) {
                constant = -1;
                super.visitIntInsn(opcode, operand);
            }

            @Override
            public void visitVarInsn(int opcode, int varIndex) {
                constant = -1;
                super.visitVarInsn(opcode, varIndex);
            }

            @Override
            public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
                constant = -1;
                super.visitFieldInsn(opcode, owner, name, descriptor);
            }

            @Override
            public void visitInvokeDynamicInsn(String name, String descriptor, org.objectweb.asm.Handle bootstrap,
                                               Object... arguments) {
                constant = -1;
                super.visitInvokeDynamicInsn(name, descriptor, bootstrap, arguments);
            }

            @Override
            public void visitJumpInsn(int opcode, Label label) {
                constant = -1;
                super.visitJumpInsn(opcode, label);
            }

            @Override
            public void visitLabel(Label label) {
                constant = -1; // a jump may arrive here with another value
                super.visitLabel(label);
            }

            @Override
            public void visitLdcInsn(Object value) {
                constant = -1;
                super.visitLdcInsn(value);
            }

            @Override
            public void visitIincInsn(int varIndex, int increment) {
                constant = -1;
                super.visitIincInsn(varIndex, increment);
            }

            @Override
            public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean itf) {
                int lastArgument = constant;
                constant = -1;
                if (opcode == Opcodes.INVOKESPECIAL && owner.equals(superName)) {
                    if (name.equals("<init>")) {
                        String why = inherited.refusedConstructor(descriptor, lastArgument);
                        if (why != null && inheritedRefusal == null) {
                            inheritedRefusal = why;
                        }
                    } else if (!InheritedContainer.READ_ONLY.contains(name)) {
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, className, Protocol.WRITING,
                                "(L" + className + ";)V", false);
                    }
                }
                super.visitMethodInsn(opcode, owner, name, descriptor, itf);
            }
        };
    }

    /**
     * What a class extending a JDK collection or map gets besides the rest (see
     * {@link InheritedContainer}): the write check as a private static method, the fill of the
     * JDK part, and an override, with its check, of each method it inherits from the JDK and
     * does not declare itself.
     */
    private void addInheritedMembers() {
        MethodVisitor w = super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC,
                Protocol.WRITING, "(L" + className + ";)V", null, null);
        w.visitCode();
        emitWriteCheck(w, Protocol.BEFORE_WRITE);
        w.visitInsn(Opcodes.RETURN);
        w.visitMaxs(0, 0);
        w.visitEnd();
        inherited.addFill(super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC, Protocol.FILL,
                Protocol.FILL_DESC, null, null));
        for (ClassInfo.Member m : inherited.inheritedMethods(resolver).values()) {
            if (info.method(m.name(), m.descriptor()) != null) {
                continue; // the class's own: its entry check, and the write check before its super calls
            }
            int access = m.access() & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED | Opcodes.ACC_VARARGS);
            inherited.emitOverride(super.visitMethod(access | Opcodes.ACC_SYNTHETIC, m.name(), m.descriptor(), null,
                    null), className, m.name(), m.descriptor(), inheritedJdk);
        }
    }

    /**
     * Java serialization of a persistent object: {@code defaultWriteObject} reads the fields by
     * reflection, past the getters, and would write a hollow object's defaults and a lazy array
     * field's marker. {@code Residency.beforeSerialization(this)} first fills the object and
     * decodes its lazy fields. The method is private (so it leaves the default
     * {@code serialVersionUID} as it was) and synthetic (so the kernel does not take the class
     * for one that serializes itself); a stream it writes is the default form plus an end-of-data
     * marker, which a JVM without the agent reads as the default form.
     */
    private void addWriteObject() {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC, WRITE_OBJECT,
                WRITE_OBJECT_DESC, null, new String[] {"java/io/IOException"});
        mv.visitCode();
        emitBeforeSerialization(mv);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/io/ObjectOutputStream", "defaultWriteObject", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /**
     * @return whether the class gets {@link #addWriteReplace}: it is serialized by its fields, a
     *         class above it (or itself) extends a JDK collection or map, and no
     *         {@code writeReplace} of the application applies to it, its own or an inherited one
     *         that is not private (nor package-private from another package). A private one
     *         applies to its own class only, so each class of such a hierarchy gets its own.
     */
    private boolean needsWriteReplace() {
        if (!serializedByFields || info.method("writeReplace", "()Ljava/lang/Object;") != null) {
            return false;
        }
        if (inherited != null) {
            return true;
        }
        for (ClassInfo s = topMost ? null : superInfo(info); s != null && !s.jdk; s = superInfo(s)) {
            ClassInfo.Member m = s.method("writeReplace", "()Ljava/lang/Object;");
            if (m != null && !m.isStatic() && (m.access() & Opcodes.ACC_SYNTHETIC) == 0
                    && ((m.access() & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0
                    || (m.access() & Opcodes.ACC_PRIVATE) == 0 && s.packageName().equals(info.packageName()))) {
                return false; // the application's own, which Java serialization calls instead
            }
            if (InheritedContainer.of(s.superName) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * A class extending a JDK collection or map, or a class below it: the JDK class's
     * {@code writeObject} runs before the class's own (super-classes first) and reads its
     * contents directly, so the object is filled earlier, in {@code writeReplace}, which Java
     * serialization calls before any of them. It returns the object itself: nothing is replaced.
     * Private and synthetic, as above.
     */
    private void addWriteReplace() {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC, "writeReplace",
                "()Ljava/lang/Object;", null, null);
        mv.visitCode();
        emitBeforeSerialization(mv);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** {@code Residency.beforeSerialization(this)}, first in a {@code writeObject} method. */
    private static void emitBeforeSerialization(MethodVisitor mv) {
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.BEFORE_SERIALIZATION,
                Protocol.SLOW_PATH_DESC, false);
    }

    /**
     * The creation proxy: runs no user code. It calls the super-class's proxy constructor, or
     * the no-argument constructor of the first non-rewritten super-class (checked accessible
     * when the class was classified).
     */
    private void addProxyConstructor() {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PROTECTED | Opcodes.ACC_SYNTHETIC, "<init>",
                Protocol.PROXY_CTOR_DESC, null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        if (topMost) {
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, superName, "<init>", "()V", false);
        } else {
            mv.visitInsn(Opcodes.ACONST_NULL);
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, superName, "<init>", Protocol.PROXY_CTOR_DESC, false);
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private void addNewHollow() {
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC,
                Protocol.NEW_HOLLOW, Protocol.NEW_HOLLOW_DESC, null, null);
        mv.visitCode();
        mv.visitTypeInsn(Opcodes.NEW, className);
        mv.visitInsn(Opcodes.DUP);
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, className, "<init>", Protocol.PROXY_CTOR_DESC, false);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /**
     * The persistent array fields: each gets a lazy marker, so that a fill may leave it
     * undecoded until its getter is called (see {@code io.perpetua.runtime.Residency#materialize}).
     */
    private List<ClassInfo.Member> lazyFields() {
        return instanceFields.stream().filter(f -> f.isPersistentField() && f.descriptor().startsWith("[")).toList();
    }

    /** A static initializer is added or extended for the registration and for the lazy markers. */
    private boolean needsClinit() {
        return concrete || !lazyFields().isEmpty();
    }

    /** First in the static initializer: the lazy markers, then (concrete classes) the registration. */
    private void emitStaticSetUp(MethodVisitor mv) {
        for (ClassInfo.Member f : lazyFields()) {
            Type component = Type.getType(f.descriptor().substring(1));
            mv.visitInsn(Opcodes.ICONST_0);
            switch (component.getSort()) {
                case Type.OBJECT -> mv.visitTypeInsn(Opcodes.ANEWARRAY, component.getInternalName());
                case Type.ARRAY -> mv.visitTypeInsn(Opcodes.ANEWARRAY, component.getDescriptor());
                default -> mv.visitIntInsn(Opcodes.NEWARRAY, newArrayCode(component));
            }
            mv.visitFieldInsn(Opcodes.PUTSTATIC, className, Protocol.LAZY + f.name(), f.descriptor());
        }
        if (concrete) {
            emitRegistration(mv);
        }
    }

    private static int newArrayCode(Type primitive) {
        return switch (primitive.getSort()) {
            case Type.BOOLEAN -> Opcodes.T_BOOLEAN;
            case Type.CHAR -> Opcodes.T_CHAR;
            case Type.FLOAT -> Opcodes.T_FLOAT;
            case Type.DOUBLE -> Opcodes.T_DOUBLE;
            case Type.BYTE -> Opcodes.T_BYTE;
            case Type.SHORT -> Opcodes.T_SHORT;
            case Type.INT -> Opcodes.T_INT;
            case Type.LONG -> Opcodes.T_LONG;
            default -> throw new IllegalArgumentException("not a primitive type: " + primitive);
        };
    }

    private void emitRegistration(MethodVisitor mv) {
        mv.visitLdcInsn(Type.getObjectType(className));
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup",
                "()Ljava/lang/invoke/MethodHandles$Lookup;", false);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.PERSISTENT_CLASSES, Protocol.REGISTER,
                Protocol.REGISTER_DESC, false);
    }

    private void addPersistMethods() {
        if (canAddInstanceMethod("persist", "(Ljava/lang/String;)")) {
            MethodVisitor mv = super.visitMethod(Opcodes.ACC_PUBLIC, "persist", "(Ljava/lang/String;)V", null, null);
            mv.visitCode();
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitVarInsn(Opcodes.ALOAD, 1);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.PERPETUA, "persist",
                    "(Ljava/lang/Object;Ljava/lang/String;)V", false);
            mv.visitInsn(Opcodes.RETURN);
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
        if (canAddInstanceMethod("persist", "()")) {
            MethodVisitor mv = super.visitMethod(Opcodes.ACC_PUBLIC, "persist", "()V", null, null);
            mv.visitCode();
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.PERPETUA, "persist", "(Ljava/lang/Object;)V", false);
            mv.visitInsn(Opcodes.RETURN);
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
    }

    /**
     * A {@code persist} method is added unless the class or a (non-rewritten) super-class
     * already declares a method of that name and those parameters: adding it would change or
     * clash with the program's own method.
     */
    private boolean canAddInstanceMethod(String name, String parameters) {
        ClassInfo.Member own = declaredWithParameters(info, name, parameters);
        if (own != null) {
            notes.add(name + parameters + " not added: the class declares " + name + own.descriptor());
            return false;
        }
        for (ClassInfo s = superInfo(info); s != null; s = superInfo(s)) {
            ClassInfo.Member inherited = declaredWithParameters(s, name, parameters);
            if (inherited != null && (inherited.access() & Opcodes.ACC_PRIVATE) == 0) {
                notes.add(name + parameters + " not added: super-class " + s + " declares " + name
                        + inherited.descriptor());
                return false;
            }
        }
        return true;
    }

    private void addFetch() {
        String desc = "(Ljava/lang/String;)L" + className + ";";
        ClassInfo.Member own = declaredWithParameters(info, "fetch", "(Ljava/lang/String;)");
        if (own != null) {
            notes.add("static fetch(String) not added: the class declares fetch" + own.descriptor());
            return;
        }
        for (ClassInfo s = superInfo(info); s != null; s = superInfo(s)) {
            ClassInfo.Member m = s.method("fetch", desc);
            if (m != null && !m.isStatic()) {
                notes.add("static fetch(String) not added: super-class " + s + " declares an instance method fetch"
                        + desc + ", which a static method must not hide");
                return;
            }
        }
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "fetch", desc, null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitLdcInsn(Type.getObjectType(className));
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.PERPETUA, "fetch",
                "(Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;", false);
        mv.visitTypeInsn(Opcodes.CHECKCAST, className);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private ClassInfo superInfo(ClassInfo c) {
        return c.superName == null ? null : resolver.require(c.superName, "a super-class of " + info);
    }

    private static ClassInfo.Member declaredWithParameters(ClassInfo c, String name, String parameters) {
        for (ClassInfo.Member m : c.methods) {
            if (m.name().equals(name) && m.descriptor().startsWith(parameters)) {
                return m;
            }
        }
        return null;
    }
}
