package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.kernel.ClassDescriptor.Field;
import io.perpetua.kernel.ClassDescriptor.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a record written under an older layout is matched to the class's current fields
 * ({@link LayoutEvolution}, through {@link RecordDecoder#evolved}): by declaring class and name, then, for a field that moved
 * within the hierarchy, by name alone when that is unambiguous; classes and fields the application
 * declares renamed by their new names. (An upgrade in forked JVMs with
 * the real agent: the agent's {@code ClassEvolutionIT}.)
 */
class LayoutEvolutionTest {
    @Test
    void aFieldIsMatchedByItsDeclaringClassAndName() {
        assertEquals(List.of(2, 0), served(List.of(f("Item", "b", 1), f("Item", "a", 2)),
                List.of(f("Item", "a"), f("Item", "c"))));
    }

    @Test
    void aFieldPulledUpOrPushedDownKeepsItsValue() {
        assertEquals(List.of(1, 2), served(List.of(f("Item", "a", 1), f("Item", "b", 2)),
                List.of(f("Base", "a"), f("Item", "b"))));
        assertEquals(List.of(1), served(List.of(f("Base", "a", 1)), List.of(f("Item", "a"))));
    }

    @Test
    void aNameThatIsAmbiguousMatchesNothing() {
        // two stored fields named a, neither still there: which one moved is not known
        assertEquals(List.of(0), served(List.of(f("Base", "a", 1), f("Item", "a", 2)), List.of(f("Other", "a"))));
        // two new fields named a: which one the stored field moved to is not known
        assertEquals(List.of(0, 0), served(List.of(f("Old", "a", 1)), List.of(f("Base", "a"), f("Item", "a"))));
        // a field still declared where it was keeps its value; a new one of the same name elsewhere is new
        assertEquals(List.of(1, 0), served(List.of(f("Base", "a", 1)), List.of(f("Base", "a"), f("Item", "a"))));
    }

    @Test
    void declaredRenamesOfClassesAndFieldsAreFollowed(@TempDir Path dir) throws Exception {
        ClassLoader renames = declaring(dir, "Old = Item\nItem#a = b\nItem#b = c\nBase#x = y\n");
        // Old.a is Item.a, renamed b then c; Base.x became y; Item.z is left as it was
        assertEquals(List.of(1, 2, 3), served(renames, List.of(f("Old", "a", 1), f("Base", "x", 2), f("Item", "z", 3)),
                List.of(f("Item", "c"), f("Base", "y"), f("Item", "z"))));
        // a renamed field that also moved to another class of the hierarchy
        assertEquals(List.of(1), served(renames, List.of(f("Item", "a", 1)), List.of(f("Base", "c"))));
    }

    @Test
    void aFieldWhoseKindChangedIsReadWhenEveryStoredValueFits() {
        assertEquals(5, LayoutEvolution.converted((byte) 5, 'B', 'I'));
        assertEquals((short) -5, LayoutEvolution.converted((byte) -5, 'B', 'S'));
        assertEquals(7L, LayoutEvolution.converted(7, 'I', 'J'));
        assertEquals(Long.valueOf(Integer.MIN_VALUE), LayoutEvolution.converted(Integer.MIN_VALUE, 'I', 'J'));
        assertEquals((double) Integer.MAX_VALUE, LayoutEvolution.converted(Integer.MAX_VALUE, 'I', 'D'));
        assertEquals(1.1f + 0d, LayoutEvolution.converted(1.1f, 'F', 'D'));
        assertEquals(65, LayoutEvolution.converted('A', 'C', 'I'));
        assertEquals(65L, LayoutEvolution.converted('A', 'C', 'J'));
        assertEquals(7, LayoutEvolution.converted(7, 'I', 'L')); // boxed, for an Integer, Number or Object field
        assertEquals(7L, LayoutEvolution.converted(7, 'L', 'J')); // an Integer unboxed and widened
        assertEquals(true, LayoutEvolution.converted(true, 'L', 'Z'));
    }

    @Test
    void aFieldWhoseKindChangedSoThatAValueMayNotFitIsNotRead() {
        Object no = LayoutEvolution.NOT_CONVERTIBLE;
        assertSame(no, LayoutEvolution.converted(7L, 'J', 'I')); // narrowing
        assertSame(no, LayoutEvolution.converted(7, 'I', 'F')); // may round
        assertSame(no, LayoutEvolution.converted(7L, 'J', 'D')); // may round
        assertSame(no, LayoutEvolution.converted(7, 'I', 'C')); // sign
        assertSame(no, LayoutEvolution.converted(true, 'Z', 'I'));
        assertSame(no, LayoutEvolution.converted(null, 'L', 'I'));
        assertSame(no, LayoutEvolution.converted("7", 'L', 'I'));
        assertSame(no, LayoutEvolution.converted(7L, 'L', 'I'));
    }

    @Test
    void aMovedFieldThatChangedItsKindIsAnErrorNamingIt() {
        ClassDescriptor stored = descriptor(List.of(new Field("Item", "a", 'J')));
        ClassDescriptor current = descriptor(List.of(new Field("Base", "a", 'I')));
        ByteOut body = new ByteOut(8);
        body.writeSignedVarLong(7);
        IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                () -> decoder(body).evolved(stored, current));
        assertEquals("Base", e.className());
        assertEquals("a", e.fieldName());
    }

    /**
     * The contents a class extending a JDK collection stored have nowhere to go once it extends
     * none, or a map: an error naming them, not a loss (a removed field is dropped) or a misreading.
     */
    @Test
    void storedContentsOfAJdkCollectionTheClassNoLongerExtendsAreAnError() {
        ClassDescriptor stored = descriptor(List.of(new Field("Tags", "owner", 'I'),
                new Field("Tags", io.perpetua.runtime.PersistentClasses.ELEMENTS, 'I')));
        ByteOut body = new ByteOut(8);
        body.writeSignedVarInt(1);
        body.writeSignedVarInt(2);
        for (List<Field> now : List.of(List.of(new Field("Tags", "owner", 'I')), List.of(new Field("Tags", "owner", 'I'),
                new Field("Tags", io.perpetua.runtime.PersistentClasses.ENTRIES, 'I')))) {
            IncompatibleClassChangeException e = assertThrows(IncompatibleClassChangeException.class,
                    () -> decoder(body).evolved(stored, descriptor(now)));
            assertEquals("Tags", e.className());
            assertEquals(io.perpetua.runtime.PersistentClasses.ELEMENTS, e.fieldName());
            assertTrue(e.getMessage().contains("now extends no collection"), e.getMessage());
        }
        // from one collection to another (ArrayList to LinkedList), the contents are kept
        assertEquals(List.of(2), served(List.of(f("Tags", io.perpetua.runtime.PersistentClasses.ELEMENTS, 2)),
                List.of(f("Tags", io.perpetua.runtime.PersistentClasses.ELEMENTS))));
    }

    /** A stored int field with its value. */
    private record Stored(Field field, int value) {
    }

    private static Stored f(String owner, String name, int value) {
        return new Stored(new Field(owner, name, 'I'), value);
    }

    private static Field f(String owner, String name) {
        return new Field(owner, name, 'I');
    }

    /** @return a class loader that sees these renames declared, as an application's class path would */
    private static ClassLoader declaring(Path dir, String properties) throws Exception {
        Path file = dir.resolve(ClassRenames.RESOURCE);
        Files.createDirectories(file.getParent());
        Files.writeString(file, properties);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, LayoutEvolutionTest.class.getClassLoader());
    }

    /** @return the values the current fields are served from a record of the stored fields */
    private static List<Object> served(List<Stored> stored, List<Field> current) {
        return served(LayoutEvolutionTest.class.getClassLoader(), stored, current);
    }

    private static List<Object> served(ClassLoader loader, List<Stored> stored, List<Field> current) {
        ByteOut body = new ByteOut(16);
        List<Field> storedFields = new ArrayList<>();
        for (Stored s : stored) {
            storedFields.add(s.field());
            body.writeSignedVarInt(s.value());
        }
        FieldValues values = decoder(loader, body).evolved(descriptor(storedFields), descriptor(current));
        List<Object> served = new ArrayList<>();
        for (int i = 0; i < current.size(); i++) {
            served.add(values.next());
        }
        return served;
    }

    private static RecordDecoder decoder(ByteOut body) {
        return decoder(LayoutEvolutionTest.class.getClassLoader(), body);
    }

    private static RecordDecoder decoder(ClassLoader loader, ByteOut body) {
        ClassRegistry classes = new ClassRegistry(Map.of(), loader, "test:");
        return new RecordDecoder(classes, null, null).reset(new ByteIn(body.toByteArray()), "test:", 1);
    }

    private static ClassDescriptor descriptor(List<Field> fields) {
        return new ClassDescriptor(1, Kind.OBJECT, "Item", fields);
    }
}
