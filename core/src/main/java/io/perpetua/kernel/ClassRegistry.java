package io.perpetua.kernel;

import io.perpetua.CorruptStoreException;
import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.PersistentStoreException;
import io.perpetua.NotPersistableException;
import io.perpetua.UnsupportedStoreFormatException;
import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordWriter;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The store's class descriptors and the kernel's knowledge of loaded classes. Reflection is
 * used here once per class (to derive a layout), never per object. Guarded by the kernel's
 * lock.
 */
final class ClassRegistry {
    private static final String SYNTHETIC_PREFIX = "$perpetua$";
    /** The prefix of the static field holding an array field's lazy marker (the agent's protocol). */
    static final String LAZY_PREFIX = "$perpetua$lazy$";

    private final Map<Integer, ClassDescriptor> byId = new HashMap<>();
    /**
     * The same for small ids, by index: every reference a fault decodes names its class by id,
     * and the boxed map lookup showed in the profile of faulting in OO1's parts.
     */
    private ClassDescriptor[] small = new ClassDescriptor[64];
    private final Map<String, ClassDescriptor> byKey = new HashMap<>();
    /** Descriptors created in this session and not yet committed, in creation order. */
    private final List<ClassDescriptor> unwritten = new ArrayList<>();
    private final Map<Class<?>, ClassInfo> infos = new HashMap<>();
    /**
     * The infos looked up last, tried before {@link #infos}: a commit meets few classes, in turns
     * (an OO1 part, its connections, its index chunk), and hashing a {@code Class} for the map
     * was about 6% of the Java samples of an OO1 insert commit.
     */
    private final ClassInfo[] recent = new ClassInfo[4];
    private int recentNext;
    /**
     * Stored container/enum descriptors by kind, then class name, for the writing side (a map
     * per kind rather than a concatenated key: this is asked for every container written).
     */
    private final Map<ClassDescriptor.Kind, Map<String, ClassDescriptor>> simple =
            new EnumMap<>(ClassDescriptor.Kind.class);
    private final Map<String, Class<?>> resolved = new HashMap<>();
    /** The constants stored references have named, by "class#field". */
    private final Map<String, Object> constants = new HashMap<>();
    /** {@link LayoutEvolution#match} by pair of descriptor ids: every fill of an object stored under an older layout asks. */
    private final Map<Long, int[]> matches = new HashMap<>();
    private final ClassLoader loader;
    private final ClassRenames renames;
    /** The element classes of {@link Class} values read, by stored name: loaded, not initialized. */
    private final Map<String, Class<?>> classValues = new HashMap<>();
    /** {@link #unloadableByName} of each element class of a {@link Class} value written: "" if it loads. */
    private final Map<Class<?>, String> unloadable = new HashMap<>();
    /**
     * The classes {@link #unreadable} last found loadable, tried first by identity: a commit asks
     * for every enum constant and array it writes, mostly of a few classes, and should not pay a
     * map lookup for each.
     */
    private final Class<?>[] loadable = new Class<?>[4];
    private int loadableNext;
    /** The primitive types' classes, by keyword: no class loader finds them by name. */
    private static final Map<String, Class<?>> PRIMITIVES = Map.of("boolean", boolean.class, "byte", byte.class,
            "char", char.class, "short", short.class, "int", int.class, "long", long.class, "float", float.class,
            "double", double.class, "void", void.class);
    private int maxId;
    /** The store's {@link RecordFormat}, as stored. */
    private int storedFormat = RecordFormat.UNMARKED;
    /** The descriptor id of the format entry the next commit writes, or 0 before one is chosen. */
    private int formatEntryId;

