package io.perpetua.kernel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The names {@link ClassRenames} gives stored classes and fields, from what an application declares. */
class ClassRenamesTest {
    @TempDir
    Path dir;

    @Test
    void classesChainAndNestedClassesFollowTheirOuterClass() throws Exception {
        ClassRenames renames = declared("""
                a.Old = a.Newer
                a.Newer = b.Newest
                a.Outer = b.Outer
                a.Outer$Kept = a.Outer$Kept
                a.Outer$Inner#x = y
                """);
        assertEquals("b.Newest", renames.current("a.Old"));
        assertEquals("b.Newest", renames.current("a.Newer"));
        assertEquals("a.Unrelated", renames.current("a.Unrelated"));
        assertEquals("b.Outer$Inner", renames.current("a.Outer$Inner"));
        assertEquals("b.Outer$Inner$Deep", renames.current("a.Outer$Inner$Deep"));
        assertEquals("a.Outer$Kept", renames.current("a.Outer$Kept")); // declared itself
        assertEquals("[[Lb.Outer$Inner;", renames.current("[[La.Outer$Inner;"));
        assertEquals("[I", renames.current("[I"));
        assertEquals("y", renames.currentField("a.Outer$Inner", "x"));
        assertEquals("x", renames.currentField("b.Outer$Inner", "x")); // keyed by the class's current name
    }

    /**
     * A field renamed in one release under the class's name then, and again in a later release
     * that renamed the class too: a value stored under the first name reads as the last, with
     * no earlier line rewritten.
     */
    @Test
    void fieldRenamesChainThroughTheClassesRenames() throws Exception {
        ClassRenames renames = declared("""
                a.A = a.B
                a.B#qty = quantity
                a.B = a.C
                a.C#quantity = amount
                """);
        assertEquals("a.C", renames.current("a.A"));
        assertEquals("amount", renames.currentField("a.A", "qty"));
        assertEquals("amount", renames.currentField("a.B", "qty"));
        assertEquals("amount", renames.currentField("a.B", "quantity"));
        assertEquals("amount", renames.currentField("a.C", "quantity"));
        assertEquals("qty", renames.currentField("a.C", "qty"), "declared under an older name of the class only");
        assertTrue(renames.renamedAway("a.A"));
        assertTrue(renames.renamedAway("a.B"));
        assertFalse(renames.renamedAway("a.C"));
    }

    @Test
    void noDeclarationRenamesNothing() {
        ClassRenames none = ClassRenames.declaredTo(getClass().getClassLoader());
        assertEquals("a.Outer$Inner", none.current("a.Outer$Inner"));
        assertEquals("x", none.currentField("a.Outer", "x"));
    }

    private ClassRenames declared(String properties) throws Exception {
        Path file = dir.resolve(ClassRenames.RESOURCE);
        Files.createDirectories(file.getParent());
        Files.writeString(file, properties);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            return ClassRenames.declaredTo(loader);
        }
    }
}
