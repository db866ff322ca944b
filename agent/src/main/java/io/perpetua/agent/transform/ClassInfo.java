package io.perpetua.agent.transform;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import java.util.ArrayList;
import java.util.List;

/**
 * What the rewriting passes need to know about a class, read from its class file (never by
 * loading it): its header, its fields and its methods' names, descriptors and access flags.
 * Immutable apart from the lazily computed {@link Capability}, which is set once.
 */
final class ClassInfo {

    /** A field or a method. */
    record Member(String name, String descriptor, int access) {
        boolean isStatic() {
            return (access & Opcodes.ACC_STATIC) != 0;
        }

        /** @return whether this field is stored: non-static, non-transient, not Perpetua's own */
        boolean isPersistentField() {
            return (access & (Opcodes.ACC_STATIC | Opcodes.ACC_TRANSIENT)) == 0
                    && !name.startsWith(Protocol.PREFIX);
        }

        /**
         * @return whether this is a transient instance field of the class's own (stored only in
         *         a class that serializes itself: {@code PersistentClasses.storesTransientFields})
         */
        boolean isTransientField() {
            return (access & (Opcodes.ACC_STATIC | Opcodes.ACC_TRANSIENT)) == Opcodes.ACC_TRANSIENT
                    && !name.startsWith(Protocol.PREFIX);
        }
    }

    final String name;
    final String superName;
    final List<String> interfaces;
    final int access;
    final int version;
    final List<Member> fields;
    final List<Member> methods;
    /** Whether the class file came from the run-time image (a JDK class). */
    final boolean jdk;

    private volatile Capability capability;

    private ClassInfo(String name, String superName, List<String> interfaces, int access, int version,
                      List<Member> fields, List<Member> methods, boolean jdk) {
        this.name = name;
        this.superName = superName;
        this.interfaces = interfaces;
        this.access = access;
        this.version = version;
        this.fields = fields;
        this.methods = methods;
        this.jdk = jdk;
    }

    /** Reads the header and members of a class file; code is skipped. */
    static ClassInfo read(ClassReader reader, boolean jdk) {
        List<Member> fields = new ArrayList<>();
        List<Member> methods = new ArrayList<>();
        String[] header = new String[2];
        int[] flags = new int[2];
        List<String> interfaces = new ArrayList<>();
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] itfs) {
                header[0] = name;
                header[1] = superName;
                flags[0] = access;
                flags[1] = version;
                if (itfs != null) {
                    interfaces.addAll(List.of(itfs));
                }
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature,
                                           Object value) {
                fields.add(new Member(name, descriptor, access));
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                methods.add(new Member(name, descriptor, access));
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return new ClassInfo(header[0], header[1], List.copyOf(interfaces), flags[0], flags[1],
                List.copyOf(fields), List.copyOf(methods), jdk);
    }

    boolean is(int flag) {
        return (access & flag) != 0;
    }

    /** @return the field declared here with that name and descriptor, or null */
    Member field(String fieldName, String descriptor) {
        for (Member f : fields) {
            if (f.name.equals(fieldName) && f.descriptor.equals(descriptor)) {
                return f;
            }
        }
        return null;
    }

    /** @return the method declared here with that name and descriptor, or null */
    Member method(String methodName, String descriptor) {
        for (Member m : methods) {
            if (m.name.equals(methodName) && m.descriptor.equals(descriptor)) {
                return m;
            }
        }
        return null;
    }

    /** @return whether the class declares a member whose name starts with {@code $perpetua$} */
    boolean alreadyRewritten() {
        for (Member m : methods) {
            if (m.name.startsWith(Protocol.PREFIX)) {
                return true;
            }
        }
        for (Member f : fields) {
            if (f.name.startsWith(Protocol.PREFIX)) {
                return true;
            }
        }
        return false;
    }

    /** @return the persistent fields declared here, in declaration order */
    List<Member> persistentFields() {
        return fields.stream().filter(Member::isPersistentField).toList();
    }

    /** @return the package part of the internal name, e.g. {@code com/acme} ("" if none) */
    String packageName() {
        int slash = name.lastIndexOf('/');
        return slash < 0 ? "" : name.substring(0, slash);
    }

    Capability capability() {
        return capability;
    }

    void capability(Capability c) {
        capability = c;
    }

    @Override
    public String toString() {
        return name.replace('/', '.');
    }
}