    /**
     * @throws CorruptStoreException if a stored descriptor cannot be read
     * @throws UnsupportedStoreFormatException if the store is in a {@link RecordFormat} newer
     *         than this version reads
     * @throws io.perpetua.PersistentStoreException if the renamed classes {@code loader} declares
     *         cannot be read or contradict each other (see {@link ClassRenames})
     */
    ClassRegistry(Map<Integer, byte[]> stored, ClassLoader loader, String location) {
        // the format first: a newer store is refused as such, not for a descriptor it cannot read
        for (Map.Entry<Integer, byte[]> e : stored.entrySet()) {
            if (RecordFormat.isEntry(e.getValue())) {
                try {
                    storedFormat = Math.max(storedFormat, RecordFormat.decode(e.getValue()));
                } catch (ByteIn.MalformedRecord m) {
                    throw new CorruptStoreException(location + ", class descriptor #" + e.getKey(), m.getMessage(), null);
                }
                maxId = Math.max(maxId, e.getKey());
            }
        }
        if (storedFormat > RecordFormat.CURRENT) {
            throw new UnsupportedStoreFormatException(location, RecordFormat.NAME, storedFormat, RecordFormat.CURRENT);
        }
        this.loader = loader;
        this.renames = ClassRenames.declaredTo(loader);
        for (Map.Entry<Integer, byte[]> e : stored.entrySet()) {
            if (RecordFormat.isEntry(e.getValue())) {
                continue;
            }
            ClassDescriptor d;
            try {
                d = ClassDescriptor.decode(e.getKey(), e.getValue());
            } catch (ByteIn.MalformedRecord m) {
                throw new CorruptStoreException(location + ", class descriptor #" + e.getKey(), m.getMessage(), null);
            }
            add(d);
        }
    }

    private void add(ClassDescriptor d) {
        byId.put(d.id, d);
        if (d.id >= 0 && d.id < 1 << 16) {
            if (d.id >= small.length) {
                small = Arrays.copyOf(small, Math.max(d.id + 1, small.length * 2));
            }
            small[d.id] = d;
        }
        byKey.putIfAbsent(d.key(), d);
        if (d.fields.isEmpty()) {
            simple.computeIfAbsent(d.kind, k -> new HashMap<>()).putIfAbsent(d.className, d);
        }
        maxId = Math.max(maxId, d.id);
    }

    /**
     * As {@link #byId(int, String)} for a record of object {@code objectId}, naming it
     * ({@code location, object #id}) only in the error: the fault path calls this for every
     * reference it decodes, and building that string each time showed in its profile.
     */
    ClassDescriptor byId(int id, String location, long objectId) {
        ClassDescriptor d = id >= 0 && id < small.length ? small[id] : null;
        return d != null ? d : byId(id, location + ", object #" + objectId);
    }

    ClassDescriptor byId(int id, String where) {
        ClassDescriptor d = id >= 0 && id < small.length ? small[id] : null;
        if (d == null) {
            d = byId.get(id);
        }
        if (d == null) {
            throw new CorruptStoreException(where, "it refers to class descriptor #" + id + ", which the store does not have", null);
        }
        return d;
    }

    /** @return the descriptor for this layout, creating (and queueing for the next commit) one if needed */
    ClassDescriptor descriptor(ClassDescriptor.Kind kind, String className, List<ClassDescriptor.Field> fields) {
        if (fields.isEmpty()) {
            ClassDescriptor d = simple.getOrDefault(kind, Map.of()).get(className);
            if (d != null) {
                return d;
            }
        }
        ClassDescriptor d = byKey.get(ClassDescriptor.key(kind, className, fields));
        if (d == null) {
            d = new ClassDescriptor(maxId + 1, kind, className, fields);
            add(d);
            unwritten.add(d);
        }
        return d;
    }

    ClassDescriptor descriptor(ClassDescriptor.Kind kind, Class<?> type) {
        if (type != lastType || kind != lastKind) {
            lastDescriptor = descriptor(kind, type.getName(), List.of());
            lastKind = kind;
            lastType = type;
        }
        return lastDescriptor;
    }

