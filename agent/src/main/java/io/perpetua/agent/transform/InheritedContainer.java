package io.perpetua.agent.transform;

import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A JDK collection or map that an application class may extend and still be persistent-capable
 * ({@code class Tags extends ArrayList<String>}): its contents are stored as one more value of
 * the top-most class's record, after its own fields, and every method it inherits from the JDK
 * is overridden with a residency check. The kernel lays the value out by the same list
 * ({@code PersistentClasses.inheritedContainer}); {@code ProtocolTest} checks that they agree.
 *
 * <ul>
 *   <li>The value is an {@code Object[]}: the elements in iteration order, or a map's keys and
 *       values in turn. It is taken with {@code INVOKESPECIAL} on the JDK class, so that no
 *       method of the object's own runs (no check, no dirty mark) while a commit encodes it.</li>
 *   <li>A fill clears the JDK part and adds each element (or puts each pair) through
 *       {@code INVOKESPECIAL}, after the class's own fields are set: the JDK's adding may call
 *       back into the class (a {@code LinkedHashMap}'s {@code removeEldestEntry}), which then
 *       sees them. The kernel lets such a call touch the object while it is being filled; a
 *       {@code removeEldestEntry} of the class's own answers false then, without running
 *       ({@code PersistentMembersAdder}).</li>
 *   <li>An inherited method that cannot change the contents gets the read check; so does one
 *       that returns an iterator or a main view, which comes back wrapped so that a change made
 *       through it marks the object dirty ({@code InheritedViews}); any other (a mutator, another
 *       view) gets the write check, which marks the object dirty. In the class's own code, a
 *       {@code super.m(...)} call of a method that is not read-only gets the write check before
 *       it.</li>
 * </ul>
 * Immutable.
 */
final class InheritedContainer {

    /**
     * Methods that cannot change a collection's or map's contents: the read check only
     * ({@code clone()} copies; {@code removeEldestEntry} is a question the map asks itself). By
     * name, for every class: no supported class has a mutator of one of these names. Then
     * {@code Stack}'s, {@code Vector}'s and {@code ConcurrentHashMap}'s own (JDK 17 to 25): an
     * {@code Enumeration} has no {@code remove} ({@code ConcurrentHashMap}'s {@code keys()} and
     * {@code elements()} is an iterator too, but only to a cast), and the entries its bulk
     * operations pass are the map's nodes, whose {@code setValue} throws.
     */
    static final Set<String> READ_ONLY = Set.of("size", "isEmpty", "contains", "containsAll", "get", "indexOf",
            "lastIndexOf", "toArray", "equals", "hashCode", "toString", "forEach", "stream", "parallelStream",
            "spliterator", "getOrDefault", "containsKey", "containsValue", "comparator", "first", "last", "firstKey",
            "lastKey", "floor", "ceiling", "higher", "lower", "floorKey", "ceilingKey", "higherKey", "lowerKey",
            "floorEntry", "ceilingEntry", "higherEntry", "lowerEntry", "firstEntry", "lastEntry", "peek", "peekFirst",
            "peekLast", "element", "getFirst", "getLast", "trimToSize", "ensureCapacity", "removeEldestEntry", "clone",
            // Stack, Vector (Stack.peek calls elementAt through a virtual call: to the override)
            "empty", "search", "elementAt", "firstElement", "lastElement", "elements", "capacity", "copyInto",
            // ConcurrentHashMap
            "mappingCount", "keys", "forEachKey", "forEachValue", "forEachEntry", "reduce", "reduceToDouble",
            "reduceToLong", "reduceToInt", "reduceKeys", "reduceKeysToDouble", "reduceKeysToLong", "reduceKeysToInt",
            "reduceValues", "reduceValuesToDouble", "reduceValuesToLong", "reduceValuesToInt", "reduceEntries",
            "reduceEntriesToDouble", "reduceEntriesToLong", "reduceEntriesToInt", "searchKeys", "searchValues",
            "searchEntries");

    /**
     * The iterators and views an override hands out wrapped (after the read check), by name and
     * descriptor: the {@code InheritedViews} method that wraps it. Reading through them marks
     * nothing; a change made through them marks the object dirty first. A {@code TreeMap}'s key
     * set is its navigable key set, wrapped as one; the JDK makes its descending key set from
     * {@code descendingMap()}, which is wrapped, and a sorted set's or map's range view of the
     * old kind ({@code headSet(e)}) from the navigable one, the wrapper then given back as it is.
     */
    private static final Map<String, String> VIEWS = Map.ofEntries(
            Map.entry("iterator()Ljava/util/Iterator;", "iterator"),
            Map.entry("descendingIterator()Ljava/util/Iterator;", "iterator"),
            Map.entry("listIterator()Ljava/util/ListIterator;", "listIterator"),
            Map.entry("listIterator(I)Ljava/util/ListIterator;", "listIterator"),
            Map.entry("subList(II)Ljava/util/List;", "list"),
            Map.entry("values()Ljava/util/Collection;", "collection"),
            Map.entry("keySet()Ljava/util/Set;", "set"),
            Map.entry("entrySet()Ljava/util/Set;", "entrySet"),
            Map.entry("navigableKeySet()Ljava/util/NavigableSet;", "navigableSet"),
            Map.entry("descendingKeySet()Ljava/util/NavigableSet;", "navigableSet"),
            Map.entry("descendingSet()Ljava/util/NavigableSet;", "navigableSet"),
            Map.entry("headSet(Ljava/lang/Object;Z)Ljava/util/NavigableSet;", "navigableSet"),
            Map.entry("tailSet(Ljava/lang/Object;Z)Ljava/util/NavigableSet;", "navigableSet"),
            Map.entry("subSet(Ljava/lang/Object;ZLjava/lang/Object;Z)Ljava/util/NavigableSet;", "navigableSet"),
            Map.entry("headSet(Ljava/lang/Object;)Ljava/util/SortedSet;", "sortedSet"),
            Map.entry("tailSet(Ljava/lang/Object;)Ljava/util/SortedSet;", "sortedSet"),
            Map.entry("subSet(Ljava/lang/Object;Ljava/lang/Object;)Ljava/util/SortedSet;", "sortedSet"),
            Map.entry("descendingMap()Ljava/util/NavigableMap;", "navigableMap"),
            Map.entry("headMap(Ljava/lang/Object;Z)Ljava/util/NavigableMap;", "navigableMap"),
            Map.entry("tailMap(Ljava/lang/Object;Z)Ljava/util/NavigableMap;", "navigableMap"),
            Map.entry("subMap(Ljava/lang/Object;ZLjava/lang/Object;Z)Ljava/util/NavigableMap;", "navigableMap"),
            Map.entry("headMap(Ljava/lang/Object;)Ljava/util/SortedMap;", "sortedMap"),
            Map.entry("tailMap(Ljava/lang/Object;)Ljava/util/SortedMap;", "sortedMap"),
            Map.entry("subMap(Ljava/lang/Object;Ljava/lang/Object;)Ljava/util/SortedMap;", "sortedMap"));

    private static final Map<String, InheritedContainer> SUPPORTED = new LinkedHashMap<>();

    static {
        collection("java/util/ArrayList", "add", true);
        collection("java/util/LinkedList", "add", true);
        collection("java/util/ArrayDeque", "addLast", true); // its add calls addLast, which the class overrides
        collection("java/util/HashSet", "add", true);
        collection("java/util/LinkedHashSet", "add", true);
        collection("java/util/TreeSet", "add", false); // its toArray iterates through methods of the object
        collection("java/util/PriorityQueue", "offer", true); // its add calls offer
        collection("java/util/concurrent/CopyOnWriteArrayList", "add", true);
        for (String vector : new String[] {"java/util/Vector", "java/util/Stack"}) {
            // Vector.clear() calls removeAllElements(), which the class overrides
            SUPPORTED.put(vector, new InheritedContainer(vector, false, "add", true, "removeAllElements"));
        }
        for (String map : new String[] {"java/util/HashMap", "java/util/LinkedHashMap", "java/util/TreeMap",
                "java/util/concurrent/ConcurrentHashMap"}) {
            SUPPORTED.put(map, new InheritedContainer(map, true, "put", false, "clear"));
        }
    }

    /** The JDK class, internal name. */
    final String jdkClass;
    /** A map (keys and values in turn), else a collection. */
    final boolean map;
    /** The method that adds an element (or puts a pair) without calling other methods of the object. */
    private final String add;
    /** Whether the JDK class's own {@code toArray} gives its elements without calling methods of the object. */
    private final boolean ownToArray;
    /**
     * The method that empties it without calling other methods of the object: an abort's
     * defaults empty a filled object through the fill, and a method of the object's own would
     * reach its check then.
     */
    private final String clear;

    private InheritedContainer(String jdkClass, boolean map, String add, boolean ownToArray, String clear) {
        this.jdkClass = jdkClass;
        this.map = map;
        this.add = add;
        this.ownToArray = ownToArray;
        this.clear = clear;
    }

    private static void collection(String name, String add, boolean ownToArray) {
        SUPPORTED.put(name, new InheritedContainer(name, false, add, ownToArray, "clear"));
    }

    /** @return the container a class extending {@code superName} inherits, or null if it is not one of them */
    static InheritedContainer of(String superName) {
        return SUPPORTED.get(superName);
    }

    /** @return the internal names of the JDK classes an application class may extend, in a fixed order */
    static Set<String> supported() {
        return SUPPORTED.keySet();
    }

    /**
     * @return why an application class that calls this super-class constructor cannot be made
     *         persistent-capable, or null: what the constructor fixes for the object's life (a
     *         comparator, an access order) would be lost, since the creation proxy calls the
     *         no-argument constructor. A call passing the default as a constant ({@code false} for
     *         the access order, {@code null} for the comparator) fixes nothing and is accepted.
     * @param lastArgument the opcode of the instruction right before the call, which pushed its
     *                     last argument if it is a constant ({@code ICONST_0}, {@code ACONST_NULL},
     *                     the latter also when only a cast follows it), else -1
     */
    String refusedConstructor(String descriptor, int lastArgument) {
        if (jdkClass.equals("java/util/LinkedHashMap") && descriptor.equals("(IFZ)V")
                && lastArgument != Opcodes.ICONST_0) {
            return "it passes an access order to LinkedHashMap's constructor, which an object read back from the"
                    + " store would not have (it is fixed when the object is made, and the object is made empty by"
                    + " the no-argument constructor), nor would a LinkedHashMap kept in a field (it is stored in its"
                    + " order and read back in insertion order); keep the access order in code of your own (a"
                    + " LinkedHashMap made with it in a transient field, filled from a stored map)";
        }
        boolean sorted = jdkClass.equals("java/util/TreeMap") || jdkClass.equals("java/util/TreeSet")
                || jdkClass.equals("java/util/PriorityQueue");
        boolean noComparator = descriptor.endsWith("Ljava/util/Comparator;)V") && lastArgument == Opcodes.ACONST_NULL;
        if (sorted && !noComparator && (descriptor.contains("Ljava/util/Comparator;")
                || descriptor.equals("(Ljava/util/SortedMap;)V")
                || descriptor.equals("(Ljava/util/SortedSet;)V") || descriptor.equals("(Ljava/util/PriorityQueue;)V"))) {
            return "it passes a comparator to " + jdkClass.substring(jdkClass.lastIndexOf('/') + 1) + "'s constructor,"
                    + " which an object read back from the store would not have (it is fixed when the object is made,"
                    + " and the object is made empty by the no-argument constructor); keep a sorted collection in a field"
                    + " instead";
        }
        return null;
    }

    /**
     * Pushes the contents as an {@code Object[]}; self in local 0.
     *
     * @param jdk the JDK class as the running JDK declares it
     */
    void emitContents(MethodVisitor mv, ClassInfo jdk) {
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        if (map) {
            if (jdk.method("sequencedEntrySet", "()Ljava/util/SequencedSet;") != null) {
                // from Java 21, LinkedHashMap.entrySet() returns it through a virtual call: to the override
                mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, "sequencedEntrySet", "()Ljava/util/SequencedSet;",
                        false);
            } else {
                mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, "entrySet", "()Ljava/util/Set;", false);
            }
            mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/util/Set", "iterator", "()Ljava/util/Iterator;", true);
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, "size", "()I", false);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.INHERITED_CONTENTS, "entries",
                    "(Ljava/util/Iterator;I)[Ljava/lang/Object;", false);
        } else if (ownToArray) {
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, "toArray", "()[Ljava/lang/Object;", false);
        } else {
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, "iterator", "()Ljava/util/Iterator;", false);
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, "size", "()I", false);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.INHERITED_CONTENTS, "elements",
                    "(Ljava/util/Iterator;I)[Ljava/lang/Object;", false);
        }
    }

    /**
     * Adds {@code private synthetic void $perpetua$fill(Object contents)}: clears the JDK part,
     * then adds what an {@code Object[]} holds (nothing for null, as an abort's defaults give).
     * <pre>
     *   super.clear();
     *   if (!(contents instanceof Object[])) return;
     *   for (int i = 0; i &lt; ((Object[]) contents).length; i += step) super.add(a[i]) / super.put(a[i], a[i + 1]);
     * </pre>
     */
    void addFill(MethodVisitor mv) {
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, clear, "()V", false);
        Label start = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitTypeInsn(Opcodes.INSTANCEOF, "[Ljava/lang/Object;");
        mv.visitJumpInsn(Opcodes.IFNE, start);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitLabel(start);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitVarInsn(Opcodes.ISTORE, 2);
        Label loop = new Label();
        Label body = new Label();
        mv.visitLabel(loop);
        mv.visitFrame(Opcodes.F_APPEND, 1, new Object[] {Opcodes.INTEGER}, 0, null);
        mv.visitVarInsn(Opcodes.ILOAD, 2);
        emitArray(mv);
        mv.visitInsn(Opcodes.ARRAYLENGTH);
        mv.visitJumpInsn(Opcodes.IF_ICMPLT, body);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitLabel(body);
        mv.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        emitElement(mv, 0);
        if (map) {
            emitElement(mv, 1);
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, add,
                    "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", false);
            mv.visitInsn(Opcodes.POP);
        } else if (add.equals("addLast")) { // ArrayDeque's returns nothing
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, add, "(Ljava/lang/Object;)V", false);
        } else {
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, add, "(Ljava/lang/Object;)Z", false);
            mv.visitInsn(Opcodes.POP);
        }
        mv.visitIincInsn(2, map ? 2 : 1);
        mv.visitJumpInsn(Opcodes.GOTO, loop);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static void emitArray(MethodVisitor mv) {
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitTypeInsn(Opcodes.CHECKCAST, "[Ljava/lang/Object;");
    }

    /** Pushes {@code ((Object[]) contents)[i + offset]}. */
    private static void emitElement(MethodVisitor mv, int offset) {
        emitArray(mv);
        mv.visitVarInsn(Opcodes.ILOAD, 2);
        if (offset != 0) {
            mv.visitInsn(Opcodes.ICONST_1);
            mv.visitInsn(Opcodes.IADD);
        }
        mv.visitInsn(Opcodes.AALOAD);
    }

    /**
     * Emits an override of an inherited method: the class's private static read check (a
     * method in {@link #READ_ONLY}, or one whose iterator or view is wrapped) or write check
     * (any other), then the JDK's method through {@code INVOKESPECIAL}; an iterator or view it
     * returns is wrapped ({@link #VIEWS}); for {@code clone()}, the result then goes through
     * {@code Residency.afterClone}, as every {@code clone()} call in a rewritten class does.
     */
    void emitOverride(MethodVisitor mv, String owner, String name, String descriptor, ClassInfo jdk) {
        String view = VIEWS.get(name + descriptor);
        String target = name;
        String targetDescriptor = descriptor;
        ClassInfo.Member sequenced = view == null ? null : jdk.method(
                "sequenced" + Character.toUpperCase(name.charAt(0)) + name.substring(1),
                name.equals("values") ? "()Ljava/util/SequencedCollection;" : "()Ljava/util/SequencedSet;");
        if (sequenced != null) {
            // from Java 21, LinkedHashMap's keySet(), values() and entrySet() return its sequenced
            // view through a virtual call, which would reach the override of that (a write check)
            target = sequenced.name();
            targetDescriptor = sequenced.descriptor();
        } else if (name.equals("keySet") && jdkClass.equals("java/util/TreeMap")) {
            // TreeMap's keySet() returns navigableKeySet() through a virtual call, likewise
            target = "navigableKeySet";
            targetDescriptor = "()Ljava/util/NavigableSet;";
            view = "navigableSet";
        }
        String check = view != null || READ_ONLY.contains(name) ? Protocol.RESIDENT : Protocol.WRITING;
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, owner, check, "(L" + owner + ";)V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        int slot = 1;
        for (Type arg : Type.getArgumentTypes(descriptor)) {
            mv.visitVarInsn(arg.getOpcode(Opcodes.ILOAD), slot);
            slot += arg.getSize();
        }
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, jdkClass, target, targetDescriptor, false);
        if (view != null) {
            // the wrapper takes and gives the override's type (a sequenced view is one), a navigable set as one
            Type returned = Type.getReturnType(view.equals("navigableSet") ? "()Ljava/util/NavigableSet;" : descriptor);
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitInsn(Opcodes.SWAP);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.INHERITED_VIEWS, view,
                    "(L" + Protocol.PERSISTENT + ";" + returned.getDescriptor() + ")" + returned.getDescriptor(), false);
        }
        if (name.equals("clone") && descriptor.equals("()Ljava/lang/Object;")) {
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, Protocol.RESIDENCY, Protocol.AFTER_CLONE, Protocol.AFTER_CLONE_DESC,
                    false);
        }
        mv.visitInsn(Type.getReturnType(descriptor).getOpcode(Opcodes.IRETURN));
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /**
     * @return the methods an application class extending this JDK class inherits and may be
     *         called on it: public or protected instance methods, not final, of the JDK class and
     *         its super-classes, then the default methods of their interfaces that no class
     *         implements; the most specific declaration of each name and descriptor first
     */
    Map<String, ClassInfo.Member> inheritedMethods(TypeResolver resolver) {
        Map<String, ClassInfo.Member> found = new LinkedHashMap<>();
        Set<String> declared = new HashSet<>(); // by any class of the chain: the most specific one decides
        ArrayDeque<String> interfaces = new ArrayDeque<>();
        for (String c = jdkClass; c != null; ) {
            ClassInfo info = resolver.require(c, "the methods an application class inherits from " + jdkClass);
            for (ClassInfo.Member m : info.methods) {
                // a final one (PriorityQueue.spliterator) hides the same method above it from overriding
                if (declared.add(m.name() + m.descriptor()) && overridable(m.access()) && !m.name().startsWith("<")
                        && !m.name().equals("finalize")) {
                    found.put(m.name() + m.descriptor(), m);
                }
            }
            interfaces.addAll(info.interfaces);
            c = info.superName;
        }
        Set<String> seen = new HashSet<>();
        while (!interfaces.isEmpty()) {
            String i = interfaces.poll();
            if (!seen.add(i)) {
                continue;
            }
            ClassInfo info = resolver.require(i, "the methods an application class inherits from " + jdkClass);
            for (ClassInfo.Member m : info.methods) {
                if (overridable(m.access()) && (m.access() & Opcodes.ACC_ABSTRACT) == 0
                        && !declared.contains(m.name() + m.descriptor())) {
                    found.putIfAbsent(m.name() + m.descriptor(), m);
                }
            }
            interfaces.addAll(info.interfaces);
        }
        return found;
    }

    private static boolean overridable(int access) {
        return (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0
                && (access & (Opcodes.ACC_STATIC | Opcodes.ACC_FINAL | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE)) == 0;
    }
}
