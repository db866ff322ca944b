package io.perpetua.runtime;

import java.io.Externalizable;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The registry of rewritten concrete classes and their creation proxies. Each concrete rewritten
 * class registers itself in its static initializer, so a class is here once it is initialized.
 * Thread-safe.
 *
 * <p>A class the agent rewrote registers a lookup on itself, not a proxy: the proxy (a lambda
 * over the class's {@value #CREATION_PROXY} method) is made the first time the kernel asks for
 * it. Making one costs the JVM a generated class, about a quarter of a millisecond; registering
 * costs nothing. A program loads many classes whose instances it never stores, and each one paid
 * that price when it was initialized, before proxies were made on demand. The lookup is kept
 * here until then, and is never handed out.
 */
public final class PersistentClasses {
    /**
     * The private static method, {@code ()Lio/perpetua/runtime/Persistent;}, that the agent gives
     * each concrete class it rewrites: a new instance made by the class's creation constructor,
     * which runs no user code.
     */
    public static final String CREATION_PROXY = "$perpetua$new";

    /**
     * The private static final {@code String} field, holding the reason, that the agent gives a
     * class it could not rewrite whole (a method too large once checked, for example). Such a
     * class keeps its own code as it was, unchecked, and gains only the members that rewritten
     * subclasses and callers link against; the kernel refuses to store its instances, and those
     * of its subclasses, with that reason.
     */
    public static final String REWRITE_REFUSAL = "$perpetua$refused";

    private static final MethodType PROXY_TYPE = MethodType.methodType(Persistent.class);

    /** By class: whether it serializes itself, and so has its transient fields stored. */
    private static final ClassValue<Boolean> SERIALIZES_ITSELF = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return serializationMethod(type) != null;
        }
    };

    /**
     * By class: for an inner, local or anonymous class, whose objects may be views of their outer
     * instance (such as the key set a map makes when first asked for it), the field that holds
     * that instance, or {@link #UNKNOWN_OUTER} if it cannot be read; null for any other class,
     * and for one that keeps no outer instance (a compiler leaves it out of a class that never
     * uses it), whose objects are state.
     */
    private static final ClassValue<Object> VIEWS = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> type) {
            Class<?> outer = type.getEnclosingClass();
            if (outer == null || Modifier.isStatic(type.getModifiers())) {
                return null;
            }
            for (java.lang.reflect.Field f : type.getDeclaredFields()) {
                if (f.isSynthetic() && f.getName().startsWith("this$") && f.getType() == outer) {
                    try {
                        f.setAccessible(true);
                        return f;
                    } catch (RuntimeException e) {
                        return UNKNOWN_OUTER;
                    }
                }
            }
            // no outer instance kept (javac 18 and later leave it out of a class that never uses
            // it): its objects cannot be views of anything, and are state
            return null;
        }
    };

    private static final Object UNKNOWN_OUTER = new Object();

    /**
     * By class: its {@link HollowFactory}, or the {@link MethodHandles.Lookup} to make one with, or
     * nothing. A {@code ClassValue}, not a map keyed by class: what it holds for a class is kept
     * by the class itself, so a class loader dropped by the program (a plug-in redeployed) is
     * collected with its classes, as without the agent. A static map held every loader whose
     * classes the agent rewrote for good.
     */
    private static final ClassValue<AtomicReference<Object>> FACTORIES = new ClassValue<>() {
        @Override
        protected AtomicReference<Object> computeValue(Class<?> type) {
            return new AtomicReference<>();
        }
    };

    private PersistentClasses() {
    }

    /**
     * Whether the transient fields of a class's objects are stored, as its persistent fields are.
     * They are when the class writes its own serialized form: it, or a super-class, declares
     * {@code writeObject(ObjectOutputStream)}, {@code readObject(ObjectInputStream)} or
     * {@code writeReplace()}, or it is {@code Externalizable}. There, {@code transient} means
     * "not in the default serialized form, because I write it myself": Guava's immutable
     * collections, fastutil's, Eclipse Collections' and Commons Collections' keep their contents
     * in transient fields. Elsewhere a transient field is not stored and reads as its default
     * after a fetch. Generated codecs and transient setters ask this of the object's class; the
     * kernel lays out the class's records by it. Thread-safe; worked out once per class.
     *
     * @param type a class, not null
     * @return true if its objects' transient fields are stored
     */
    public static boolean storesTransientFields(Class<?> type) {
        return SERIALIZES_ITSELF.get(type);
    }

    /**
     * The JDK collections and maps an application class may extend and stay persistent-capable
     * (the agent's {@code InheritedContainer} lists the same, by internal name). Such a class's
     * top-most rewritten level stores the contents as one more value, after its own fields:
     * an {@code Object[]} ({@link InheritedContents}), laid out as the field {@link #ELEMENTS}
     * or {@link #ENTRIES}.
     */
    private static final java.util.Set<Class<?>> INHERITED_CONTAINERS = java.util.Set.of(java.util.ArrayList.class,
            java.util.LinkedList.class, java.util.ArrayDeque.class, java.util.HashSet.class,
            java.util.LinkedHashSet.class, java.util.TreeSet.class, java.util.PriorityQueue.class,
            java.util.Vector.class, java.util.Stack.class, java.util.concurrent.CopyOnWriteArrayList.class,
            java.util.HashMap.class, java.util.LinkedHashMap.class, java.util.TreeMap.class,
            java.util.concurrent.ConcurrentHashMap.class);

    /**
     * The names under which a record lays out the contents of an inherited JDK collection (its
     * elements) or map (its keys and values in turn): different, so that a class that changes
     * from extending one to extending the other is an incompatible change, not a misreading.
     */
    public static final String ELEMENTS = "$perpetua$elements";
    public static final String ENTRIES = "$perpetua$entries";

    /**
     * @param type a class, not null
     * @return the JDK collection or map {@code type}'s top-most rewritten class directly extends,
     *         whose contents its records store; null if it extends none of them
     */
    public static Class<?> inheritedContainer(Class<?> type) {
        Class<?> top = null;
        for (Class<?> c = type; c != null && Persistent.class.isAssignableFrom(c); c = c.getSuperclass()) {
            top = c;
        }
        Class<?> s = top == null ? null : top.getSuperclass();
        return s != null && INHERITED_CONTAINERS.contains(s) ? s : null;
    }

    /**
     * @return the internal names of the classes {@link #inheritedContainer} accepts, sorted (for
     *         the agent's test that its own list agrees)
     */
    public static java.util.List<String> inheritedContainerNames() {
        return INHERITED_CONTAINERS.stream().map(c -> c.getName().replace('.', '/')).sorted().toList();
    }

    /**
     * Whether a value of a transient field whose class {@link #storesTransientFields stores its
     * transient fields} is stored as null: null itself, or a view of the object holding the
     * field, an object of a rewritten inner class whose outer instance is that object. Such a
     * view is a cache (Guava's multimaps keep their {@code asMap()} view there, and the view's
     * own state is in transient fields of a class that does not serialize itself, which are not
     * stored), made again when next asked for, as after deserialization. So putting one in place
     * of null, or of another, changes nothing stored. An object of an inner class whose outer
     * instance is another object is state, stored as it is (Joda-Time's chronologies keep the
     * duration fields of their base's field objects there, which nothing would make again), and
     * so is one that keeps no outer instance; one whose outer instance cannot be read is taken
     * for a view.
     *
     * @param holder the object whose transient field it is, not null
     * @param value the field's value, or null
     * @return true if the field is stored as null while it holds {@code value}
     */
    public static boolean storedAsNullInTransientField(Object holder, Object value) {
        if (value == null) {
            return true;
        }
        if (!(value instanceof Persistent)) {
            return false;
        }
        Object outer = VIEWS.get(value.getClass());
        if (outer instanceof java.lang.reflect.Field f) {
            try {
                return f.get(value) == holder;
            } catch (IllegalAccessException e) {
                return true;
            }
        }
        return outer == UNKNOWN_OUTER;
    }

    /**
     * @param type a class, not null
     * @return the serialization method that makes {@link #storesTransientFields} true for it, as
     *         {@code C.writeObject(ObjectOutputStream)}, or null if there is none
     */
    public static String serializationMethod(Class<?> type) {
        if (Externalizable.class.isAssignableFrom(type)) {
            return type.getName() + " implements java.io.Externalizable";
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            String hook = declared(c, "writeObject", ObjectOutputStream.class);
            if (hook == null) {
                hook = declared(c, "writeReplace", null);
            }
            if (hook == null) {
                hook = declared(c, "readObject", ObjectInputStream.class);
            }
            if (hook != null) {
                return hook;
            }
        }
        return null;
    }

    /**
     * @param parameter the serialization method's one parameter type, or null for
     *        {@code Object writeReplace()}
     * @return {@code C.name(Parameter)} if class {@code c} declares that instance method, else null
     *         (also for a class whose methods cannot be listed: its transient fields are not stored)
     */
    private static String declared(Class<?> c, String name, Class<?> parameter) {
        try {
            Method m = parameter == null ? c.getDeclaredMethod(name) : c.getDeclaredMethod(name, parameter);
            // a synthetic writeObject or writeReplace is the agent's (see Residency.beforeSerialization),
            // not the class's own form
            if (Modifier.isStatic(m.getModifiers()) || parameter != ObjectInputStream.class && m.isSynthetic()
                    || parameter == null && m.getReturnType() != Object.class) {
                return null;
            }
            return c.getName() + "." + name + "(" + (parameter == null ? "" : parameter.getSimpleName()) + ")";
        } catch (NoSuchMethodException | LinkageError | SecurityException e) {
            return null;
        }
    }

    /**
     * Registers a concrete rewritten class with its creation proxy.
     *
     * @param type the class, not null
     * @param factory its creation proxy, not null
     */
    public static void register(Class<?> type, HollowFactory factory) {
        if (type == null || factory == null) {
            throw new NullPointerException(type == null ? "type" : "factory");
        }
        FACTORIES.get(type).set(factory);
    }

    /**
     * Registers a concrete class the agent rewrote. Called from generated static initializers,
     * with {@code MethodHandles.lookup()}: the proxy is made from it on the first
     * {@link #factory} of the class.
     *
     * @param type the class, not null
     * @param lookup a lookup with full privilege on {@code type} itself, not null
     * @throws IllegalArgumentException if the lookup is not {@code type}'s own
     */
    public static void register(Class<?> type, MethodHandles.Lookup lookup) {
        if (type == null || lookup == null) {
            throw new NullPointerException(type == null ? "type" : "lookup");
        }
        if (lookup.lookupClass() != type || !lookup.hasFullPrivilegeAccess()) {
            throw new IllegalArgumentException("a class registers with a full-privilege lookup on itself: "
                    + type.getName() + " came with " + lookup);
        }
        FACTORIES.get(type).set(lookup);
    }

    /**
     * @param type a class, not null
     * @return its creation proxy, made now if this is the first time it is asked for; or null if
     *         the class was not rewritten (or is abstract, or is not initialized yet)
     * @throws IllegalStateException if the proxy cannot be made (the class has no
     *         {@value #CREATION_PROXY} method of the right type)
     */
    public static HollowFactory factory(Class<?> type) {
        AtomicReference<Object> registration = FACTORIES.get(type);
        Object registered = registration.get();
        if (registered instanceof MethodHandles.Lookup lookup) {
            HollowFactory made = make(type, lookup);
            registration.compareAndSet(lookup, made); // two threads may both make one: either serves
            return made;
        }
        return (HollowFactory) registered;
    }

    /** @return whether the creation proxy of a class registered with a lookup has been made (for tests) */
    static boolean proxyMade(Class<?> type) {
        return FACTORIES.get(type).get() instanceof HollowFactory;
    }

    private static HollowFactory make(Class<?> type, MethodHandles.Lookup lookup) {
        try {
            MethodHandle proxy = lookup.findStatic(type, CREATION_PROXY, PROXY_TYPE);
            CallSite site = LambdaMetafactory.metafactory(lookup, "newInstance",
                    MethodType.methodType(HollowFactory.class), PROXY_TYPE, proxy, PROXY_TYPE);
            return (HollowFactory) site.getTarget().invokeExact();
        } catch (Throwable e) {
            if (e instanceof Error error && !(e instanceof LinkageError)) {
                throw error;
            }
            throw new IllegalStateException("cannot make the creation proxy of " + type.getName()
                    + " (was it rewritten by this version of the Perpetua agent?)", e);
        }
    }
}
