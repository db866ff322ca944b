package io.perpetua.agent;

import io.perpetua.agent.ForkedJvm.Run;
import io.perpetua.agent.transform.PerpetuaTransformer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static io.perpetua.agent.ForkedJvm.AGENT;
import static io.perpetua.agent.ForkedJvm.JDK17;
import static io.perpetua.agent.ForkedJvm.NEWEST;
import static io.perpetua.agent.ForkedJvm.agent;
import static io.perpetua.agent.ForkedJvm.jarOnTestClassPath;
import static io.perpetua.agent.ForkedJvm.testClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * End to end, in forked JVMs with the real {@code -javaagent:perpetua-agent.jar} (the shaded jar
 * built in the package phase) and the {@code file:} store: JVM 1 builds a graph and commits;
 * JVM 2 fetches the root, touches one path, changes it and commits (and only what it touched is
 * read); JVM 3 sees that change and nothing else. On JDK 17 and on the newest JDK installed,
 * with perpetua-core only inside the agent jar and also on the application's class path.
 */
class EndToEndIT {
    private static String appClassPath(boolean coreToo) throws Exception {
        List<String> cp = new ArrayList<>(List.of(testClasses(), jarOnTestClassPath("perpetua-store-file"),
                jarOnTestClassPath("commons-lang-2.6")));
        if (coreToo) {
            cp.add(0, jarOnTestClassPath("perpetua-core-"));
        }
        return String.join(File.pathSeparator, cp);
    }

    private static Run java(Path jdk, List<String> jvmArgs, String classPath, String... args) throws Exception {
        return ForkedJvm.java(jdk, jvmArgs, classPath, 180, args);
    }

    static Stream<Arguments> jdksAndClassPaths() {
        return Stream.of(Arguments.of("17", false), Arguments.of("17", true), Arguments.of("newest", false),
                Arguments.of("newest", true));
    }

    @ParameterizedTest(name = "JDK {0}, perpetua-core also on the class path: {1}")
    @MethodSource("jdksAndClassPaths")
    void threeJvmsBuildTouchAndSeeExactlyTheChange(String jdkName, boolean coreOnClassPath, @TempDir Path dir)
            throws Exception {
        Path jdk = jdkName.equals("17") ? JDK17 : NEWEST;
        assumeTrue(Files.isExecutable(jdk.resolve("bin/java")), "no JDK at " + jdk);
        String cp = appClassPath(coreOnClassPath);
        String store = "file:" + dir.resolve("store");

        Run build = java(jdk, List.of(agent("failFast")), cp, "e2eapp.App", "build", store);
        assertEquals(0, build.exit(), build::toString);
        assertTrue(build.out().startsWith("rewritten=true\n"), build::toString);
        assertFalse(build.err().contains("FAILED"), build::toString);
        String before = build.out().substring("rewritten=true\n".length());

        Run touch = java(jdk, List.of(agent("failFast")), cp, "e2eapp.App", "touch", store);
        assertEquals(0, touch.exit(), touch::toString);
        assertTrue(touch.out().contains("fetchType=e2eapp.Company\n"), touch::toString);
        // 124 objects, 33 records: the company's depts array and each dept's staff array are
        // embedded in the record of the one object that refers to them, and the employees
        // first reached through a staff array are satellites stored in their dept's record, 8
        // at most (a dept's head, reached first through its own field, has a record of its own).
        assertTrue(touch.out().contains("objects=33\n"), touch::toString);
        // Read: the company (with its depts array), dept3 (with its staff array and the
        // employee), the counter; not one of the other 30 records.
        long read = value(touch.out(), "readByFetch") + value(touch.out(), "readByTouch");
        assertEquals(3, read, touch::toString);
        assertTrue(touch.out().contains("changed=dept3-e2 salary=1520 manager=dept3-e0"), touch::toString);

        // an aborted change is not what the program reads next (rewritten getters read the
        // value first: an object made hollow by abort must have its fields cleared)
        Run abort = java(jdk, List.of(agent("failFast")), cp, "e2eapp.App", "abort", store);
        assertEquals(0, abort.exit(), abort::toString);
        assertTrue(abort.out().contains("afterAbort=salary 1520 budget 1000 dept3-e2 salary=1520 manager=dept3-e0\n"),
                abort::toString);
        assertTrue(abort.out().contains("staffOfDept5=dept5-e0,dept5-e1,"), abort::toString);

        Run dump = java(jdk, List.of(agent("failFast")), cp, "e2eapp.App", "dump", store);
        assertEquals(0, dump.exit(), dump::toString);
        String expected = before
                .replace("company acme counter=0", "company acme counter=1")
                .replace("dept3-e2 salary=1020", "dept3-e2 salary=1520");
        assertFalse(expected.equals(before));
        assertEquals(expected, dump.out());

        // preload: every record read once (satellites with their home), and nothing left to read
        Run preload = java(jdk, List.of(agent("failFast")), cp, "e2eapp.App", "preload", store);
        assertEquals(0, preload.exit(), preload::toString);
        assertEquals(33, value(preload.out(), "readByPreload"), preload::toString);
        assertEquals(0, value(preload.out(), "readByDump"), preload::toString);
        assertEquals(0, value(preload.out(), "readBySecondPreload"), preload::toString);
        assertTrue(preload.out().endsWith(expected), preload::toString);
    }

    private static long value(String out, String key) {
        for (String line : out.split("\n")) {
            if (line.startsWith(key + "=")) {
                return Long.parseLong(line.substring(key.length() + 1).trim());
            }
        }
        throw new AssertionError("no " + key + " in " + out);
    }