    /**
     * With {@link #lastType} and {@link #lastDescriptor}: the last answer of
     * {@link #descriptor(ClassDescriptor.Kind, Class)}, which stays right, since a class's
     * descriptor without fields is the first one added ({@link #add}). A commit asks for every
     * container it writes, mostly of one or two classes (OO1: an array of connections), and the
     * two map lookups behind it were 3 to 4% of the Java samples of an OO1 commit.
     */
    private ClassDescriptor.Kind lastKind;
    private Class<?> lastType;
    private ClassDescriptor lastDescriptor;

    /** @return the descriptors the next commit must write, oldest first */
    List<ClassDescriptor> unwritten() {
        return unwritten;
    }

    /**
     * @return the descriptor id under which the next commit that writes anything must store
     *         the {@link RecordFormat} entry, or 0 if the store holds the current format's
     */
    int formatEntryToWrite() {
        if (storedFormat == RecordFormat.CURRENT) {
            return 0;
        }
        if (formatEntryId == 0) {
            formatEntryId = ++maxId;
        }
        return formatEntryId;
    }

    /** Called after a commit that wrote {@link #unwritten()} and {@link #formatEntryToWrite()} succeeded. */
    void markWritten() {
        unwritten.clear();
        if (formatEntryId != 0) {
            storedFormat = RecordFormat.CURRENT;
            formatEntryId = 0;
        }
    }

    /**
     * @return the {@link Constants constant} a stored reference names, by its class's stored
     *         name and its field
     * @throws IncompatibleClassChangeException if the class or the constant is gone
     */
    Object constant(String className, String field) {
        String key = className + '#' + field;
        Object value = constants.get(key);
        if (value == null) {
            value = Constants.value(resolve(className), className, renames.currentField(className, field));
            constants.put(key, value);
        }
        return value;
    }

    /**
     * @return the loaded class of a stored class name
     * @throws IncompatibleClassChangeException if it cannot be found
     */
    Class<?> resolve(String className) {
        Class<?> c = resolved.get(className);
        if (c == null) {
            // initialize: a rewritten class registers its creation proxy in its static initializer
            c = load(className, true, "");
            resolved.put(className, c);
        }
        return c;
    }

    /**
     * @return a class value's element class by its stored name (a primitive type's keyword, or
     *         a class's binary name, renamed as declared), loaded but not initialized, as Java
     *         serialization loads the classes it reads
     * @throws IncompatibleClassChangeException if it cannot be found
     */
    Class<?> classValue(String storedName) {
        Class<?> c = PRIMITIVES.get(storedName);
        if (c == null) {
            c = classValues.get(storedName);
        }
        if (c == null) {
            c = load(storedName, false, "a stored Class value names it, and ");
            classValues.put(storedName, c);
        }
        return c;
    }

    /**
     * @return the class a stored Java serialization stream names ({@link JdkSerialized}), loaded
     *         as the store's classes are (this registry's loader, renamed as declared), not
     *         initialized
     * @throws ClassNotFoundException if there is none, for the stream to report
     */
    Class<?> inStream(String streamName) throws ClassNotFoundException {
        return Class.forName(renames.current(streamName), false, loader);
    }

    /**
     * Loads a stored class name, renamed as declared; {@code context} starts the error's reason.
     *
     * @throws IncompatibleClassChangeException if the class cannot be found or linked
     * @throws PersistentStoreException if its static initializer throws, now or did before: the
     *         class is there, and the application's own error is the cause
     */
    private Class<?> load(String storedName, boolean initialize, String context) {
        String name = renames.current(storedName);
        try {
            return Class.forName(name, initialize, loader);
        } catch (ExceptionInInitializerError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new PersistentStoreException("the static initializer of class " + name + " threw " + cause
                    + " when a stored object of the class was read", cause);
        } catch (NoClassDefFoundError e) {
            if (String.valueOf(e.getMessage()).startsWith("Could not initialize class")) {
                throw new PersistentStoreException("class " + name + " cannot be used: its static initializer"
                        + " failed earlier in this JVM (" + e + ")", e);
            }
            throw cannotLoad(storedName, name, context, e);
        } catch (ClassNotFoundException | LinkageError e) {
            throw cannotLoad(storedName, name, context, e);
        }
    }

