package io.perpetua.agent.transform;

import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lazy marker of a persistent array field: what the agent generates for it, and that both
 * the field's getter and a read through {@code this} in the object's own method hand a field
 * holding it to {@code Residency.materialize} rather than to the program.
 */
class LazyMarkerTest {

    @Test
    void anArrayFieldHoldingItsMarkerIsDecodedBeforeAnyCodeSeesIt() throws Exception {
        Class<?> partType = new RewritingClassLoader("corpus.").load("corpus.graph.Part");
        Field markerField = partType.getDeclaredField(Protocol.LAZY + "to");
        assertTrue(Modifier.isStatic(markerField.getModifiers()) && Modifier.isFinal(markerField.getModifiers())
                && Modifier.isPrivate(markerField.getModifiers()), "private static final: no public member is added");
        markerField.setAccessible(true); // as the kernel reads it
        Object marker = markerField.get(null);
        assertSame(partType.arrayType(), marker.getClass(), "a marker of the field's own type");
        assertEquals(0, Array.getLength(marker));

        Object part = Reflect.make(partType, 1, "t", 3);
        Field to = partType.getDeclaredField("to");
        to.setAccessible(true);
        Object decoded = Array.newInstance(partType, 3);
        List<Object> asked = new ArrayList<>();
        ObjectHandle handle = new ObjectHandle(part, 1, null) {
            @Override
            protected void load(Persistent object) {
                throw new AssertionError("the object is resident");
            }

            @Override
            protected void beforeWrite(Persistent object) {
                throw new AssertionError("nothing is written");
            }

            @Override
            protected void materialize(Persistent object, Object m) {
                asked.add(m);
                try {
                    to.set(object, decoded); // what the kernel does: decode, and set the field
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        };
        ((Persistent) part).$perpetua$handle(handle);
        ((Persistent) part).$perpetua$state(ObjectState.CLEAN);

        to.set(part, marker); // as a fill leaves it
        assertEquals(3, Reflect.call(part, "fanOut"), "a read through this, in the object's own method");
        assertEquals(List.of(marker), asked);

        to.set(part, marker);
        Method getter = partType.getDeclaredMethod(Protocol.GET + "to", partType);
        getter.setAccessible(true);
        assertSame(decoded, getter.invoke(null, part), "the getter");
        assertEquals(2, asked.size());
        assertSame(decoded, getter.invoke(null, part), "a decoded field is returned as it is");
        assertEquals(2, asked.size());
    }
}
