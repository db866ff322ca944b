package io.perpetua.agent.transform;

import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.RecordWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.MethodNode;

import java.io.ObjectStreamClass;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The corpus of tricky class shapes ({@code src/test/java/corpus}), each rewritten by the real
 * transformer, verified by ASM's {@code CheckClassAdapter}, loaded, and shown to behave exactly
 * like the original.
 */
class CorpusTest {

    @ParameterizedTest
    @ValueSource(strings = {"corpus.shapes.Scenario", "corpus.access.Scenario"})
    void rewrittenClassesBehaveExactlyLikeTheOriginals(String scenario) throws Exception {
        String plain = (String) Reflect.call(Class.forName(scenario), "run");
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        String rewritten = (String) Reflect.call(loader.load(scenario), "run");
        assertEquals(plain, rewritten);
        assertEquals(List.of(), loader.events.failed);
        assertEquals("", loader.verifyAll());
        assertTrue(loader.events.rewritten.size() > 5, loader.events.rewritten::toString);
    }

    private static RewritingClassLoader loadAll() {
        RewritingClassLoader loader = new RewritingClassLoader("corpus.");
        for (String s : List.of("corpus.shapes.Scenario", "corpus.access.Scenario")) {
            Reflect.call(loader.load(s), "run");
        }
        return loader;
    }

    @Test
    void whichClassesBecomePersistentCapable() {
        RewritingClassLoader loader = loadAll();
        for (String name : List.of("corpus.shapes.Shape", "corpus.shapes.Polygon", "corpus.shapes.Square",
                "corpus.shapes.Circle", "corpus.access.Outer", "corpus.access.Outer$Inner", "corpus.access.Outer$Nested",
                "corpus.access.Outer$1", "corpus.access.Outer$1Local", "corpus.access.Box", "corpus.access.IntBox",
                "corpus.access.Counter", "corpus.access.Frozen", "corpus.access.Compressor", "corpus.access.Constants", "corpus.access.Ring",
                "corpus.shapes.Scenario")) {
            assertTrue(Persistent.class.isAssignableFrom(loader.load(name)), name);
        }
        for (String name : List.of("corpus.shapes.Named", "corpus.access.Op", "corpus.access.Op$1",
                "corpus.access.Pair")) {
            assertFalse(Persistent.class.isAssignableFrom(loader.load(name)), name);
        }
        // the state lives in the top-most class only
        assertDeclaresState(loader.load("corpus.shapes.Shape"), true);
        assertDeclaresState(loader.load("corpus.shapes.Polygon"), false);
        assertDeclaresState(loader.load("corpus.shapes.Square"), false);
        assertDeclaresState(loader.load("corpus.access.Ring"), false); // below Shape, in another package
        // a record is not persistent-capable, but its accesses to Counter's fields are redirected
        assertTrue(loader.events.rewritten.stream().anyMatch(s -> s.startsWith("corpus.access.Pair: record")
                && s.contains("field accesses redirected")), loader.events.rewritten::toString);
    }

    private static void assertDeclaresState(Class<?> c, boolean declares) {
        boolean found = false;
        for (Field f : c.getDeclaredFields()) {
            if (f.getName().equals("$perpetua$state")) {
                found = true;
                assertEquals(byte.class, f.getType());
                assertTrue(!Modifier.isVolatile(f.getModifiers()) && Modifier.isTransient(f.getModifiers())
                        && Modifier.isProtected(f.getModifiers()), "protected transient, and plain: see io.perpetua.runtime");
            }
        }
        assertEquals(declares, found, c.getName());
    }