    private static IncompatibleClassChangeException cannotLoad(String storedName, String name, String context,
                                                               Throwable e) {
        String reason = name.equals(storedName)
                ? "the class cannot be loaded (" + e + ")" + (e instanceof ClassNotFoundException
                        ? "; it was removed or renamed (declare a renamed class in " + ClassRenames.RESOURCE + ": "
                                + storedName + " = its new name)" : "")
                : "it was renamed to " + name + ", which cannot be loaded (" + e + ")";
        return new IncompatibleClassChangeException(storedName, null, context + reason, e);
    }

    /**
     * @return null if a class value's element class is found again by its name, through the
     *         class loader this registry reads with; else why not (a hidden class has no name
     *         to find; a class of another loader is found as another class, or not at all)
     */
    String unloadableByName(Class<?> element) {
        if (element.isPrimitive()) {
            return null;
        }
        String why = unloadable.get(element);
        if (why == null) {
            if (element.isHidden()) {
                why = "is a hidden class (a lambda's or a proxy's, say): no other JVM can load it by its name";
            } else {
                Class<?> found;
                try {
                    found = Class.forName(element.getName(), false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    found = null;
                }
                why = found == element ? "" : "comes from the class loader " + element.getClassLoader()
                        + ", and the store's class loader (" + loader + ") "
                        + (found == null ? "does not find it" : "finds another class of that name");
            }
            unloadable.put(element, why);
        }
        return why.isEmpty() ? null : why;
    }

    /**
     * {@link #unloadableByName} for any class whose name a record holds: an enum's, an
     * {@code EnumSet}'s or {@code EnumMap}'s, a constant's, an array's (by its element class), an
     * exception's stored by its serialization. Classes of the boot class loader are found by
     * every loader; the others' answers are remembered, the last few found loadable tried first.
     *
     * @return null if the store can read back a value naming {@code type}; else why not
     */
    String unreadable(Class<?> type) {
        for (Class<?> c : loadable) {
            if (c == type) {
                return null;
            }
        }
        Class<?> element = type;
        while (element.isArray()) {
            element = element.getComponentType();
        }
        String why = element.getClassLoader() == null ? null : unloadableByName(element);
        if (why == null) {
            loadable[loadableNext++ & (loadable.length - 1)] = type;
        }
        return why;
    }

    /**
     * @param type a class {@link #unreadable} refused
     * @param why what it said
     * @return the reason of the refusal, with the way out
     */
    static String unreadableReason(Class<?> type, String why) {
        Class<?> element = type;
        while (element.isArray()) {
            element = element.getComponentType();
        }
        return "the class " + element.getName() + " " + why + ", so the store could not read it back; open the"
                + " store with the thread's context class loader set to a loader that sees it";
    }

    /** @return the name a stored class has now: itself, unless the application declares it renamed */
    String currentName(String storedName) {
        return renames.current(storedName);
    }

    /** @return {@link LayoutEvolution#match} of two layouts, worked out once */
    int[] match(ClassDescriptor stored, ClassDescriptor current) {
        return matches.computeIfAbsent(((long) stored.id << 32) | (current.id & 0xFFFFFFFFL),
                k -> LayoutEvolution.match(stored, current, this));
    }

    /**
     * @return why what a class writes would be read back as something else, or null: its name
     *         (or a field's) is the old name of a declared rename, and a new class (or field)
     *         took it since, as {@code Address = LegacyAddress} with a new {@code Address}
     */
    String renameClash(String className, List<ClassDescriptor.Field> fields) {
        if (renames.renamedAway(className)) {
            return "its name is declared renamed (" + className + " = " + renames.current(className) + " in "
                    + ClassRenames.RESOURCE + "), so an object written under it would be read back as the other class;"
                    + " give this class another name, or remove the declaration once no stored object has the old name";
        }
        for (ClassDescriptor.Field f : fields) {
            String readAs = renames.currentField(f.owner(), f.name());
            if (!readAs.equals(f.name())) {
                return "its field " + f.owner() + "." + f.name() + " has a name declared renamed (" + f.owner() + "#"
                        + f.name() + " = " + readAs + " in " + ClassRenames.RESOURCE + "), so its value would be read back"
                        + " as the field " + readAs + "; give the field another name, or remove the declaration once no"
                        + " stored object has the old name";
            }
        }
        return null;
    }

    /** @return why an enum constant written now would be read back as another, or null (see {@link #renameClash}) */
    String enumClash(Enum<?> constant) {
        Class<?> type = constant.getDeclaringClass();
        String clash = renameClash(type.getName(), List.of());
        if (clash != null) {
            return clash;
        }
        String readAs = renames.currentField(type.getName(), constant.name());
        return readAs.equals(constant.name()) ? null : "the constant's name is declared renamed (" + type.getName() + "#"
                + constant.name() + " = " + readAs + " in " + ClassRenames.RESOURCE + "), so it would be read back as "
                + readAs + "; give the constant another name, or remove the declaration once no stored object has the"
                + " old name";
    }

    /** @return true if the application declares renames: only then can {@link #enumClash} find one */
    boolean hasRenames() {
        return renames != ClassRenames.NONE;
    }

    /** @return the name a stored field or enum constant of a loaded class has now: itself, unless declared renamed */
    String currentMember(Class<?> type, String storedName) {
        return renames.currentField(type.getName(), storedName);
    }

    /** @return {@code owner.name} of a stored field as it is now, its class and itself possibly renamed */
    String currentQualifiedName(ClassDescriptor.Field stored) {
        return renames.current(stored.owner()) + "." + renames.currentField(stored.owner(), stored.name());
    }

    /** @return what {@link #info} has already computed for a class, or null */
    ClassInfo infoIfKnown(Class<?> type) {
        ClassInfo info = recent(type);
        if (info == null) {
            info = infos.get(type);
            if (info != null) {
                recent[recentNext++ & (recent.length - 1)] = info;
            }
        }
        return info;
    }

    /**
     * @return what the kernel knows about a rewritten class or a record
     * @throws NotPersistableException (with an empty path; callers add theirs) if the class is
     *         not rewritten at every level that has fields
     */
    ClassInfo info(Class<?> type) {
        ClassInfo info = infoIfKnown(type);
        if (info == null) {
            Layout layout = LAYOUTS.get(type);
            if (layout.refusal != null) {
                throw new NotPersistableException(type.getName(), "", layout.refusal);
            }
            // a record names its class: one the store's loader cannot find by that name could be
            // written, and then never read back (a plug-in's class, opened from the application's loader)
            String unloadable = unloadableByName(type);
            if (unloadable != null) {
                throw new NotPersistableException(type.getName(), "", unreadableReason(type, unloadable));
            }
            ClassDescriptor d = descriptor(layout.kind, type.getName(), layout.fields);
            // the factory is looked up here, not kept in the layout: a class registers it when initialized
            HollowFactory factory = layout.kind == ClassDescriptor.Kind.OBJECT && !Modifier.isAbstract(type.getModifiers())
                    ? PersistentClasses.factory(type) : null;
            info = new ClassInfo(type, d, factory, layout.recordConstructor, layout.recordAccessors, layout.leaf,
                    layout.lazyMarkers, layout.transientFields, layout.writeReplace, layout.readResolve,
                    renameClash(type.getName(), layout.fields));
            infos.put(type, info);
        }
        return info;
    }

    private ClassInfo recent(Class<?> type) {
        for (ClassInfo info : recent) {
            if (info != null && info.type == type) {
                return info;
            }
        }
        return null;
    }

    /**
     * What reflection says about a class: the same for every store, so worked out once per
     * class in the JVM ({@link #LAYOUTS}) rather than once per class per store opened, which
     * showed as an eighth of the cold fault-ins measured right after an open.
     */
    private record Layout(ClassDescriptor.Kind kind, List<ClassDescriptor.Field> fields,
                          MethodHandle recordConstructor, MethodHandle[] recordAccessors, boolean leaf,
                          Object[] lazyMarkers, BitSet transientFields, MethodHandle writeReplace,
                          MethodHandle readResolve, String refusal) {

        static Layout refused(String why) {
            return new Layout(null, null, null, null, false, null, null, null, null, why);
        }
    }

    private static final ClassValue<Layout> LAYOUTS = new ClassValue<>() {
        @Override
        protected Layout computeValue(Class<?> type) {
            return type.isRecord() ? recordLayout(type) : objectLayout(type);
        }
    };

    private static Layout objectLayout(Class<?> type) {
        if (type.isAnonymousClass()) {
            String name = type.getName();
            return Layout.refused("it is an anonymous class, which the compiler names by its place among its outer"
                    + " class's anonymous classes (" + name + "): one added before it in a later version would take"
                    + " that name, and its stored objects. " + (java.util.Collection.class.isAssignableFrom(type)
                            || java.util.Map.class.isAssignableFrom(type)
                            ? "A collection or map filled by double-brace initialization: fill a plain one instead"
                            : "Declare a named class (nested or top-level)") + "; to read objects"
                    + " stored under this name, declare the rename " + name + " = <the named class> in "
                    + ClassRenames.RESOURCE);
        }
        List<Class<?>> levels = new ArrayList<>();
        for (Class<?> c = type; c != null && Persistent.class.isAssignableFrom(c); c = c.getSuperclass()) {
            levels.add(0, c);
        }
        List<ClassDescriptor.Field> fields = new ArrayList<>();
        List<Object> markers = new ArrayList<>();
        boolean leaf = true;
        boolean lazy = false;
        // a class that serializes itself keeps state in its transient fields: they are stored too
        boolean transients = PersistentClasses.storesTransientFields(type);
        BitSet transientAt = null;
        boolean unstorableField = false;
        for (Class<?> level : levels) {
            String refusal = rewriteRefusal(level);
            if (refusal != null) {
                return Layout.refused(refusal);
            }
            List<Field> declared = persistentFields(level);
            if (transients) {
                declared.addAll(transientFields(level));
            }
            if (!declared.isEmpty() && !declaresWriter(level)) {
                return Layout.refused("class " + level.getName() + " has fields but was not rewritten by the Perpetua agent"
                        + " (was it loaded before the agent started, or excluded by the agent's options?)");
            }
            for (Field f : declared) {
                if (Modifier.isTransient(f.getModifiers())) {
                    if (transientAt == null) {
                        transientAt = new BitSet();
                    }
                    transientAt.set(fields.size());
                }
                fields.add(new ClassDescriptor.Field(level.getName(), f.getName(), typeCode(f.getType())));
                leaf &= cannotHoldContainer(f.getType());
                unstorableField |= extendsStatefulJdkClass(f.getType());
                if (!f.getType().isPrimitive()) {
                    Object marker = lazyMarker(level, f);
                    lazy |= marker != null;
                    markers.add(marker);
                }
            }
            Class<?> inherited = level == levels.get(0) ? PersistentClasses.inheritedContainer(type) : null;
            if (inherited != null) {
                // the contents of the JDK collection or map the class extends, after its own fields
                fields.add(new ClassDescriptor.Field(level.getName(), java.util.Map.class.isAssignableFrom(inherited)
                        ? PersistentClasses.ENTRIES : PersistentClasses.ELEMENTS, 'L'));
                leaf = false;
                markers.add(null);
            }
        }
        boolean serializable = java.io.Serializable.class.isAssignableFrom(type);
        return new Layout(ClassDescriptor.Kind.OBJECT, List.copyOf(fields), null, null, leaf,
                lazy ? markers.toArray() : null, transientAt,
                serializable && unstorableField ? serializationMethod(type, "writeReplace") : null,
                serializable ? serializationMethod(type, "readResolve") : null, null);
    }

    /**
     * @return true if a field of this declared type (or arrays of it) holds objects of an
     *         application class that extends a JDK class with state, which the agent leaves
     *         as it is and Perpetua cannot store (Guava's map entries extend
     *         {@code AbstractMap.SimpleImmutableEntry}); not an exception class, stored by its
     *         Java serialization
     */
    private static boolean extendsStatefulJdkClass(Class<?> declared) {
        Class<?> c = declared;
        while (c.isArray()) {
            c = c.getComponentType();
        }
        return !c.isPrimitive() && !c.isInterface() && c.getClassLoader() != null && !Persistent.class.isAssignableFrom(c)
                && RecordEncoder.statefulJdkSuperclass(c) != null && !JdkSerialized.isApplicationException(c);
    }

    /**
     * @return the no-argument {@code writeReplace} or {@code readResolve} Java serialization
     *         would call on an instance of {@code type}, as a handle taking the instance and
     *         returning Object: declared by the class or inherited, as serialization finds it (a
     *         private one only in the class itself, a package-private one only from its
     *         package); null if there is none or it cannot be made accessible
     */
    private static MethodHandle serializationMethod(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            java.lang.reflect.Method m;
            try {
                m = c.getDeclaredMethod(name);
            } catch (NoSuchMethodException e) {
                continue;
            }
            int mod = m.getModifiers();
            boolean inherited = c != type;
            // a synthetic one is the agent's (it fills the object and returns it: no replacement)
            if (Modifier.isStatic(mod) || Modifier.isAbstract(mod) || m.isSynthetic() || m.getReturnType() != Object.class
                    || inherited && Modifier.isPrivate(mod)
                    || inherited && !Modifier.isPublic(mod) && !Modifier.isProtected(mod)
                    && (c.getClassLoader() != type.getClassLoader() || !c.getPackageName().equals(type.getPackageName()))) {
                return null;
            }
            try {
                m.setAccessible(true);
                return MethodHandles.lookup().unreflect(m).asType(MethodType.methodType(Object.class, Object.class));
            } catch (RuntimeException | IllegalAccessException e) {
                return null; // a class of a named module that does not open its package: refused as before
            }
        }
        return null;
    }

