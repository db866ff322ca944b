package io.perpetua.runtime;

import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry of creation proxies, as the agent's generated static initializers use it: a class
 * registers a lookup on itself, and its proxy is made on the first request.
 */
class PersistentClassesTest {

    /** What the agent generates, by hand: the registration and the private creation method. */
    static final class Registered {
        static int made;

        static {
            PersistentClasses.register(Registered.class, MethodHandles.lookup());
        }

        private Registered(ObjectState proxy) {
        }

        Registered() {
            throw new AssertionError("a creation proxy runs no user constructor");
        }

        @SuppressWarnings("unused") // called by the proxy the registry makes
        private static Persistent $perpetua$new() {
            made++;
            return null; // the registry never looks at what it returns
        }
    }

    /** Registers with a lookup but has no creation method. */
    static final class WithoutCreationMethod {
        static {
            PersistentClasses.register(WithoutCreationMethod.class, MethodHandles.lookup());
        }
    }

    @Test
    void theProxyIsMadeOnTheFirstRequestAndCallsTheCreationMethod() throws ClassNotFoundException {
        Class.forName(Registered.class.getName(), true, getClass().getClassLoader()); // runs the registration
        assertFalse(PersistentClasses.proxyMade(Registered.class), "initializing a class makes no proxy");
        HollowFactory factory = PersistentClasses.factory(Registered.class);
        assertTrue(PersistentClasses.proxyMade(Registered.class));
        assertSame(factory, PersistentClasses.factory(Registered.class), "made once");
        int before = Registered.made;
        assertNull(factory.newInstance());
        factory.newInstance();
        assertEquals(before + 2, Registered.made, "each call runs the class's creation method");
    }

    @Test
    void aClassWithoutItsCreationMethodIsAClearError() throws ClassNotFoundException {
        Class.forName(WithoutCreationMethod.class.getName(), true, getClass().getClassLoader());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> PersistentClasses.factory(WithoutCreationMethod.class));
        assertTrue(e.getMessage().contains(WithoutCreationMethod.class.getName()), e.getMessage());
    }

    @Test
    void onlyAClassesOwnFullLookupIsTaken() {
        MethodHandles.Lookup mine = MethodHandles.lookup();
        assertThrows(IllegalArgumentException.class, () -> PersistentClasses.register(Registered.class, mine));
        MethodHandles.Lookup reduced = mine.dropLookupMode(MethodHandles.Lookup.PRIVATE);
        assertThrows(IllegalArgumentException.class,
                () -> PersistentClasses.register(PersistentClassesTest.class, reduced));
        assertThrows(NullPointerException.class,
                () -> PersistentClasses.register(null, MethodHandles.lookup()));
        assertNull(PersistentClasses.factory(PersistentClassesTest.class), "nothing registered for a refused lookup");
    }

    @Test
    void aFactoryRegisteredDirectlyIsReturnedAsItIs() {
        HollowFactory f = () -> null;
        PersistentClasses.register(Unregistered.class, f);
        assertSame(f, PersistentClasses.factory(Unregistered.class));
        assertNotSame(f, PersistentClasses.factory(Registered.class));
    }

    static final class Unregistered {
    }

    /** An inner class that keeps its outer instance (this test), as a map's cached key set does. */
    final class Inner extends io.perpetua.testmodel.Base {
        Object outer() {
            return PersistentClassesTest.this;
        }
    }

    /** @return an object of a local class of a static method: it keeps no outer instance */
    private static Persistent local() {
        final class Local extends io.perpetua.testmodel.Base {
        }
        return new Local();
    }

    @Test
    void anInnerObjectInATransientFieldIsAViewOnlyOfItsOuterInstance() {
        Inner inner = new Inner();
        assertTrue(PersistentClasses.storedAsNullInTransientField(this, inner), "a view of the holder");
        assertFalse(PersistentClasses.storedAsNullInTransientField(new Object(), inner), "state of another's");
        Persistent local = local();
        assertNotNull(local.getClass().getEnclosingClass());
        assertFalse(PersistentClasses.storedAsNullInTransientField(this, local),
                "one that keeps no outer instance (javac 18+ leaves it out when unused) is state");
    }
}