    @Test
    void persistAndFetchAreAddedWithTheClassesOwnType() throws Exception {
        RewritingClassLoader loader = loadAll();
        Class<?> shape = loader.load("corpus.shapes.Shape");
        Class<?> square = loader.load("corpus.shapes.Square");
        Method persistNamed = shape.getDeclaredMethod("persist", String.class);
        Method persist = shape.getDeclaredMethod("persist");
        assertTrue(Modifier.isPublic(persistNamed.getModifiers()) && !persistNamed.isSynthetic());
        assertEquals(void.class, persist.getReturnType());
        Method fetch = square.getDeclaredMethod("fetch", String.class);
        assertTrue(Modifier.isStatic(fetch.getModifiers()) && Modifier.isPublic(fetch.getModifiers()));
        assertEquals(square, fetch.getReturnType());
        assertEquals(shape, shape.getDeclaredMethod("fetch", String.class).getReturnType());
        // persist is inherited, not redeclared, below the top-most class
        assertThrows(NoSuchMethodException.class, () -> square.getDeclaredMethod("persist", String.class));
    }

    private static void assertThrows(Class<? extends Throwable> type, org.junit.jupiter.api.function.Executable e) {
        org.junit.jupiter.api.Assertions.assertThrows(type, e);
    }

    @Test
    void finalInstanceFieldsLoseFinalStaticOnesKeepIt() throws Exception {
        RewritingClassLoader loader = loadAll();
        Class<?> frozen = loader.load("corpus.access.Frozen");
        assertFalse(Modifier.isFinal(frozen.getDeclaredField("a").getModifiers()));
        assertFalse(Modifier.isFinal(frozen.getDeclaredField("peers").getModifiers()));
        assertTrue(Modifier.isFinal(Class.forName("corpus.access.Frozen").getDeclaredField("a").getModifiers()));
    }

    @Test
    void serializableClassesKeepTheirDefaultSerialVersionUid() throws Exception {
        RewritingClassLoader loader = loadAll();
        for (String name : List.of("corpus.access.Frozen", "corpus.access.Frozen$Hidden")) {
            long plain = ObjectStreamClass.lookup(Class.forName(name)).getSerialVersionUID();
            long rewritten = ObjectStreamClass.lookup(loader.load(name)).getSerialVersionUID();
            assertEquals(plain, rewritten, name);
        }
    }

    @Test
    void recordLayoutIsSuperClassFirstThenEachClassFieldsByName() {
        RewritingClassLoader loader = loadAll();
        Object square = Reflect.make(loader.load("corpus.shapes.Square"), "sq", 7, 3.0);
        List<Object> written = new ArrayList<>();
        ((Persistent) square).$perpetua$write(new RecordWriter() {
            @Override public void writeBoolean(boolean v) { written.add(v); }
            @Override public void writeByte(byte v) { written.add(v); }
            @Override public void writeChar(char v) { written.add(v); }
            @Override public void writeShort(short v) { written.add(v); }
            @Override public void writeInt(int v) { written.add(v); }
            @Override public void writeLong(long v) { written.add(v); }
            @Override public void writeFloat(float v) { written.add(v); }
            @Override public void writeDouble(double v) { written.add(v); }
            @Override public void writeObject(Object v) { written.add(v); }
        });
        // Shape: created, id, kind, name; Polygon: kind, sides; Square: log, seenInConstructor, side
        assertEquals(List.of(1007L, 7, "shape", "sq", "polygon", 4, List.of(), "side=0.0 log=null", 3.0), written);
        assertEquals(ObjectState.TRANSIENT, ((Persistent) square).$perpetua$state());
        assertNull(((Persistent) square).$perpetua$handle());
    }

