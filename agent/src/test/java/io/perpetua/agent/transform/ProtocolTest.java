package io.perpetua.agent.transform;

import io.perpetua.Perpetua;
import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;
import io.perpetua.runtime.Residency;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.Type;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The names the generated code uses match the real core classes. */
class ProtocolTest {

    @Test
    void namesMatchCore() throws Exception {
        assertEquals(Type.getInternalName(Persistent.class), Protocol.PERSISTENT);
        assertEquals(Type.getInternalName(ObjectState.class), Protocol.OBJECT_STATE);
        assertEquals(Type.getInternalName(ObjectHandle.class), Protocol.OBJECT_HANDLE);
        assertEquals(Type.getInternalName(Residency.class), Protocol.RESIDENCY);
        assertEquals(Type.getInternalName(RecordWriter.class), Protocol.RECORD_WRITER);
        assertEquals(Type.getInternalName(RecordReader.class), Protocol.RECORD_READER);
        assertEquals(Type.getInternalName(HollowFactory.class), Protocol.HOLLOW_FACTORY);
        assertEquals(Type.getInternalName(PersistentClasses.class), Protocol.PERSISTENT_CLASSES);
        assertEquals(Type.getInternalName(Perpetua.class), Protocol.PERPETUA);
        assertEquals(ObjectState.HOLLOW, Protocol.HOLLOW);
        assertEquals(Protocol.SLOW_PATH_DESC,
                Type.getMethodDescriptor(Residency.class.getMethod(Protocol.LOAD, Persistent.class)));
        assertEquals(Protocol.SLOW_PATH_DESC,
                Type.getMethodDescriptor(Residency.class.getMethod(Protocol.BEFORE_WRITE, Persistent.class)));
        assertEquals(Protocol.MATERIALIZE_DESC, Type.getMethodDescriptor(
                Residency.class.getMethod(Protocol.MATERIALIZE, Persistent.class, Object.class)));
        assertEquals(Protocol.SLOW_PATH_DESC, Type.getMethodDescriptor(
                Residency.class.getMethod(Protocol.BEFORE_SERIALIZATION, Persistent.class)));
        assertEquals(Type.getInternalName(io.perpetua.runtime.InheritedContents.class), Protocol.INHERITED_CONTENTS);
        assertEquals(Type.getInternalName(io.perpetua.runtime.InheritedViews.class), Protocol.INHERITED_VIEWS);
        assertEquals(PersistentClasses.inheritedContainerNames(),
                InheritedContainer.supported().stream().sorted().toList(), "the kernel lays out what the agent stores");
        assertEquals(Protocol.AFTER_CLONE_DESC, Type.getMethodDescriptor(
                Residency.class.getMethod(Protocol.AFTER_CLONE, Object.class, Object.class)));
        assertEquals(Protocol.FILLING_DESC, Type.getMethodDescriptor(
                Residency.class.getMethod(Protocol.FILLING, Persistent.class)));
        assertEquals(Protocol.WRITE_DESC,
                Type.getMethodDescriptor(Persistent.class.getMethod(Protocol.WRITE, RecordWriter.class)));
        assertEquals(Protocol.READ_DESC,
                Type.getMethodDescriptor(Persistent.class.getMethod(Protocol.READ, RecordReader.class)));
        assertEquals(Protocol.REGISTER_DESC, Type.getMethodDescriptor(PersistentClasses.class.getMethod(
                Protocol.REGISTER, Class.class, java.lang.invoke.MethodHandles.Lookup.class)));
        assertEquals(PersistentClasses.CREATION_PROXY, Protocol.NEW_HOLLOW);
        assertEquals(PersistentClasses.REWRITE_REFUSAL, Protocol.REFUSED);
        assertEquals(Protocol.SLOW_PATH_DESC, Type.getMethodDescriptor(
                Residency.class.getMethod(Protocol.BEFORE_TRANSIENT_WRITE, Persistent.class)));
        assertEquals(Protocol.TRANSIENT_REFERENCE_DESC, Type.getMethodDescriptor(Residency.class.getMethod(
                Protocol.BEFORE_TRANSIENT_WRITE, Persistent.class, Object.class, Object.class)));
        assertEquals(Protocol.STORES_TRANSIENTS_DESC, Type.getMethodDescriptor(
                PersistentClasses.class.getMethod(Protocol.STORES_TRANSIENTS, Class.class)));
        assertEquals("newInstance", HollowFactory.class.getMethods()[0].getName());
        assertEquals(Protocol.NEW_HOLLOW_DESC.substring(2), Type.getDescriptor(
                HollowFactory.class.getMethod("newInstance").getReturnType()));
        Perpetua.class.getMethod("persist", Object.class, String.class);
        Perpetua.class.getMethod("persist", Object.class);
        Perpetua.class.getMethod("fetch", String.class, Class.class);
    }
}