    /** persist(String) and the typed static fetch(String), called from code compiled against rewritten classes. */
    @Test
    void typedPersistAndFetchFromCodeCompiledAgainstRewrittenClasses(@TempDir Path dir) throws Exception {
        String cp = appClassPath(false);
        String store = "file:" + dir.resolve("store");
        Path dump = dir.resolve("dump");
        Run build = java(JDK17, List.of(agent("dump=" + dump)), cp, "e2eapp.App", "build", store);
        assertEquals(0, build.exit(), build::toString);
        assertTrue(Files.exists(dump.resolve("e2eapp/Company.class")), "dumped");

        Path src = dir.resolve("src/typed/Typed.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package typed;
                import e2eapp.Company;
                import io.perpetua.PersistentStore;
                public class Typed {
                    public static void main(String[] args) {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            store.beginTransaction();
                            Company c = Company.fetch("acme");   // static, returns Company: no cast
                            c.persist("again");                  // instance, added by the agent
                            store.commitTransaction();
                            System.out.println("names=" + store.names());
                            System.out.println("same=" + (Company.fetch("again") == c));
                        }
                    }
                }
                """);
        Path classes = dir.resolve("classes");
        Run javac = javac(JDK17, "17", dump + File.pathSeparator + AGENT, classes, src);
        assertEquals(0, javac.exit(), javac::toString);
        Run typed = java(JDK17, List.of(agent("failFast")), classes + File.pathSeparator + cp, "typed.Typed", store);
        assertEquals(0, typed.exit(), typed::toString);
        assertTrue(typed.out().contains("names=[acme, again]") || typed.out().contains("names=[again, acme]"), typed::toString);
        assertTrue(typed.out().contains("same=true"), typed::toString);
    }

    /**
     * The JDK value classes the kernel stores itself, in fields of an application class: written
     * by a JVM of JDK 17, read by one of the newest JDK (JDK 17 again if there is none).
     */
    @Test
    void jdkValueClassesWrittenOnOneJdkAreReadOnAnother(@TempDir Path dir) throws Exception {
        Run read = writeOnJdk17ReadOnNewest(dir, "vals.Vals", """
                package vals;
                import io.perpetua.PersistentStore;
                import java.util.*;
                public class Vals {
                    static class Holder {
                        Locale tagged;
                        Locale legacy;
                        Currency currency;
                        java.net.URI uri;
                        java.net.URL url;
                        java.nio.file.Path path;
                        java.io.File file;
                        java.util.regex.Pattern pattern;
                        java.nio.charset.Charset charset;
                        Properties properties;
                        Date date;
                        StringBuilder text;
                        java.sql.Timestamp stamp;
                        List<String> synced;
                        java.util.concurrent.atomic.AtomicReference<Holder> self;
                        Map.Entry<String, Integer> entry;
                        Class<?>[] types;
                        final Object lock = new Object();
                        final java.util.concurrent.locks.ReentrantLock fairLock = new java.util.concurrent.locks.ReentrantLock(true);
                        Random random;
                        Calendar calendar;
                    }
                    @SuppressWarnings("deprecation")
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                Holder h = new Holder();
                                h.tagged = Locale.forLanguageTag("de-CH-u-nu-latn");
                                h.legacy = new Locale("no", "NO", "NY");
                                h.currency = Currency.getInstance("JPY");
                                h.uri = java.net.URI.create("urn:isbn:0451450523");
                                h.url = new java.net.URL("file:/srv/a%20b.txt");
                                h.path = java.nio.file.Path.of("/srv", "data");
                                h.file = new java.io.File("rel/f");
                                h.pattern = java.util.regex.Pattern.compile("a.b", java.util.regex.Pattern.DOTALL);
                                h.charset = java.nio.charset.StandardCharsets.ISO_8859_1;
                                h.properties = new Properties();
                                h.properties.setProperty("k", "v");
                                h.date = new Date(86_400_000L);
                                h.text = new StringBuilder("built");
                                h.stamp = new java.sql.Timestamp(1000);
                                h.stamp.setNanos(1234);
                                h.synced = Collections.synchronizedList(new ArrayList<>(List.of("s")));
                                h.self = new java.util.concurrent.atomic.AtomicReference<>(h);
                                h.entry = Map.entry("e", 5);
                                h.types = new Class<?>[] {Holder.class, int[].class, String.class};
                                h.random = new Random(5);
                                h.calendar = new GregorianCalendar(TimeZone.getTimeZone("Asia/Tokyo"));
                                h.calendar.setTimeInMillis(1_600_000_000_000L);
                                store.inTransaction(() -> store.persist(h, "h"));
                            } else {
                                Holder h = store.fetch("h", Holder.class);
                                System.out.println("read " + h.tagged + "|" + h.legacy + "|" + h.currency + "|" + h.uri
                                        + "|" + h.url + "|" + h.path + "|" + h.file + "|" + h.pattern.pattern() + "/"
                                        + h.pattern.flags() + "|" + h.charset + "|" + h.properties + "|"
                                        + h.date.getTime() + "|" + h.text + "|" + h.stamp.getTime() + "/"
                                        + h.stamp.getNanos() + "|" + h.synced + " " + h.synced.getClass().getSimpleName()
                                        + "|" + (h.self.get() == h) + "|" + h.entry + "|" + (h.types[0] == Holder.class)
                                        + " " + h.types[1].getName() + " " + h.types[2].getName() + "|"
                                        + h.lock.getClass().getName() + " " + h.fairLock.isFair() + "|"
                                        + h.random.nextInt(1000) + " " + h.calendar.getTimeZone().getID() + " "
                                        + h.calendar.get(Calendar.HOUR_OF_DAY));
                            }
                        }
                    }
                }
                """, "failFast").read();
        assertTrue(read.out().contains("read de_CH_#u-nu-latn|no_NO_NY|JPY|urn:isbn:0451450523|file:/srv/a%20b.txt"
                + "|/srv/data|rel/f|a.b/32|ISO-8859-1|{k=v}|86400000|built|1000/1234|[s] SynchronizedRandomAccessList"
                + "|true|e=5|true [I java.lang.String|java.lang.Object true|" + new java.util.Random(5).nextInt(1000)
                + " Asia/Tokyo 21"), read::toString);
    }

    /**
     * An exception class of the application, which the agent leaves as it is (it extends a JDK
     * class with state) and says why, is stored by its Java serialization: written by a JVM of
     * JDK 17, read back by one of the newest JDK with its fields, cause and stack trace.
     */
    @Test
    void exceptionsOfTheApplicationAreStoredByTheirSerialization(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "errs.Errs", """
                package errs;
                import io.perpetua.PersistentStore;
                public class Errs {
                    static class Failure extends Exception {
                        final int code;
                        Failure(String message, int code, Throwable cause) {
                            super(message, cause);
                            this.code = code;
                        }
                    }
                    static class Job {
                        String name;
                        Failure last;
                    }
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                Job job = new Job();
                                job.name = "nightly";
                                job.last = new Failure("disk full", 28, new java.io.IOException("no space"));
                                store.inTransaction(() -> store.persist(job, "job"));
                            } else {
                                Job job = store.fetch("job", Job.class);
                                Failure f = job.last;
                                System.out.println("read " + job.name + "|" + f.getMessage() + "|" + f.code + "|"
                                        + f.getCause() + "|" + f.getStackTrace()[0].getMethodName());
                            }
                        }
                    }
                }
                """, "failFast,verbose");
        Run write = runs.write();
        assertTrue(write.err().contains("[perpetua] skipped errs.Errs$Failure: extends java.lang.Exception, which is not"
                + " rewritten (JDK class) and has state the generated codec cannot store (field java.lang.Throwable."
                + "detailMessage); an exception: the kernel stores its instances by their Java serialization"), write::toString);
        Run read = runs.read();
        assertTrue(read.out().contains("read nightly|disk full|28|java.io.IOException: no space|main"), read::toString);
    }

    /**
     * Java deserialization runs {@code readResolve} on what it read; so does a fill. Two shapes of
     * third-party classes: a key that recomputes its transient hash code there (Commons
     * Collections' {@code MultiKey}), read back as the key of a map the kernel rebuilds; and a
     * class that serializes itself and hands back its canonical instance, whose inner-class
     * objects in transient fields are stored as null (Joda-Time's {@code BuddhistChronology} and
     * {@code GJChronology}). A read that runs it dirties nothing: the reader's commit writes only
     * what it changed.
     */
    @Test
    void readResolveRunsOnWhatAFillReads(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "resolve.Resolve", """
                package resolve;
                import io.perpetua.PersistentStore;
                import java.io.*;
                import java.util.*;
                public class Resolve {
                    static final class Key implements Serializable {
                        final String a, b;
                        private transient int hash;
                        Key(String a, String b) { this.a = a; this.b = b; hash = a.hashCode() ^ b.hashCode(); }
                        @Override public int hashCode() { return hash; }
                        @Override public boolean equals(Object o) {
                            return o instanceof Key k && k.hash == hash && k.a.equals(a) && k.b.equals(b);
                        }
                        private Object readResolve() { hash = a.hashCode() ^ b.hashCode(); return this; }
                    }
                    static final class Calendar implements Serializable {
                        private static final Map<String, Calendar> CACHE = new HashMap<>();
                        final String zone;
                        private transient Field year;
                        private Calendar(String zone) { this.zone = zone; year = new Field(); }
                        static synchronized Calendar of(String zone) { return CACHE.computeIfAbsent(zone, Calendar::new); }
                        class Field { String describe() { return "year in " + zone; } }
                        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
                            in.defaultReadObject();
                            year = new Field();
                        }
                        private Object readResolve() { return of(zone); }
                    }
                    static final class Root {
                        Map<Key, String> routes = new HashMap<>();
                        Calendar calendar;
                        int visits;
                    }
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                Root root = new Root();
                                root.routes.put(new Key("GET", "/a"), "handlerA");
                                root.calendar = new Calendar("Asia/Tokyo");
                                store.inTransaction(() -> store.persist(root, "root"));
                                return;
                            }
                            Root root = store.fetch("root", Root.class);
                            Key key = root.routes.keySet().iterator().next();
                            System.out.println("get=" + root.routes.get(new Key("GET", "/a")) + " hash="
                                    + (key.hashCode() == new Key("GET", "/a").hashCode()));
                            System.out.println("calendar=" + root.calendar.year.describe());
                            store.inTransaction(() -> root.visits++);
                            System.out.println("written=" + store.statistics().recordsWritten());
                        }
                    }
                }
                """, "failFast");
        Run read = runs.read();
        assertTrue(read.out().contains("get=handlerA hash=true\n"), read::toString);
        assertTrue(read.out().contains("calendar=year in Asia/Tokyo\n"), read::toString);
        assertTrue(read.out().contains("written=1\n"), read::toString);
    }

    /**
     * In a transient field of a class that serializes itself, an object of an inner class is a
     * view, stored as null and made again when next asked for, only when its outer instance is
     * the object holding the field (a multimap's {@code asMap()}); one whose outer instance is
     * another object is state, stored (Joda-Time's {@code StrictChronology} holds its base's
     * duration fields, inner objects of the base's field objects, rebuilt only by
     * {@code readObject}). Asking for the view of an object read back dirties nothing.
     */
    @Test
    void innerObjectsOfAnotherObjectInTransientFieldsAreStored(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "inner.Inner", """
                package inner;
                import io.perpetua.PersistentStore;
                import java.io.*;
                public class Inner {
                    static final class Base implements Serializable {
                        final int unit;
                        Base(int unit) { this.unit = unit; }
                        class Duration implements Serializable { int add(int v) { return v + unit; } }
                    }
                    static final class Strict implements Serializable {
                        final Base base;
                        private transient Base.Duration months;
                        private transient View view;
                        Strict(Base base) { this.base = base; months = base.new Duration(); }
                        class View { int months(int v) { return months.add(v); } }
                        View view() { return view == null ? view = new View() : view; }
                        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
                            in.defaultReadObject();
                            months = base.new Duration();
                        }
                    }
                    static final class Root {
                        Strict strict;
                        int visits;
                    }
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                Root root = new Root();
                                root.strict = new Strict(new Base(12));
                                root.strict.view();
                                store.inTransaction(() -> store.persist(root, "root"));
                                return;
                            }
                            Root root = store.fetch("root", Root.class);
                            System.out.println("view=" + root.strict.view().months(1));
                            store.inTransaction(() -> root.visits++);
                            System.out.println("written=" + store.statistics().recordsWritten());
                        }
                    }
                }
                """, "failFast");
        Run read = runs.read();
        assertTrue(read.out().contains("view=13\nwritten=1\n"), read::toString);
    }

    @Test
    void aCloneOfAPersistentObjectIsANewObject(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "cl.Clones", """
                package cl;
                import io.perpetua.PersistentStore;
                import java.util.ArrayList;
                import java.util.Arrays;
                import java.util.List;
                public class Clones {
                    static class Doc implements Cloneable {
                        String title;
                        int[] marks;
                        List<String> tags;
                        @Override
                        public Doc clone() {
                            try {
                                return (Doc) super.clone();
                            } catch (CloneNotSupportedException e) {
                                throw new AssertionError(e);
                            }
                        }
                    }
                    static class Draft extends Doc {
                        int version;
                        @Override
                        public Draft clone() {
                            return (Draft) super.clone();
                        }
                    }
                    public static void main(String[] args) {
                        if (args[1].equals("write")) {
                            Draft d = new Draft();
                            d.title = "plan";
                            d.marks = new int[] {1, 2, 3};
                            d.tags = new ArrayList<>(List.of("a"));
                            d.version = 1;
                            try (PersistentStore store = PersistentStore.open(args[0])) {
                                store.inTransaction(() -> store.persist(d, "d"));
                            }
                            return;
                        }
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            Draft d = store.fetch("d", Draft.class);
                            store.inTransaction(() -> {
                                Draft c = d.clone(); // d.marks not read yet: the fill left it undecoded
                                io.perpetua.runtime.Persistent p = (io.perpetua.runtime.Persistent) (Object) c;
                                System.out.println("copy state " + p.$perpetua$state() + ", handle " + p.$perpetua$handle());
                                c.version++;
                                c.title = "plan, copied";
                                c.marks[0] = 9; // a shallow copy: the array is the original's too
                                c.tags.add("b");
                                store.persist(c, "c");
                                System.out.println("copy persistent before commit " + store.isPersistent(c)
                                        + ", original " + store.isPersistent(d));
                            });
                        }
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            Draft d = store.fetch("d", Draft.class);
                            Draft c = store.fetch("c", Draft.class);
                            System.out.println("read " + d.title + "|" + d.version + "|" + c.title + "|" + c.version
                                    + "|" + Arrays.toString(c.marks) + "|" + c.tags + "|" + (d.marks == c.marks)
                                    + "|" + (d.tags == c.tags) + "|" + (d == c));
                        }
                    }
                }
                """, "failFast");
        Run read = runs.read();
        assertTrue(read.out().contains("copy state 0, handle null"), read::toString); // TRANSIENT, at once
        assertTrue(read.out().contains("copy persistent before commit true, original true"), read::toString);
        assertTrue(read.out().contains("read plan|1|plan, copied|2|[9, 2, 3]|[a, b]|true|true|false"), read::toString);
    }

    @Test
    void javaSerializationWritesWhatPersistentObjectsHold(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "ser.Ser", """
                package ser;
                import io.perpetua.PersistentStore;
                import java.io.*;
                import java.util.Arrays;
                public class Ser {
                    static class Item implements Serializable {
                        String name;
                        int[] sizes;
                        Item next;
                        transient int cache = 5;
                    }
                    static class Tagged extends Item {
                        String tag;
                        private void writeObject(ObjectOutputStream out) throws IOException {
                            out.defaultWriteObject();
                            out.writeUTF("own data");
                        }
                        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
                            in.defaultReadObject();
                            tag = tag + " + " + in.readUTF();
                        }
                    }
                    static String show(Item i) {
                        return i.name + Arrays.toString(i.sizes) + i.cache + (i instanceof Tagged t ? "/" + t.tag : "")
                                + (i.next == null ? "" : " -> " + show(i.next));
                    }
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                Item a = new Item();
                                a.name = "a";
                                a.sizes = new int[] {1, 2};
                                Tagged b = new Tagged();
                                b.name = "b";
                                b.sizes = new int[] {3};
                                b.tag = "t";
                                a.next = b;
                                store.inTransaction(() -> store.persist(a, "a"));
                                return;
                            }
                            Item a = store.fetch("a", Item.class); // filled, its array not decoded; b hollow
                            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                                out.writeObject(a);
                            }
                            Item copy;
                            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                                copy = (Item) in.readObject();
                            }
                            System.out.println("copy " + show(copy) + ", persistent " + store.isPersistent(copy)
                                    + ", transient field stored " + (a.cache != 0));
                        }
                    }
                }
                """, "failFast");
        Run read = runs.read();
        // the transient field reads as its default (0) in the copy, as Java serialization has it
        // and the generated writeObject does not make the kernel store Item's transient fields
        assertTrue(read.out().contains("copy a[1, 2]0 -> b[3]0/t + own data, persistent false,"
                + " transient field stored false"), read::toString);
    }

    /**
     * Classes of the application that extend JDK collections and maps: stored with their own
     * fields, read back lazily, changed, put back by an abort; reading them (a loop, a view,
     * toString) writes nothing, changing them through an iterator or an entry does. The read run
     * is on the newest JDK, whose collections have more methods (the sequenced ones) than JDK 17's.
     */
    @Test
    void classesExtendingJdkCollectionsAndMapsPersist(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "inh.Inh", """
                package inh;
                import io.perpetua.PersistentStore;
                import java.util.*;
                public class Inh {
                    static class Tags extends ArrayList<String> {
                        String owner;
                        Tags(String owner) { this.owner = owner; }
                        @Override public boolean add(String s) { return super.add(s.toLowerCase()); }
                    }
                    static class Colored extends Tags {
                        String color = "red";
                        Colored() { super("c"); }
                    }
                    static class Item {
                        String name;
                        Item(String name) { this.name = name; }
                        @Override public String toString() { return name; }
                    }
                    static class Index extends HashMap<String, Item> { int version; }
                    static class Recent extends LinkedHashMap<String, Integer> {
                        int max;
                        Recent(int max) { this.max = max; }
                        @Override protected boolean removeEldestEntry(Map.Entry<String, Integer> e) { return size() > max; }
                    }
                    static class Sorted extends TreeSet<String> { }
                    static class Queue extends ArrayDeque<String> { }
                    static class ByLength extends TreeSet<String> {
                        ByLength() { super(Comparator.comparing(String::length)); }
                    }
                    static class Pending extends PriorityQueue<Integer> { }
                    static class History extends Stack<String> { }
                    static class Listeners extends java.util.concurrent.CopyOnWriteArrayList<String> { }
                    static class Counts extends java.util.concurrent.ConcurrentHashMap<String, Integer> { }
                    static class Root {
                        Tags tags; Index index; Recent recent; Sorted sorted; Queue queue;
                        Pending pending; History history; Listeners listeners; Counts counts; Colored colored;
                    }
                    static String more(Root r) {
                        return r.pending.peek() + "/" + r.pending.size() + " " + r.history + " " + r.listeners + " "
                                + new TreeMap<>(r.counts);
                    }
                    static String show(Root r) {
                        return r.tags + " " + r.tags.owner + " " + r.index + " " + r.index.version + " " + r.recent + " "
                                + r.sorted + " " + r.queue;
                    }
                    public static void main(String[] args) {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                Root r = new Root();
                                r.tags = new Tags("me");
                                r.tags.add("A");
                                r.tags.add("B");
                                r.index = new Index();
                                r.index.put("x", new Item("x"));
                                r.index.version = 3;
                                r.recent = new Recent(2);
                                r.recent.put("a", 1);
                                r.recent.put("b", 2);
                                r.recent.put("c", 3);
                                r.sorted = new Sorted();
                                r.sorted.addAll(List.of("z", "y"));
                                r.queue = new Queue();
                                r.queue.add("q1");
                                r.queue.add("q2");
                                r.pending = new Pending();
                                r.pending.addAll(List.of(5, 1, 3));
                                r.history = new History();
                                r.history.push("h1");
                                r.listeners = new Listeners();
                                r.listeners.add("l1");
                                r.counts = new Counts();
                                r.counts.put("k", 1);
                                r.colored = new Colored();
                                r.colored.add("Q");
                                store.inTransaction(() -> store.persist(r, "r"));
                                Recent five = new Recent(5);
                                for (String k : List.of("a", "b", "c", "d", "e")) five.put(k, 1);
                                store.inTransaction(() -> store.persist(five, "five"));
                                store.inTransaction(() -> five.max = 2); // no eviction until the next put
                                try {
                                    store.inTransaction(() -> store.persist(new ByLength(), "byLength"));
                                } catch (io.perpetua.NotPersistableException e) {
                                    System.out.println("refused: " + e.getMessage());
                                }
                                return;
                            }
                            Root r = store.fetch("r", Root.class);
                            long read = store.statistics().recordsRead();
                            System.out.println("tags " + r.tags.size() + " read " + (store.statistics().recordsRead() - read));
                            System.out.println("stored " + show(r));
                            System.out.println("more stored " + more(r));
                            store.inTransaction(() -> {
                                r.tags.add("C");
                                r.index.put("y", new Item("y"));
                                r.recent.put("d", 4); // removeEldestEntry, after the reload, drops b
                                r.sorted.add("a");
                                r.queue.poll();
                                r.pending.poll();
                                r.history.push("h2");
                                r.listeners.add("l2");
                                r.counts.merge("k", 1, Integer::sum);
                            });
                            store.beginTransaction();
                            r.tags.clear();
                            r.index.remove("x");
                            r.recent.clear();
                            store.abortTransaction();
                            System.out.println("after abort " + show(r));
                            long written = store.statistics().recordsWritten();
                            store.inTransaction(() -> {
                                StringBuilder b = new StringBuilder();
                                for (String t : r.tags) b.append(t);
                                for (Map.Entry<String, Item> e : r.index.entrySet()) b.append(e.getKey()).append(e.getValue());
                                for (String k : r.recent.keySet()) b.append(k);
                                r.sorted.forEach(b::append);
                                b.append(r.queue).append(r.tags.equals(List.of("a", "b", "c"))).append(r.index.hashCode() != 0);
                                b.append(r.history.peek()).append(r.history.empty()).append(r.history.search("h1"))
                                        .append(r.counts.mappingCount()).append(Collections.list(r.counts.keys()));
                            });
                            System.out.println("written by reads " + (store.statistics().recordsWritten() - written));
                            store.inTransaction(() -> {
                                for (Map.Entry<String, Item> e : r.index.entrySet()) e.setValue(new Item(e.getValue() + "!"));
                                Iterator<String> it = r.tags.iterator();
                                it.next();
                                it.remove();
                            });
                            System.out.println("written by changes through views " + (store.statistics().recordsWritten() - written));
                        }
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            System.out.println("reopened " + show(store.fetch("r", Root.class)));
                            System.out.println("more reopened " + more(store.fetch("r", Root.class)));
                        }
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            Recent five = store.fetch("five", Recent.class); // filled with max 2: nothing evicted
                            System.out.println("five " + five.keySet());
                            store.inTransaction(() -> five.put("f", 1));
                            System.out.println("five after put " + five.keySet());
                        }
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            System.out.println("five reopened " + store.fetch("five", Recent.class).keySet());
                        }
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            Root root = store.fetch("r", Root.class);
                            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                            try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
                                out.writeObject(root.tags); // serialized before any touch
                                out.writeObject(root.colored); // a subclass of a subclass: its own writeReplace fills it
                            }
                            try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
                                    new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
                                Tags copy = (Tags) in.readObject();
                                System.out.println("serialized " + copy + " " + copy.owner);
                                Colored colored = (Colored) in.readObject();
                                System.out.println("serialized colored " + colored + " " + colored.owner + " " + colored.color);
                            }
                        } catch (java.io.IOException | ClassNotFoundException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }
                """, "failFast,verbose");
        assertTrue(runs.write().err().contains("[perpetua] rewritten inh.Inh$Tags: persistent-capable, top-most"),
                runs.write()::toString);
        assertTrue(runs.write().out().contains("refused: ") && runs.write().out().contains("inh.Inh$ByLength")
                && runs.write().out().contains("it passes a comparator to TreeSet's constructor"), runs.write()::toString);
        String out = runs.read().out();
        assertTrue(out.contains("tags 2 read 1"), out); // the root's fetch left it hollow: one record when touched
        assertTrue(out.contains("stored [a, b] me {x=x} 3 {b=2, c=3} [y, z] [q1, q2]"), out);
        assertTrue(out.contains("after abort [a, b, c] me {x=x, y=y} 3 {c=3, d=4} [a, y, z] [q2]"), out);
        assertTrue(out.contains("written by reads 0"), out);
        assertTrue(out.contains("written by changes through views 2"), out); // Tags and Index (new items are satellites)
        assertTrue(out.contains("reopened [b, c] me {x=x!, y=y!} 3 {c=3, d=4} [a, y, z] [q2]"), out);
        assertTrue(out.contains("serialized [b, c] me"), out); // ArrayList's writeObject runs first: filled before it
        assertTrue(out.contains("serialized colored [q] c red"), out);
        // a fill does not ask removeEldestEntry: the committed entries stay until the next put
        assertTrue(out.contains("five [a, b, c, d, e]\nfive after put [b, c, d, e, f]\nfive reopened [b, c, d, e, f]"),
                out);
        assertTrue(out.contains("more stored 1/3 [h1] [l1] {k=1}"), out);
        assertTrue(out.contains("more reopened 3/2 [h1, h2] [l1, l2] {k=2}"), out);

    }

    /**
     * A class whose static initializer fetches a stored object of its own class, first
     * initialized by the read of a reference to that very object: one stored object stays one
     * Java object (the initializer's fetch and the reference agree), and both changes are saved.
     */
    @Test
    void aStaticInitializerFetchingTheObjectBeingReadGetsTheSameObject(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "init.Main", """
                package init;
                import io.perpetua.PersistentStore;
                class Settings {
                    static final Settings CURRENT = load();
                    int visits;
                    private static Settings load() {
                        PersistentStore s = Main.store;
                        if (s.isBound("settings")) return s.fetch("settings", Settings.class);
                        Settings fresh = new Settings();
                        s.persist(fresh, "settings");
                        return fresh;
                    }
                }
                class Page {
                    Settings settings;
                }
                public class Main {
                    static PersistentStore store;
                    public static void main(String[] args) {
                        store = PersistentStore.open(args[0]);
                        if (args[1].equals("write")) {
                            store.inTransaction(() -> {
                                Page p = new Page();
                                p.settings = Settings.CURRENT;
                                store.persist(p, "page");
                            });
                            store.close();
                            return;
                        }
                        store.inTransaction(() -> {
                            Page p = store.fetch("page", Page.class);
                            Settings viaPage = p.settings; // its first shell initializes Settings
                            System.out.println("same " + (viaPage == Settings.CURRENT) + " "
                                    + (store.fetch("settings") == viaPage));
                            viaPage.visits++;
                            Settings.CURRENT.visits++;
                        });
                        store.close();
                        store = PersistentStore.open(args[0]);
                        System.out.println("stored " + store.fetch("settings", Settings.class).visits);
                        store.close();
                    }
                }
                """, "failFast");
        assertEquals("same true true\nstored 2\n", runs.read().out(), runs.read()::toString);
    }

    /**
     * A stored object's class whose static initializer throws when the read makes its shell:
     * reported as that, with the application's exception as the cause, not as a renamed class.
     */
    @Test
    void aStaticInitializerThatThrowsIsReportedAsSuch(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "init2.Main", """
                package init2;
                import io.perpetua.PersistentStore;
                import io.perpetua.PersistentStoreException;
                class Limits {
                    static final int MAX = Integer.parseInt(Main.mode.equals("write") ? "5" : "five");
                    int used;
                }
                class Account {
                    Limits limits = new Limits();
                }
                public class Main {
                    static String mode;
                    public static void main(String[] args) {
                        mode = args[1];
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (mode.equals("write")) {
                                store.inTransaction(() -> store.persist(new Account(), "account"));
                                return;
                            }
                            for (int i = 0; i < 2; i++) {
                                try {
                                    System.out.println(store.fetch("account", Account.class).limits.used);
                                } catch (PersistentStoreException e) {
                                    System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage()
                                            + " / " + e.getCause().getClass().getSimpleName());
                                }
                            }
                        }
                    }
                }
                """, "failFast");
        String out = runs.read().out();
        assertTrue(out.startsWith("PersistentStoreException: the static initializer of class init2.Limits threw"
                + " java.lang.NumberFormatException: For input string: \"five\" when a stored object of the class"
                + " was read / NumberFormatException\n"), out);
        assertTrue(out.contains("\nPersistentStoreException: class init2.Limits cannot be used: its static initializer"
                + " failed earlier in this JVM"), out);
        assertFalse(out.contains("renamed"), out);
    }

    /**
     * A program that reads and never commits (a report) and hands persistent arrays to JDK code
     * ({@code Arrays.asList}): the array write log, which no commit comes to take, is taken by the
     * next fetch, so the arrays go when the program drops them.
     */
    @Test
    void arraysGivenToJdkCodeOutsideATransactionAreNotHeldByTheLog(@TempDir Path dir) throws Exception {
        WriteRead runs = writeOnJdk17ReadOnNewest(dir, "report.Main", """
                package report;
                import io.perpetua.PersistentStore;
                import java.lang.ref.WeakReference;
                import java.util.*;
                class Item { int n; Item(int n) { this.n = n; } }
                class Box { Item[] items; }
                public class Main {
                    public static void main(String[] args) throws Exception {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args[1].equals("write")) {
                                store.inTransaction(() -> {
                                    Box b = new Box();
                                    b.items = new Item[] {new Item(1), new Item(2)};
                                    store.persist(b, "box");
                                });
                                return;
                            }
                            List<WeakReference<Item[]>> arrays = new ArrayList<>();
                            int sum = 0;
                            for (int round = 0; round < 3; round++) {
                                Box b = store.fetch("box", Box.class);
                                for (Item i : Arrays.asList(b.items)) sum += i.n;
                                arrays.add(new WeakReference<>(b.items));
                                for (int k = 0; k < 50 && arrays.get(0).get() != null; k++) {
                                    System.gc();
                                    Thread.sleep(10);
                                }
                            }
                            store.fetch("box"); // takes what the last round logged
                            int collected = 0;
                            for (int k = 0; k < 50 && collected < 3; k++) {
                                System.gc();
                                Thread.sleep(10);
                                collected = 0;
                                for (WeakReference<Item[]> r : arrays) if (r.get() == null) collected++;
                            }
                            System.out.println("sum " + sum + ", collected " + collected + " of 3");
                        }
                    }
                }
                """, "failFast");
        assertEquals("sum 9, collected 3 of 3\n", runs.read().out(), runs.read()::toString);
    }

    /** The two runs of {@link #writeOnJdk17ReadOnNewest}. */
    private record WriteRead(Run write, Run read) {
    }

    /**
     * Compiles {@code source}, the class {@code mainClass}, for Java 17 and runs it under the
     * agent (with {@code agentOptions}) on one file store: with argument "write" on JDK 17, then
     * "read" on the newest JDK (JDK 17 again if there is none). Both must exit with 0.
     */
    private static WriteRead writeOnJdk17ReadOnNewest(Path dir, String mainClass, String source, String agentOptions)
            throws Exception {
        Path src = dir.resolve("src/" + mainClass.replace('.', '/') + ".java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path classes = dir.resolve("classes");
        Run javac = javac(JDK17, "17", AGENT.toString(), classes, src);
        assertEquals(0, javac.exit(), javac::toString);
        String cp = classes + File.pathSeparator + appClassPath(false);
        String store = "file:" + dir.resolve("store");
        Run write = java(JDK17, List.of(agent(agentOptions)), cp, mainClass, store, "write");
        assertEquals(0, write.exit(), write::toString);
        Path reader = Files.isExecutable(NEWEST.resolve("bin/java")) ? NEWEST : JDK17;
        Run read = java(reader, List.of(agent("failFast")), cp, mainClass, store, "read");
        assertEquals(0, read.exit(), read::toString);
        return new WriteRead(write, read);
    }

    private static Run javac(Path jdk, String release, String classPath, Path out, Path... sources) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(jdk.resolve("bin/javac").toString(), "--release", release,
                "-cp", classPath, "-d", out.toString()));
        for (Path s : sources) {
            cmd.add(s.toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        p.waitFor(120, TimeUnit.SECONDS);
        return new Run(p.exitValue(), output, "");
    }

    /** Class files of the newest JDK's own version, rewritten and persisted across two JVMs of that JDK. */
    @Test
    void classFilesOfTheNewestJdkVersion(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(NEWEST.resolve("bin/javac")), "no JDK at " + NEWEST);
        Path src = dir.resolve("src/latest/Latest.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package latest;
                import io.perpetua.PersistentStore;
                public class Latest {
                    String word;
                    int n;
                    Latest next;
                    public static void main(String[] args) {
                        try (PersistentStore store = PersistentStore.open(args[1])) {
                            if (args[0].equals("build")) {
                                store.beginTransaction();
                                Latest l = new Latest();
                                l.word = "w";
                                l.n = 25;
                                l.next = new Latest();
                                l.next.n = 26;
                                store.persist(l, "l");
                                store.commitTransaction();
                            } else {
                                Latest l = store.fetch("l", Latest.class);
                                System.out.println(l.word + l.n + "/" + l.next.n);
                            }
                        }
                    }
                }
                """);
        Path classes = dir.resolve("classes");
        String release = newestRelease();
        Run javac = javac(NEWEST, release, AGENT.toString(), classes, src);
        assertEquals(0, javac.exit(), javac::toString);
        byte[] bytes = Files.readAllBytes(classes.resolve("latest/Latest.class"));
        assertEquals(Integer.parseInt(release) + 44, ((bytes[6] & 0xff) << 8) | (bytes[7] & 0xff));
        String cp = classes + File.pathSeparator + jarOnTestClassPath("perpetua-store-file");
        String store = "file:" + dir.resolve("store");
        Run build = java(NEWEST, List.of(agent("failFast,verbose")), cp, "latest.Latest", "build", store);
        assertEquals(0, build.exit(), build::toString);
        assertTrue(build.err().contains("rewritten latest.Latest: persistent-capable"), build::toString);
        Run read = java(NEWEST, List.of(agent("failFast")), cp, "latest.Latest", "read", store);
        assertEquals(0, read.exit(), read::toString);
        assertEquals("w25/26\n", read.out());
    }

    private static String newestRelease() throws Exception {
        Run v = java(NEWEST, List.of(), ".", "-version");
        String text = v.err();
        int q = text.indexOf('"');
        String version = text.substring(q + 1, text.indexOf('"', q + 1));
        return version.split("[.\\-+]")[0];
    }

    /** A class loaded before the agent started is reported at once, and persisting it fails clearly. */
    @Test
    void classesLoadedBeforeTheAgentAreReportedAndCannotSilentlyPersist(@TempDir Path dir) throws Exception {
        Path earlyJar = dir.resolve("early-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", "e2eapp.early.EarlyAgent");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(earlyJar), manifest)) {
            jar.flush();
        }
        Run run = java(JDK17, List.of("-javaagent:" + earlyJar, agent("")), appClassPath(false),
                "e2eapp.early.EarlyMain", "file:" + dir.resolve("store"));
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.err().contains("[perpetua] WARNING e2eapp.early.Early: was loaded before the Perpetua agent started"),
                run::toString);
        assertTrue(run.out().startsWith("refused: "), run::toString);
        assertTrue(run.out().contains("e2eapp.early.Early") && run.out().contains("not rewritten"), run::toString);
    }

    /** A class that cannot be rewritten is reported; with failFast the program stops before main. */
    @Test
    void failuresAreReportedAndFailFastStopsTheProgram(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes.resolve("big"));
        Files.write(classes.resolve("big/TooBig.class"), TooBig.classFile("big/TooBig", 0, true));
        Run lenient = java(JDK17, List.of(agent("")), classes.toString(), "big.TooBig");
        assertEquals(0, lenient.exit(), lenient::toString);
        assertEquals("main ran\n", lenient.out());
        assertTrue(lenient.err().contains("[perpetua] FAILED big.TooBig"), lenient::toString);
        assertTrue(lenient.err().contains("MethodTooLargeException"), lenient::toString);

        Run strict = java(JDK17, List.of(agent("failFast")), classes.toString(), "big.TooBig");
        assertEquals(PerpetuaTransformer.FAIL_FAST_EXIT_STATUS, strict.exit(), strict::toString);
        assertEquals("", strict.out());
        assertTrue(strict.err().contains("[perpetua] FAILED big.TooBig"), strict::toString);
    }

    /**
     * A subclass and its super-class's field readers are rewritten before the JVM even loads
     * the super-class, which then cannot be rewritten whole: the program runs as it would
     * without the agent (no {@code NoSuchFieldError}), the failure is reported, and a commit
     * that reaches its instance is refused with the reason and the path, leaving the store on
     * disk as it was.
     */
    @Test
    void aSuperClassThatCannotBeRewrittenWholeLinksAndIsRefusedAtCommit(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes.resolve("big"));
        Files.write(classes.resolve("big/TooBig.class"), TooBig.classFile("big/TooBig", 0, true));
        Path src = dir.resolve("src/big/Taller.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package big;
                import io.perpetua.NotPersistableException;
                import io.perpetua.PersistentStore;
                import java.util.ArrayList;
                import java.util.List;
                public class Taller extends TooBig {
                    int y;
                    public static void main(String[] args) {
                        try (PersistentStore store = PersistentStore.open(args[0])) {
                            if (args.length > 1) {
                                System.out.println("names=" + store.names());
                                return;
                            }
                            Taller t = new Taller();
                            t.x = 3;
                            t.y = 4;
                            System.out.println("both=" + (t.x + t.y) + " sum=" + t.sum());
                            store.beginTransaction();
                            store.persist(new ArrayList<>(List.of("first", t)), "list");
                            try {
                                store.commitTransaction();
                                System.out.println("committed");
                            } catch (NotPersistableException e) {
                                System.out.println("refused " + e.className() + " at " + e.path() + ": " + e.reason());
                                store.abortTransaction();
                            }
                        }
                    }
                }
                """);
        Run javac = javac(JDK17, "17", classes + File.pathSeparator + AGENT, classes, src);
        assertEquals(0, javac.exit(), javac::toString);
        String cp = classes + File.pathSeparator + jarOnTestClassPath("perpetua-store-file");
        String store = "file:" + dir.resolve("store");

        Run run = java(JDK17, List.of(agent("")), cp, "big.Taller", store);
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().startsWith("both=7 sum=" + 3 * TooBig.READS + "\n"), run::toString);
        assertTrue(run.out().contains("refused big.Taller at \"list\"[1]: class big.TooBig could not be rewritten by the"
                + " Perpetua agent (rewriting failed: "), run::toString);
        assertTrue(run.out().contains("MethodTooLargeException: Method too large: big/TooBig.sum ()I); it has only the"
                + " members other rewritten classes link against, and its instances cannot persist"), run::toString);
        assertTrue(run.err().contains("[perpetua] FAILED big.TooBig"), run::toString);
        assertTrue(run.err().contains("given only the members other rewritten classes link against"), run::toString);
        assertFalse(run.err().contains("NoSuch"), run::toString);

        Run names = java(JDK17, List.of(agent("")), cp, "big.Taller", store, "names");
        assertEquals(0, names.exit(), names::toString);
        assertEquals("names=[]\n", names.out());
    }
}