    /**
     * An independent, syntactic check of the redirection: in rewritten classes, no GETFIELD or
     * PUTFIELD on a field of a persistent-capable class remains, except in generated methods,
     * in constructors, and reads right after {@code aload_0} in instance methods.
     */
    @Test
    void noDirectAccessToPersistentFieldsRemains() {
        RewritingClassLoader loader = loadAll();
        List<String> offenders = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : loader.defined.entrySet()) {
            ClassNode cn = new ClassNode();
            new ClassReader(e.getValue()).accept(cn, 0);
            for (MethodNode m : cn.methods) {
                if (m.name.startsWith("$perpetua$") || m.name.equals("<init>")) {
                    continue;
                }
                boolean instance = (m.access & Opcodes.ACC_STATIC) == 0;
                for (AbstractInsnNode insn : m.instructions) {
                    if (!(insn instanceof FieldInsnNode f) || f.name.startsWith("$perpetua$")
                            || (f.getOpcode() != Opcodes.GETFIELD && f.getOpcode() != Opcodes.PUTFIELD)) {
                        continue;
                    }
                    Class<?> owner = loader.load(f.owner.replace('/', '.'));
                    if (!Persistent.class.isAssignableFrom(owner)) {
                        continue;
                    }
                    AbstractInsnNode prev = f.getPrevious();
                    if (prev.getOpcode() == Opcodes.DUP) { // this.f += v
                        prev = prev.getPrevious();
                    }
                    boolean readOfThis = f.getOpcode() == Opcodes.GETFIELD && instance
                            && prev.getOpcode() == Opcodes.ALOAD && ((org.objectweb.asm.tree.VarInsnNode) prev).var == 0;
                    if (!readOfThis) {
                        offenders.add(cn.name + "." + m.name + m.desc + ": " + f.owner + "." + f.name);
                    }
                }
            }
        }
        assertEquals(List.of(), offenders);
    }

    @Test
    void everyInstanceMethodStartsWithTheResidencyCheck() {
        RewritingClassLoader loader = loadAll();
        byte[] bytes = loader.defined.get("corpus.shapes.Square");
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        int checked = 0;
        for (MethodNode m : cn.methods) {
            if ((m.access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT)) != 0 || m.name.equals("<init>")
                    || m.name.startsWith("$perpetua$") || m.name.equals("persist")) {
                continue;
            }
            AbstractInsnNode first = m.instructions.getFirst();
            while (first.getOpcode() < 0) {
                first = first.getNext();
            }
            assertEquals(Opcodes.ALOAD, first.getOpcode(), m.name);
            AbstractInsnNode call = first.getNext();
            assertTrue(call instanceof org.objectweb.asm.tree.MethodInsnNode mi && mi.name.equals("$perpetua$resident"),
                    m.name);
            checked++;
        }
        assertTrue(checked >= 6, "checked " + checked);
    }

    @Test
    void aHollowObjectFaultsInOnItsFirstMethodCall() {
        RewritingClassLoader loader = loadAll();
        Object square = Reflect.make(loader.load("corpus.shapes.Square"), "sq", 7, 3.0);
        MiniStore store = new MiniStore();
        long id = store.save(square);
        Object hollow = store.fetch(id);
        assertEquals(ObjectState.HOLLOW, ((Persistent) hollow).$perpetua$state());
        assertEquals(Reflect.call(square, "describe"), Reflect.call(hollow, "describe"));
        assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state());
        Reflect.call(hollow, "grow", 1.0);
        assertEquals(ObjectState.DIRTY, ((Persistent) hollow).$perpetua$state());
        assertEquals(16.0, Reflect.call(hollow, "area"));
        assertNotNull(((Persistent) hollow).$perpetua$handle());
        assertTrue(ObjectHandle.class.isInstance(((Persistent) hollow).$perpetua$handle()));
    }

    /** The state field is protected: a subclass in another package reads and writes it through its own type. */
    @Test
    void aSubclassInAnotherPackageFaultsInAndMarksItselfDirty() {
        RewritingClassLoader loader = loadAll();
        Object ring = Reflect.make(loader.load("corpus.access.Ring"), "r", 3, 2.0, 1.0);
        MiniStore store = new MiniStore();
        Object hollow = store.fetch(store.save(ring));
        assertEquals(ObjectState.HOLLOW, ((Persistent) hollow).$perpetua$state());
        assertEquals(Reflect.call(ring, "describe"), Reflect.call(hollow, "describe"));
        assertEquals(ObjectState.CLEAN, ((Persistent) hollow).$perpetua$state());
        Reflect.call(hollow, "widen", 0.5);
        assertEquals(ObjectState.DIRTY, ((Persistent) hollow).$perpetua$state());
        Reflect.call(ring, "widen", 0.5);
        assertEquals(Reflect.call(ring, "describe"), Reflect.call(hollow, "describe"));
        assertEquals("", loader.verifyAll());
    }
}
