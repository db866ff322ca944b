package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;
import io.perpetua.testmodel.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An exception class of the application extends {@code Throwable}, a JDK class with state, so
 * the agent leaves it as it is; it is stored by its Java serialization, as the JDK's exceptions
 * are: with its message, fields, cause chain and stack trace, and its identity; holding only
 * what those may hold; read through the store's class loader; and a class changed without its
 * {@code serialVersionUID} is a clear error.
 */
class ApplicationExceptionsTest {

    /** An exception of the application, with a field of its own. */
    static class OrderRejected extends Exception {
        private static final long serialVersionUID = 1L;
        final int code;

        OrderRejected(String message, int code, Throwable cause) {
            super(message, cause);
            this.code = code;
        }
    }

    /** One that holds an object of the store, which its serialization cannot. */
    static class HoldsANode extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Node node;

        HoldsANode(Node node) {
            this.node = node;
        }
    }

    /** An inner class: it holds the test object it was made in. */
    class Inner extends Exception {
        private static final long serialVersionUID = 1L;
    }

    @TempDir
    Path dir;

    @Test
    void anExceptionOfTheApplicationComesBackWithItsStateCausesAndIdentity() {
        String uri = TestStores.newUri();
        OrderRejected cause = new OrderRejected("inner", 1, new IOException("disk full"));
        OrderRejected rejected = new OrderRejected("no stock", 7, cause);
        rejected.addSuppressed(new IllegalStateException("also"));
        try (PersistentStore store = TestStores.open(uri)) {
            store.inTransaction(() -> {
                TypesRoundTripTest.persistHeldByTwo(store, rejected);
                store.persist(rejected, "last error"); // a name bound to it, as to any object
            });
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Node a = store.fetch("a", Node.class);
            OrderRejected back = (OrderRejected) a.any();
            assertSame(back, a.next().any(), "one exception of two objects is one exception after a reload");
            assertSame(back, store.fetch("last error"));
            assertEquals("no stock", back.getMessage());
            assertEquals(7, back.code);
            assertArrayEquals(rejected.getStackTrace(), back.getStackTrace());
            OrderRejected inner = (OrderRejected) back.getCause();
            assertEquals("inner", inner.getMessage());
            assertEquals(1, inner.code);
            assertEquals("java.io.IOException: disk full", inner.getCause().toString());
            assertEquals("java.lang.IllegalStateException: also", back.getSuppressed()[0].toString());

            // changed in place (a suppressed exception added): saved by the next commit
            store.inTransaction(() -> back.addSuppressed(new RuntimeException("later")));
        }
        try (PersistentStore store = TestStores.open(uri)) {
            Throwable back = (Throwable) store.fetch("a", Node.class).any();
            assertEquals("[java.lang.IllegalStateException: also, java.lang.RuntimeException: later]",
                    Arrays.toString(back.getSuppressed()));
        }
    }

    /** One that holds an object of the store is refused with the path; so is an inner class, with why. */
    @Test
    void anExceptionHoldingAnObjectOfTheStoreIsRefusedWithThePath() {
        String uri = TestStores.newUri();
        try (PersistentStore store = TestStores.open(uri)) {
            NotPersistableException e = TypesRoundTripTest.refusedInHolder(store, new HoldsANode(new Node("inside")));
            assertEquals("\"holder\".any", e.path());
            assertEquals(HoldsANode.class.getName(), e.className());
            assertTrue(e.reason().contains("an exception class of the application")
                    && e.reason().contains(Node.class.getName()), e.getMessage());

            NotPersistableException inner = TypesRoundTripTest.refusedInHolder(store, new Inner());
            assertEquals(Inner.class.getName(), inner.className());
            assertTrue(inner.reason().contains("inner or anonymous class"), inner.getMessage());
        }
    }

    /**
     * The class is found through the store's class loader (the thread's context loader when it
     * was opened), which here is the only one that has it: Java serialization's default would
     * look in Perpetua's own. The same class compiled again with a field more and no declared
     * {@code serialVersionUID} cannot read what the first stored: a clear error naming it.
     */
    @Test
    void anExceptionClassIsFoundThroughTheStoresLoaderAndAnIncompatibleChangeIsAnError() throws Exception {
        String uri = TestStores.newUri();
        ClassLoader v1 = compile("v1", "public final int code; public Rejected(String m, int code) { super(m); this.code = code; }");
        ClassEvolutionTest.withLoader(v1, () -> {
            Object rejected = v1.loadClass("evo.Rejected").getConstructor(String.class, int.class).newInstance("late", 3);
            try (PersistentStore store = TestStores.open(uri)) {
                TypesRoundTripTest.persistHolder(store, rejected);
            }
            try (PersistentStore store = TestStores.open(uri)) {
                Object back = store.fetch("holder", Node.class).any();
                assertSame(v1.loadClass("evo.Rejected"), back.getClass());
                assertEquals("evo.Rejected: late", back.toString());
                assertEquals(3, back.getClass().getField("code").get(back));
            }
            return null;
        });
        ClassLoader v2 = compile("v2", "public final int code; public final String added = \"x\";"
                + " public Rejected(String m, int code) { super(m); this.code = code; }");
        ClassEvolutionTest.withLoader(v2, () -> {
            try (PersistentStore store = TestStores.open(uri)) {
                IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                        () -> store.fetch("holder", Node.class).any());
                assertEquals("evo.Rejected", e.className());
                assertTrue(e.getMessage().contains("serialVersionUID"), e.getMessage());
            }
            return null;
        });
    }

    /** Compiles {@code evo.Rejected extends Exception} with this body into a loader of its own. */
    private ClassLoader compile(String version, String body) throws IOException {
        Path src = dir.resolve(version + "-src/evo/Rejected.java");
        Path out = dir.resolve(version + "-classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(out);
        Files.writeString(src, "package evo;\npublic class Rejected extends Exception {\n" + body + "\n}\n");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", out.toString(), src.toString()), "compiles");
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
    }
}