    /**
     * @return true if objects of this class are stored by their serialization replacement (see
     *         {@link ClassInfo#writeReplace}), whether or not this store has met the class yet
     */
    static boolean storedByReplacement(Class<?> type) {
        return LAYOUTS.get(type).writeReplace != null;
    }

    /**
     * @return why the agent could not rewrite this class whole (its {@value
     *         PersistentClasses#REWRITE_REFUSAL} field), or null if it did: such a class has the
     *         generated members its rewritten subclasses and callers link against, but its own
     *         methods have no residency checks, so an instance of it could be read hollow
     */
    private static String rewriteRefusal(Class<?> level) {
        Field f;
        try {
            f = level.getDeclaredField(PersistentClasses.REWRITE_REFUSAL);
        } catch (NoSuchFieldException e) {
            return null;
        }
        String why;
        try {
            f.setAccessible(true);
            why = String.valueOf(f.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            why = "the reason is not readable: " + e;
        }
        return "class " + level.getName() + " could not be rewritten by the Perpetua agent (" + why
                + "); it has only the members other rewritten classes link against, and its instances cannot persist";
    }

    /**
     * @return the lazy marker the agent gave an array field ({@code static final T[]
     *         $perpetua$lazy$<field>}, see {@link LazyFields}), or null if it has none (not an
     *         array, or a class whose getters do not know markers): such a field is decoded with
     *         its object
     */
    private static Object lazyMarker(Class<?> level, Field f) {
        if (!f.getType().isArray()) {
            return null;
        }
        try {
            Field m = level.getDeclaredField(LAZY_PREFIX + f.getName());
            if (!Modifier.isStatic(m.getModifiers()) || m.getType() != f.getType()) {
                return null;
            }
            m.setAccessible(true);
            Object marker = m.get(null);
            return marker != null && Array.getLength(marker) == 0 ? marker : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Layout recordLayout(Class<?> type) {
        RecordComponent[] components = type.getRecordComponents();
        List<ClassDescriptor.Field> fields = new ArrayList<>();
        Class<?>[] types = new Class<?>[components.length];
        MethodHandle[] accessors = new MethodHandle[components.length];
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
            for (int i = 0; i < components.length; i++) {
                RecordComponent rc = components[i];
                types[i] = rc.getType();
                fields.add(new ClassDescriptor.Field(type.getName(), rc.getName(), typeCode(rc.getType())));
                accessors[i] = lookup.unreflect(rc.getAccessor()).asType(MethodType.methodType(Object.class, Object.class));
            }
            MethodHandle ctor = lookup.findConstructor(type, MethodType.methodType(void.class, types))
                    .asType(MethodType.methodType(Object.class, types).generic())
                    .asSpreader(Object[].class, components.length);
            return new Layout(ClassDescriptor.Kind.RECORD, List.copyOf(fields), ctor, accessors, false, null, null, null,
                    null, null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Layout.refused("the record's canonical constructor or accessors are not accessible to Perpetua (" + e + ")");
        }
    }

    /** @return true if a field of this declared type can hold neither an array nor a collection or map */
    private static boolean cannotHoldContainer(Class<?> t) {
        return !(t.isArray() || t.isInterface() || t == Object.class
                || java.util.Collection.class.isAssignableFrom(t) || Map.class.isAssignableFrom(t));
    }

    /** Persistent fields of one class level, in layout order (by name). */
    static List<Field> persistentFields(Class<?> level) {
        return instanceFields(level, false);
    }

    /**
     * Transient instance fields of one class level, by name: after its persistent fields in the
     * layout of a class that {@link PersistentClasses#storesTransientFields stores them}.
     */
    static List<Field> transientFields(Class<?> level) {
        return instanceFields(level, true);
    }

    /** @return one level's instance fields, transient or not, Perpetua's own left out, by name */
    private static List<Field> instanceFields(Class<?> level, boolean transients) {
        List<Field> out = new ArrayList<>();
        for (Field f : level.getDeclaredFields()) {
            int m = f.getModifiers();
            if (!Modifier.isStatic(m) && Modifier.isTransient(m) == transients && !f.getName().startsWith(SYNTHETIC_PREFIX)) {
                out.add(f);
            }
        }
        out.sort(Comparator.comparing(Field::getName));
        return out;
    }

    private static boolean declaresWriter(Class<?> level) {
        return Arrays.stream(level.getDeclaredMethods()).anyMatch(m -> m.getName().equals("$perpetua$write")
                && m.getParameterCount() == 1 && m.getParameterTypes()[0] == RecordWriter.class);
    }

    static char typeCode(Class<?> t) {
        if (!t.isPrimitive()) {
            return 'L';
        }
        if (t == int.class) {
            return 'I';
        } else if (t == long.class) {
            return 'J';
        } else if (t == boolean.class) {
            return 'Z';
        } else if (t == byte.class) {
            return 'B';
        } else if (t == char.class) {
            return 'C';
        } else if (t == short.class) {
            return 'S';
        } else if (t == float.class) {
            return 'F';
        } else if (t == double.class) {
            return 'D';
        }
        throw new IllegalArgumentException("no field has type " + t);
    }
}
