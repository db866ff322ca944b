package io.perpetua.agent;

import io.perpetua.agent.transform.ClassFilter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentOptionsTest {

    @Test
    void parsesEveryOption() {
        AgentOptions o = AgentOptions.parse("verbose,failFast,include=com.acme:org.lib,exclude=com.acme.gen,"
                + "include=net.x,dump=/tmp/out");
        assertTrue(o.verbose());
        assertTrue(o.failFast());
        assertEquals(List.of("com.acme", "org.lib", "net.x"), o.include());
        assertEquals(List.of("com.acme.gen"), o.exclude());
        assertEquals(Path.of("/tmp/out"), o.dump());
    }

    @Test
    void defaultsWhenEmpty() {
        AgentOptions o = AgentOptions.parse(null);
        assertFalse(o.verbose() || o.failFast());
        assertEquals(List.of(), o.include());
        assertNull(o.dump());
        assertEquals(o, AgentOptions.parse(""));
    }

    @Test
    void mistakesAreRefusedWithTheOffendingOption() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("verbos"))
                .getMessage().contains("unknown option 'verbos'"));
        assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("include="));
        assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("include=com acme"));
        assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("failFast=yes"));
        assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("dump"));
    }

    @Test
    void filterNeverTouchesTheJdkOrPerpetuaButDoesTouchItsSamplesAndBenchmarks() {
        ClassFilter all = ClassFilter.everything();
        for (String name : List.of("java/lang/String", "javax/swing/JFrame", "jdk/internal/Foo", "sun/misc/Unsafe",
                "com/sun/Foo", "io/perpetua/Perpetua", "io/perpetua/runtime/Residency", "io/perpetua/kernel/Kernel",
                "io/perpetua/spi/Backend", "io/perpetua/memory/X", "io/perpetua/agent/shaded/asm/ClassReader",
                "io/perpetua/store/file/FileBackend", "org/rocksdb/RocksDB", "org/rocksdb/util/Environment")) {
            assertTrue(all.reject(name) != null, name);
        }
        for (String name : List.of("io/perpetua/samples/Shop", "io/perpetua/benchmarks/oo1/Part", "com/acme/Order",
                "Main", "org/rocksdbx/Fork")) {
            assertNull(all.reject(name), name);
        }
        ClassFilter some = new ClassFilter(List.of("com.acme"), List.of("com.acme.gen", "com.acme.Skip"));
        assertNull(some.reject("com/acme/Order"));
        assertNull(some.reject("com/acme/sub/Line"));
        assertTrue(some.reject("com/acmeX/Order").contains("include"));
        assertTrue(some.reject("com/acme/gen/Foo").contains("exclude=com.acme.gen"));
        assertTrue(some.reject("com/acme/Skip$Inner").contains("exclude=com.acme.Skip"));
        assertNull(some.reject("com/acme/Skipper"));
    }
}
