package io.perpetua.agent.transform;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Type relationships for the classes of one class loader, read from class files through
 * {@link ClassLoader#getResource} and never by loading a class (loading inside a transformer
 * causes {@code ClassCircularityError} and wrong-loader failures). Also decides, once per class,
 * its {@link Capability}. Thread-safe; results are cached for the loader's lifetime.
 */
final class TypeResolver {

    /** A type the rewriting needs could not be found as a class file. */
    static final class UnresolvedTypeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnresolvedTypeException(String message) {
            super(message);
        }
    }

    private static final Map<ClassLoader, TypeResolver> BY_LOADER = new WeakHashMap<>();
    private static final Object BOOT_KEY_LOCK = new Object();
    private static volatile TypeResolver forBoot;

    private final WeakReference<ClassLoader> loader;
    private final boolean bootstrap;
    private final ClassFilter filter;
    private final ConcurrentHashMap<String, ClassInfo> cache = new ConcurrentHashMap<>();

    private TypeResolver(ClassLoader loader, ClassFilter filter) {
        this.loader = new WeakReference<>(loader);
        this.bootstrap = loader == null;
        this.filter = filter;
    }

    /**
     * @param loader the defining loader of the classes being rewritten; null for the bootstrap loader
     * @return the resolver of that loader (one per loader and filter)
     */
    static TypeResolver of(ClassLoader loader, ClassFilter filter) {
        if (loader == null) {
            synchronized (BOOT_KEY_LOCK) {
                if (forBoot == null || forBoot.filter != filter) {
                    forBoot = new TypeResolver(null, filter);
                }
                return forBoot;
            }
        }
        synchronized (BY_LOADER) {
            TypeResolver r = BY_LOADER.get(loader);
            if (r == null || r.filter != filter) {
                r = new TypeResolver(loader, filter);
                BY_LOADER.put(loader, r);
            }
            return r;
        }
    }

    /** A resolver that is not shared (tests). */
    static TypeResolver unshared(ClassLoader loader, ClassFilter filter) {
        return new TypeResolver(loader, filter);
    }

    /** Records the class being defined, from the bytes the JVM passed to the transformer. */
    void define(ClassInfo info) {
        cache.put(info.name, info);
    }

    /**
     * @param internalName a class's internal name
     * @return what its class file says, or null if the loader has no class file of that name
     */
    ClassInfo find(String internalName) {
        ClassInfo info = cache.get(internalName);
        if (info != null) {
            return info;
        }
        ClassLoader l = loader.get();
        if (l == null && !bootstrap) {
            return null;
        }
        String resource = internalName + ".class";
        URL url = l != null ? l.getResource(resource) : ClassLoader.getPlatformClassLoader().getResource(resource);
        if (url == null) {
            return null;
        }
        byte[] bytes;
        try (InputStream in = url.openStream()) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UnresolvedTypeException("cannot read " + url + ": " + e);
        } catch (IllegalArgumentException e) {
            bytes = readMisencoded(url, e);
        }
        ClassReader reader;
        try {
            reader = new ClassReader(bytes);
        } catch (IllegalArgumentException e) {
            throw new UnresolvedTypeException("cannot parse " + url + ": " + e.getMessage());
        }
        info = ClassInfo.read(reader, "jrt".equals(url.getProtocol()) || bootstrap);
        ClassInfo raced = cache.putIfAbsent(internalName, info);
        return raced != null ? raced : info;
    }

    /**
     * Reads the class file of a {@code file:} or {@code jar:file:} URL the JDK made but cannot
     * open: it escapes a character outside the Basic Multilingual Plane (U+1D49E in a class
     * name) as two escaped surrogates, {@code %ed%a0%b5%ed%b2%9e}, which its own decoding then
     * rejects ("Error decoding percent encoded characters"). Decoded here as the JDK encoded it.
     *
     * @param failure what opening the URL threw
     */
    private static byte[] readMisencoded(URL url, IllegalArgumentException failure) {
        try {
            String path = decodeEscapes(url.getPath());
            if (url.getProtocol().equals("file")) {
                return java.nio.file.Files.readAllBytes(new java.io.File(path).toPath());
            }
            int separator = path.indexOf("!/");
            if (url.getProtocol().equals("jar") && path.startsWith("file:") && separator > 0
                    && path.indexOf("!/", separator + 2) < 0) { // not a jar nested in a jar
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(path.substring("file:".length(), separator))) {
                    java.util.jar.JarEntry entry = jar.getJarEntry(path.substring(separator + 2));
                    if (entry != null) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            return in.readAllBytes();
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
        throw new UnresolvedTypeException("cannot read " + url + ": the JDK cannot open it (" + failure.getMessage()
                + "; a class name with a character outside the Basic Multilingual Plane is escaped so in a URL), and"
                + " it is neither a file nor an entry of a jar file that Perpetua could open itself");
    }

    /**
     * @return {@code s} with its {@code %xx} escapes decoded as the JDK's URLs encode them: UTF-8,
     *         with each half of a surrogate pair encoded on its own (as Java's modified UTF-8 does)
     */
    static String decodeEscapes(String s) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write(0); // the length modified UTF-8 starts with, set below
        bytes.write(0);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                bytes.write(Integer.parseInt(s, i + 1, i + 3, 16));
                i += 2;
            } else {
                byte[] utf8 = String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
            }
        }
        byte[] encoded = bytes.toByteArray();
        int length = encoded.length - 2;
        if (length > 0xFFFF) {
            throw new IllegalArgumentException("a path of " + length + " bytes");
        }
        encoded[0] = (byte) (length >>> 8);
        encoded[1] = (byte) length;
        try {
            return new java.io.DataInputStream(new java.io.ByteArrayInputStream(encoded)).readUTF();
        } catch (IOException e) {
            throw new IllegalArgumentException("not encoded as the JDK encodes a URL: " + s, e);
        }
    }

    /**
     * @param internalName a class's internal name
     * @param neededFor what the type is needed for, for the message
     * @throws UnresolvedTypeException if the loader has no class file of that name
     */
    ClassInfo require(String internalName, String neededFor) {
        ClassInfo info = find(internalName);
        if (info == null) {
            throw new UnresolvedTypeException("cannot find the class file of " + internalName.replace('/', '.')
                    + " (needed for " + neededFor + ") through " + describeLoader());
        }
        return info;
    }

    /**
     * Resolves an instance field reference as the JVM does (JVMS 5.4.3.2, restricted to
     * super-classes: interface fields are static).
     *
     * @return the class that declares the instance field, or null if no class declares it (the
     *         reference would fail at run time anyway; it is left alone)
     */
    ClassInfo declaringClass(String owner, String fieldName, String descriptor) {
        ClassInfo c = require(owner, "field " + owner.replace('/', '.') + "." + fieldName);
        for (int depth = 0; c != null && depth < 1000; depth++) {
            ClassInfo.Member f = c.field(fieldName, descriptor);
            if (f != null) {
                return f.isStatic() ? null : c;
            }
            c = c.superName == null ? null : require(c.superName, "the super-class of " + c);
        }
        return null;
    }

    /** @return whether a field access on {@code owner.fieldName} must go through accessors */
    ClassInfo redirectTarget(String owner, String fieldName, String descriptor) {
        if (fieldName.startsWith(Protocol.PREFIX) || ClassFilter.isSystem(owner)) {
            return null;
        }
        ClassInfo declaring = declaringClass(owner, fieldName, descriptor);
        if (declaring == null || !capability(declaring).isPersistent()) {
            return null;
        }
        return declaring;
    }

    /**
     * A field the contents of a JDK collection live in, which a class extending it may reach
     * directly: a protected, non-transient instance field that the JDK class or a class above it
     * declares ({@code Vector}'s {@code elementData}, {@code elementCount} and
     * {@code capacityIncrement}; not {@code AbstractList.modCount}, which is transient), referred
     * to through a persistent-capable class that extends that JDK class ({@link InheritedContainer}).
     *
     * @return whether {@code owner.fieldName} is such a field
     */
    boolean isInheritedContainerField(String owner, String fieldName, String descriptor) {
        if (ClassFilter.isSystem(owner)) {
            return false;
        }
        ClassInfo declaring = declaringClass(owner, fieldName, descriptor);
        if (declaring == null || !declaring.jdk) {
            return false;
        }
        ClassInfo.Member f = declaring.field(fieldName, descriptor);
        if ((f.access() & Opcodes.ACC_PROTECTED) == 0 || !f.isPersistentField()) {
            return false;
        }
        for (ClassInfo c = require(owner, "field " + owner.replace('/', '.') + "." + fieldName); c != null && !c.jdk;
                c = c.superName == null ? null : require(c.superName, "the super-class of " + c)) {
            if (InheritedContainer.of(c.superName) != null) {
                return capability(c).isPersistent();
            }
        }
        return false;
    }

    /** @return true if {@code c} extends {@code java.lang.Throwable} */
    private boolean extendsThrowable(ClassInfo c) {
        for (ClassInfo s = c; s.superName != null; s = require(s.superName, "a super-class of " + c)) {
            if ("java/lang/Throwable".equals(s.superName)) {
                return true;
            }
        }
        return false;
    }

    /** @return what the agent does with a class; computed once */
    Capability capability(ClassInfo c) {
        Capability known = c.capability();
        if (known == null) {
            known = classify(c, 0);
            c.capability(known);
        }
        return known;
    }

    private Capability classify(ClassInfo c, int depth) {
        if (depth > 1000) {
            throw new UnresolvedTypeException("class hierarchy of " + c + " is circular or too deep");
        }
        if (c.jdk) {
            return Capability.untouched("JDK class");
        }
        String rejected = filter.reject(c.name);
        if (rejected != null) {
            return Capability.untouched(rejected);
        }
        if (c.alreadyRewritten()) {
            return Capability.alreadyRewritten();
        }
        if (c.is(Opcodes.ACC_MODULE)) {
            return Capability.untouched("module descriptor");
        }
        if (c.is(Opcodes.ACC_INTERFACE)) {
            return Capability.redirectOnly(c.is(Opcodes.ACC_ANNOTATION) ? "annotation" : "interface");
        }
        if ("java/lang/Record".equals(c.superName)) {
            return Capability.redirectOnly("record: the kernel stores it by its canonical constructor");
        }
        if ("java/lang/Enum".equals(c.superName)) {
            return Capability.redirectOnly("enum: the kernel stores it by name");
        }
        if (c.superName == null) {
            return Capability.untouched("java.lang.Object");
        }
        ClassInfo superClass = require(c.superName, "the super-class of " + c);
        Capability superCapability = superClass.capability();
        if (superCapability == null) {
            superCapability = classify(superClass, depth + 1);
            superClass.capability(superCapability);
        }
        if (superCapability.isPersistent()) {
            return checkOwnFields(c, false);
        }
        if ("java/lang/Enum".equals(superClass.superName)) {
            return Capability.redirectOnly("enum constant body: the kernel stores enums by name");
        }
        if (InheritedContainer.of(c.superName) != null) {
            return checkOwnFields(c, true); // its contents are stored as one more value: InheritedContainer
        }
        // The first non-rewritten super-class: its state cannot be stored by generated code, so
        // it (and everything above it) must have none; and the creation proxy calls its
        // no-argument constructor. State in transient fields counts when a class above serializes
        // it itself (Date, ConcurrentLinkedQueue, LongAdder): what Java serialization keeps, a
        // store must keep. Without that, transient fields are caches (AbstractList.modCount),
        // dropped by serialization too.
        String transientState = null;
        String serializesItself = null;
        for (ClassInfo s = superClass; s != null; s = s.superName == null ? null
                : require(s.superName, "a super-class of " + c)) {
            for (ClassInfo.Member f : s.fields) {
                if (f.isPersistentField()) {
                    return unstorableSuperState(c, superClass, superCapability, s + "." + f.name());
                }
                if (transientState == null && !f.isStatic()) {
                    transientState = s + "." + f.name();
                }
            }
            if (serializesItself == null) {
                serializesItself = s.method("writeObject", "(Ljava/io/ObjectOutputStream;)V") != null ? s + ".writeObject"
                        : s.method("writeReplace", "()Ljava/lang/Object;") != null ? s + ".writeReplace" : null;
            }
        }
        if (transientState != null && serializesItself != null) {
            return unstorableSuperState(c, superClass, superCapability, "transient " + transientState
                    + ", which " + serializesItself + " saves");
        }
        ClassInfo.Member noArg = superClass.method("<init>", "()V");
        boolean accessible = noArg != null
                && ((noArg.access() & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0
                || ((noArg.access() & Opcodes.ACC_PRIVATE) == 0
                && superClass.packageName().equals(c.packageName()) && !superClass.jdk));
        if (!accessible) {
            return Capability.redirectOnly("extends " + superClass + ", which is not rewritten and has no "
                    + "no-argument constructor accessible to " + c + " (the creation proxy needs one)");
        }
        return checkOwnFields(c, true);
    }

    private Capability unstorableSuperState(ClassInfo c, ClassInfo superClass, Capability superCapability, String field) {
        return Capability.redirectOnly("extends " + superClass + ", which is not rewritten ("
                + (superCapability.reason == null ? "not rewritable" : superCapability.reason)
                + ") and has state the generated codec cannot store (field " + field + "); "
                + (extendsThrowable(c) ? "an exception: the kernel stores its instances by their Java serialization"
                        : "instances of this class cannot be made persistent"));
    }

    private static Capability checkOwnFields(ClassInfo c, boolean topMost) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (ClassInfo.Member f : c.fields) {
            if (!f.isStatic() && !names.add(f.name())) {
                return Capability.redirectOnly("declares two instance fields named " + f.name()
                        + " (legal in class files, but the record layout is by name)");
            }
        }
        return Capability.persistent(topMost);
    }

    /**
     * The most specific common super-class of two classes, for frame computation, from class
     * files only. Interfaces merge to {@code java/lang/Object}, as the verifier does.
     */
    String commonSuperClass(String a, String b) {
        if (a.equals(b)) {
            return a;
        }
        ClassInfo ca = require(a, "a stack map frame");
        ClassInfo cb = require(b, "a stack map frame");
        if (ca.is(Opcodes.ACC_INTERFACE) || cb.is(Opcodes.ACC_INTERFACE)) {
            return "java/lang/Object";
        }
        java.util.Set<String> supersOfA = new java.util.HashSet<>();
        for (ClassInfo c = ca; c != null; c = c.superName == null ? null : require(c.superName, "a stack map frame")) {
            supersOfA.add(c.name);
        }
        for (ClassInfo c = cb; c != null; c = c.superName == null ? null : require(c.superName, "a stack map frame")) {
            if (supersOfA.contains(c.name)) {
                return c.name;
            }
        }
        return "java/lang/Object";
    }

    /** @return whether {@code sub} is {@code type} or inherits from it (classes and interfaces) */
    boolean isSubtype(String sub, String type) {
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        todo.add(sub);
        while (!todo.isEmpty()) {
            String n = todo.poll();
            if (n.equals(type)) {
                return true;
            }
            if (!seen.add(n)) {
                continue;
            }
            ClassInfo c = require(n, "checking whether " + sub.replace('/', '.') + " is a " + type.replace('/', '.'));
            if (c.superName != null) {
                todo.add(c.superName);
            }
            todo.addAll(c.interfaces);
        }
        return false;
    }

    private String describeLoader() {
        if (bootstrap) {
            return "the bootstrap class loader";
        }
        ClassLoader l = loader.get();
        return l == null ? "a collected class loader" : "class loader " + l;
    }
}
