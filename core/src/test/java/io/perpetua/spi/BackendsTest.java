package io.perpetua.spi;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Store URIs: locations and options as users write them. */
class BackendsTest {

    @Test
    void aStoreUriGivenAsAPathIsRefusedNotMadeADirectory() {
        for (String uri : new String[] {"file:/data/shop", "rocksdb:/data/shop", "memory:x", "FILE:/data/shop", "Memory:x"}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> Backends.open(java.nio.file.Path.of(uri)));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("PersistentStore.open(String)"), e.getMessage());
        }
        org.junit.jupiter.api.Assertions.assertFalse(java.nio.file.Files.exists(java.nio.file.Path.of("file:")), "nothing made");
    }

    @Test
    void percentEscapesAreDecodedAndPlusSignsKept() {
        assertEquals("/data/a b+c", Backends.percentDecode("/data/a%20b+c"));
    }

    @Test
    void optionsParseAndBooleansAreStrict() {
        Map<String, String> options = Backends.parseOptions("sync=false&flag&x=a%26b");
        assertEquals(Map.of("sync", "false", "flag", "true", "x", "a&b"), options);
        assertFalse(Backends.booleanOption(options, "sync", true));
        assertTrue(Backends.booleanOption(options, "flag", false));
        assertThrows(IllegalArgumentException.class,
                () -> Backends.booleanOption(new java.util.HashMap<>(Map.of("s", "yes")), "s", true));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.rejectUnknownOptions("file", options));
        assertTrue(e.getMessage().contains("x"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Backends.parseOptions("sync=true&sync=false"));
        assertEquals("the store option sync is given twice: sync=true&sync=false", e.getMessage());
    }

    @Test
    void aSchemeWhoseBackendIsMissingSaysWhichModuleToAdd() {
        // core's tests have no backend module on their class path
        io.perpetua.PersistentStoreException e = assertThrows(io.perpetua.PersistentStoreException.class,
                () -> Backends.open(java.net.URI.create("rocksdb:/nowhere")));
        assertTrue(e.getMessage().endsWith("add io.perpetua:perpetua-store-rocksdb to the class path"), e.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Backends.open(java.net.URI.create("memory:?synch=false")));
        assertEquals("unknown option(s) for memory: [synch]; it takes none", unknown.getMessage());
    }

    /** {@code file://host/x} names a host: refused, not opened as the relative directory {@code host/x}. */
    @Test
    void aUriWithAHostIsRefusedAndThreeSlashesAreAPath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.open(java.net.URI.create("memoryless://host/x")));
        assertTrue(e.getMessage().contains("not a host (host)"), e.getMessage());
        try (Backend named = Backends.open(java.net.URI.create("memory://backends-test-name"))) {
            assertEquals("memory:backends-test-name", named.location()); // memory: takes a name, not a path
        }
    }

    /**
     * A thread whose context class loader sees another copy of perpetua-core (a plug-in that
     * bundles its own, while the host opens its store) still opens the host's stores: that
     * copy's providers are skipped (a raw ServiceConfigurationError escaped), and a scheme no
     * provider of this copy serves is the documented exception, naming what was skipped.
     */
    @Test
    void providersOfAnotherCopyOfCoreSeenByTheContextLoaderAreSkipped() throws Exception {
        java.net.URL core = io.perpetua.PersistentStore.class.getProtectionDomain().getCodeSource().getLocation();
        Thread thread = Thread.currentThread();
        ClassLoader was = thread.getContextClassLoader();
        try (java.net.URLClassLoader plugIn = new java.net.URLClassLoader(new java.net.URL[] {core},
                ClassLoader.getPlatformClassLoader())) {
            assertTrue(plugIn.loadClass(BackendProvider.class.getName()) != BackendProvider.class, "another copy");
            thread.setContextClassLoader(plugIn);
            try (io.perpetua.PersistentStore store = io.perpetua.PersistentStore.open("memory:backends-test-copies")) {
                assertEquals("memory:backends-test-copies", store.location());
            }
            io.perpetua.PersistentStoreException e = assertThrows(io.perpetua.PersistentStoreException.class,
                    () -> io.perpetua.PersistentStore.open("nothing:/x"));
            assertTrue(e.getMessage().contains("providers skipped, not this copy of perpetua-core's"), e.getMessage());
            assertTrue(e.getMessage().contains("io.perpetua.memory.MemoryBackendProvider not a subtype"), e.getMessage());
        } finally {
            thread.setContextClassLoader(was);
        }
    }

    /** {@code memory:a#b} would open {@code memory:a}: a fragment is refused, as a host is. */
    @Test
    void aUriWithAFragmentIsRefusedNamingPercent23() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.open("memory:backends-test#1"));
        assertEquals("a store URI has no fragment (#1): a '#' in a directory name is written %23"
                + " (memory:backends-test%231), or open the store by its Path: memory:backends-test#1", e.getMessage());
    }

    @Test
    void aLocationIsAUriPathThatDecodesToTheDirectory() {
        java.nio.file.Path dir = java.nio.file.Path.of("/data", "shop#1 a%41");
        String location = Backends.location("file", dir);
        assertEquals("file:/data/shop%231%20a%2541", location);
        assertEquals(dir.toString(), Backends.percentDecode(java.net.URI.create(location).getRawSchemeSpecificPart()));
    }
}
