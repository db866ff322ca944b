package io.perpetua.kernel;

import io.perpetua.IncompatibleClassChangeException;
import io.perpetua.NotPersistableException;
import io.perpetua.runtime.Persistent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Calendar;
import java.util.Collection;
import java.util.GregorianCalendar;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The JDK classes the kernel has no layout of its own for, stored by their own Java
 * serialization ({@link ClassDescriptor.Kind#SERIALIZED}): {@code Random}, {@code Calendar},
 * {@code TimeZone}, {@code SimpleDateFormat}, {@code InetAddress}, the atomic arrays and adders,
 * an exception, and the like; and the application's exception classes
 * ({@link #isApplicationException}). The JDK keeps the serialized form of its classes readable
 * by its later versions, which is what a store needs; what such an object holds inside it is
 * part of its value (no identity of its own across the store), so it may hold only JDK objects
 * and the application's exceptions, never an object of the store. Collections and maps are not
 * taken (their elements may be objects of the store: the kernel stores the ones it knows itself
 * and refuses the others), nor hidden classes (a JDK lambda), nor objects that
 * {@link #belongsToAnother belong to another}, nor {@link #isUiComponent user interface
 * components}, nor {@code SecureRandom}, whose serialized state would make two readers of the
 * store draw the same numbers (a holder of its algorithm instead). Stateless and thread-safe.
 */
final class JdkSerialized {
    private JdkSerialized() {
    }

    /** By class: whether the kernel stores its objects by Java serialization. */
    private static final ClassValue<Boolean> TAKEN = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return (isJdk(type) || isApplicationException(type)) && Serializable.class.isAssignableFrom(type)
                    && !type.isHidden() && !type.isArray()
                    && !type.isEnum() && !Collection.class.isAssignableFrom(type) && !Map.class.isAssignableFrom(type)
                    && !Iterator.class.isAssignableFrom(type) && !java.security.SecureRandom.class.isAssignableFrom(type)
                    && !belongsToAnother(type) && !isUiComponent(type)
                    && !RecordEncoder.isValueClass(type); // a Class, a Locale... are serializable too: stored as values
        }
    };

    /** @return true if objects of {@code type} are stored by their Java serialization */
    static boolean isOne(Class<?> type) {
        return TAKEN.get(type);
    }

    /**
     * By class: whether objects of this JDK class can never change once made, so that no commit
     * need serialize and compare them (see {@link ContainerHandle#canChangeInPlace}). Only
     * classes whose whole public API is free of setters: the network addresses and
     * {@code Proxy}, the JDK's {@code Clock}s (documented immutable), the reverse and null-first
     * comparators, {@code StackTraceElement}, {@code X500Principal}. Exceptions are not: their
     * cause, suppressed exceptions and stack trace can be set.
     */
    private static final ClassValue<Boolean> IMMUTABLE = new ClassValue<>() {
        private final java.util.Set<String> names = java.util.Set.of("java.net.InetSocketAddress", "java.net.Proxy",
                "java.lang.StackTraceElement", "java.util.Collections$ReverseComparator2",
                "java.util.Comparators$NullComparator", "javax.security.auth.x500.X500Principal");

        @Override
        protected Boolean computeValue(Class<?> type) {
            String name = type.getName();
            return java.net.InetAddress.class.isAssignableFrom(type) && name.startsWith("java.net.")
                    || name.startsWith("java.time.Clock$") && java.time.Clock.class.isAssignableFrom(type)
                    || names.contains(name);
        }
    };

    /** @return true if objects of {@code type}, stored by their serialization, never change */
    static boolean isImmutable(Class<?> type) {
        return IMMUTABLE.get(type);
    }

    /**
     * @return true for a class whose objects belong to another object that a serialized copy
     *         would no longer be part of: an inner class's (a lock's {@code Condition}), or the
     *         read and write locks of a {@code ReentrantReadWriteLock}, which share its state.
     *         Stored by serialization, each would come back working on a lock of its own, and
     *         code that takes the lock and then waits on its condition would fail
     */
    static boolean belongsToAnother(Class<?> type) {
        return (type.getEnclosingClass() != null && !java.lang.reflect.Modifier.isStatic(type.getModifiers()))
                || java.util.concurrent.locks.Lock.class.isAssignableFrom(type)
                || java.util.concurrent.locks.Condition.class.isAssignableFrom(type);
    }

    /**
     * @return true for an AWT or Swing component: serializable, but a stored one would come back
     *         as a copy of it and of the window around it, on no screen. By name, so that
     *         {@code java.desktop} is loaded only by a program that uses it
     */
    static boolean isUiComponent(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals("java.awt.Component")) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return true for an exception class of the application: it extends {@code Throwable}, a
     *         JDK class with state, so the agent leaves it as it is (it has no persistent
     *         members), and it is stored by its Java serialization as the JDK's exceptions are,
     *         holding what they may hold and other such exceptions (its cause)
     */
    static boolean isApplicationException(Class<?> type) {
        return Throwable.class.isAssignableFrom(type) && !isJdk(type) && !Persistent.class.isAssignableFrom(type);
    }

    /** @return true if a serialization stream written by {@link #write} may hold objects of {@code type} (or arrays of them) */
    private static boolean mayHold(Class<?> type) {
        while (type.isArray()) {
            type = type.getComponentType();
        }
        return isJdk(type) || isApplicationException(type);
    }

    /** @return true for a class of the JDK: of the boot or the platform class loader */
    private static boolean isJdk(Class<?> type) {
        while (type.isArray()) {
            type = type.getComponentType();
        }
        ClassLoader loader = type.getClassLoader();
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }

    /**
     * @param path where the object is, for an error
     * @param classes the store's classes, which must find again by name every class the stream
     *        names that is not the JDK's (the application's exceptions); null for an object of
     *        JDK classes only
     * @return the object's Java serialization stream
     * @throws NotPersistableException if it holds an object of a class that is not the JDK's, or
     *         of an exception class the store's class loader does not find, or something in it
     *         cannot be serialized
     */
    static byte[] write(Object o, String path, ClassRegistry classes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (StoreOutput out = new StoreOutput(bytes, o, path, classes)) {
            out.writeObject(o);
        } catch (IOException e) {
            throw new NotPersistableException(o.getClass().getName(), path, "it is stored by its Java serialization,"
                    + " which failed: " + e);
        }
        return bytes.toByteArray();
    }

    /**
     * @param className the class the record names, for an error
     * @param classes finds the application's exception classes the stream names, as the store's
     *        other classes are found; null for a stream of JDK classes only
     * @return the object {@link #write} serialized
     * @throws IncompatibleClassChangeException if this JVM cannot read it (a class or a serialized
     *         form of a newer JDK; an exception class of the application removed, or changed
     *         without keeping its {@code serialVersionUID})
     */
    static Object read(byte[] bytes, String className, ClassRegistry classes) {
        Object o;
        boolean trailing;
        StreamFilter filter = new StreamFilter(bytes.length);
        try (ObjectInputStream in = new StoreInput(new ByteArrayInputStream(bytes), classes)) {
            ObjectInputFilter jvmWide = in.getObjectInputFilter();
            in.setObjectInputFilter(jvmWide == null ? filter : ObjectInputFilter.merge(filter, jvmWide));
            o = in.readObject();
            trailing = in.read() != -1;
        } catch (ClassNotFoundException | java.io.InvalidClassException e) {
            if (filter.tooLong != 0) {
                throw new ByteIn.MalformedRecord("a stored " + className + " has an array of " + filter.tooLong
                        + " elements in a serialized form of " + bytes.length + " bytes");
            }
            throw new IncompatibleClassChangeException(className, null, "it was stored by its Java serialization,"
                    + " which this JVM cannot read (" + e + ")", e);
        } catch (IOException | RuntimeException e) {
            throw new ByteIn.MalformedRecord("a stored " + className + " is not a readable serialized form: " + e);
        }
        if (trailing) {
            throw new ByteIn.MalformedRecord("a stored " + className + " has bytes after its serialized form");
        }
        return o;
    }

    /**
     * What a stored serialized form may make: what {@link #write} let in, and nothing else (a
     * record altered to name another class is not run; what the JVM's own filter,
     * {@code jdk.serialFilter}, refuses stays refused, as the two are merged); and arrays no
     * longer than the stream could hold, so that a damaged length is an error, not an
     * allocation that fills the heap. An element takes a byte of the stream at least; the
     * slack covers the capacities some classes allocate beyond their elements (a hash map's
     * table).
     */
    private static final class StreamFilter implements ObjectInputFilter {
        private final long maxArrayLength;
        /** The length of the array refused as too long, or 0. */
        long tooLong;

        StreamFilter(int streamBytes) {
            this.maxArrayLength = 4L * streamBytes + 64;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.arrayLength() > maxArrayLength) {
                tooLong = info.arrayLength();
                return Status.REJECTED;
            }
            return info.serialClass() != null && !mayHold(info.serialClass()) ? Status.REJECTED : Status.UNDECIDED;
        }
    }

    /**
     * Finds the classes a stream names through the store's {@link ClassRegistry}: the JDK's
     * default, the nearest class loader on the call stack (Perpetua's own), may not see the
     * application's exception classes (an application of its own class loader, a server's).
     */
    private static final class StoreInput extends ObjectInputStream {
        private final ClassRegistry classes;

        StoreInput(ByteArrayInputStream in, ClassRegistry classes) throws IOException {
            super(in);
            this.classes = classes;
        }

        @Override
        protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            if (classes != null) {
                try {
                    return classes.inStream(desc.getName());
                } catch (ClassNotFoundException e) {
                    // a primitive type's name; else not there, as the JDK's default will say
                }
            }
            return super.resolveClass(desc);
        }
    }

    /**
     * Sets an object back to the state of {@code copy}, read from its committed form, for an
     * abort: through public setters, for the classes that have them ({@code Calendar}, the
     * atomic arrays, {@code LongAdder}, {@code DoubleAdder}), and for a {@code Random} through
     * the algorithm its Javadoc fixes ({@link RandomStates}).
     *
     * @return false for any other class, or a {@code Random} {@link RandomStates#restore} cannot
     *         put back: the object keeps what the aborted transaction made of it
     */
    static boolean restore(Object target, Object copy) {
        if (target instanceof Random r && copy instanceof Random was) {
            return RandomStates.restore(r, was);
        } else if (target instanceof Calendar c && copy instanceof Calendar was) {
            c.setTimeZone(was.getTimeZone());
            c.setLenient(was.isLenient());
            c.setFirstDayOfWeek(was.getFirstDayOfWeek());
            c.setMinimalDaysInFirstWeek(was.getMinimalDaysInFirstWeek());
            if (c instanceof GregorianCalendar g && was instanceof GregorianCalendar w) {
                g.setGregorianChange(w.getGregorianChange());
            }
            c.setTimeInMillis(was.getTimeInMillis());
        } else if (target instanceof AtomicIntegerArray a) {
            AtomicIntegerArray was = (AtomicIntegerArray) copy;
            for (int i = 0; i < a.length(); i++) {
                a.set(i, was.get(i));
            }
        } else if (target instanceof AtomicLongArray a) {
            AtomicLongArray was = (AtomicLongArray) copy;
            for (int i = 0; i < a.length(); i++) {
                a.set(i, was.get(i));
            }
        } else if (target instanceof AtomicReferenceArray<?> a) {
            @SuppressWarnings("unchecked")
            AtomicReferenceArray<Object> into = (AtomicReferenceArray<Object>) a;
            AtomicReferenceArray<?> was = (AtomicReferenceArray<?>) copy;
            for (int i = 0; i < a.length(); i++) {
                into.set(i, was.get(i));
            }
        } else if (target instanceof LongAdder a) {
            a.reset();
            a.add(((LongAdder) copy).sum());
        } else if (target instanceof DoubleAdder a) {
            a.reset();
            a.add(((DoubleAdder) copy).sum());
        } else {
            return false;
        }
        return true;
    }

    /**
     * Serializes JDK objects and the application's exceptions only: any other object of the
     * application inside one is an error naming it.
     */
    private static final class StoreOutput extends ObjectOutputStream {
        private final Object root;
        private final String path;
        private final ClassRegistry classes;

        StoreOutput(ByteArrayOutputStream out, Object root, String path, ClassRegistry classes) throws IOException {
            super(out);
            this.root = root;
            this.path = path;
            this.classes = classes;
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) {
            check(obj.getClass());
            return obj;
        }

        @Override
        protected void annotateClass(Class<?> cl) {
            check(cl); // a Class object inside, which replaceObject does not see
        }

        @Override
        protected void annotateProxyClass(Class<?> cl) {
            check(cl);
        }

        private void check(Class<?> c) {
            if (!mayHold(c) || c.isHidden()) {
                throw new NotPersistableException(root.getClass().getName(), path, "it is stored by its Java"
                        + " serialization (" + (isJdk(root.getClass()) ? "a JDK class" : "an exception class of the"
                        + " application") + "), and it holds " + (c.isHidden() ? "an object of the hidden class "
                        : "an object of the class ") + c.getName() + ", which is not the JDK's: what such an object"
                        + " holds is stored inside it, and may only be the JDK's (or an exception of the application)");
            }
            String why = isJdk(c) || classes == null ? null : classes.unreadable(c);
            if (why != null) { // read back, the stream's classes are found through the store's loader
                throw new NotPersistableException(root.getClass().getName(), path, "it is stored by its Java"
                        + " serialization, and " + ClassRegistry.unreadableReason(c, why));
            }
        }
    }
}
