package io.perpetua.agent.transform;

import io.perpetua.agent.report.TransformListener;
import io.perpetua.runtime.ArrayWrites;

import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;

/**
 * The agent's {@link ClassFileTransformer}: offers each application class to the
 * {@link ClassRewriter} and reports the outcome. It never throws into the JVM (which would
 * swallow the exception and load the class unchanged, silently): every class is reported to
 * the listener as rewritten, skipped or failed (a class given only the members other rewritten
 * classes link against is a failure, and is loaded that way); with {@code failFast}, a failure
 * halts the JVM with status {@link #FAIL_FAST_EXIT_STATUS} after reporting it. Thread-safe.
 */
public final class PerpetuaTransformer implements ClassFileTransformer {

    /** The exit status of a JVM halted by {@code failFast}. */
    public static final int FAIL_FAST_EXIT_STATUS = 86;

    private final ClassRewriter rewriter;
    private final TransformListener listener;
    private final boolean failFast;
    private final Path dumpDirectory;
    /** Lets a rewritten class of a named module reach perpetua-core, or null (a test's loader, which has no modules). */
    private ModuleAccess moduleAccess;

    /**
     * The named modules granted access to perpetua-core so far, each with null once granted, or
     * why it could not be. Weak keys: a module goes with its layer.
     */
    private final java.util.Map<Module, Throwable> granted = new java.util.WeakHashMap<>();

    /**
     * The class loaders met so far, each with null if it sees perpetua-core, else why its classes
     * are left as they are. Weak keys: a loader goes when it is collected.
     */
    private final java.util.Map<ClassLoader, String> blind = new java.util.WeakHashMap<>();

    /** The class every persistent-capable class implements, as a class loader is asked for it. */
    private static final String PERSISTENT = "io.perpetua.runtime.Persistent";

    /**
     * What the classes of a named module need: the module must read perpetua-core's (a rewritten
     * class implements {@code io.perpetua.runtime.Persistent} and calls the runtime), and open
     * its packages to it (the kernel reads records and enum constants and makes objects there,
     * in packages that may hold no rewritten class at all).
     */
    @FunctionalInterface
    public interface ModuleAccess {
        /**
         * @param module a named module whose class is being loaded
         * @param loader its class loader
         */
        void grant(Module module, ClassLoader loader);
    }

    /**
     * @param rewriter the rewriting pipeline, not null
     * @param listener sees every class, not null
     * @param failFast whether a class that cannot be rewritten halts the JVM
     * @param dumpDirectory where rewritten class files are written (as {@code a/b/C.class}), or null
     */
    public PerpetuaTransformer(ClassRewriter rewriter, TransformListener listener, boolean failFast,
                               Path dumpDirectory) {
        this.rewriter = rewriter;
        this.listener = listener;
        this.failFast = failFast;
        this.dumpDirectory = dumpDirectory;
    }

    /**
     * Rewrites a small generated class (fields, an array store, a string concatenation, a
     * constructor) through the whole pipeline, without defining it, so that what the rewriting
     * needs is loaded and linked before the transformer is registered, with what the common paths
     * need of the JDK (see {@code PerpetuaAgent.loadOwnClasses}, which loads the agent's other
     * classes). Reports nothing.
     *
     * @throws RewriteException if the sample cannot be rewritten (a bug)
     */
    public void warmUp() {
        ClassRewriter.Result result = rewriter.warmUp();
        if (result.outcome() != ClassRewriter.Outcome.REWRITTEN) {
            throw new IllegalStateException("the agent's warm-up class was not rewritten: " + result.detail());
        }
    }

    /** Sets what lets rewritten classes of named modules reach perpetua-core; the agent sets the JVM's. */
    public void moduleAccess(ModuleAccess access) {
        this.moduleAccess = access;
    }

    /**
     * As {@link #transform(ClassLoader, String, Class, ProtectionDomain, byte[])}; the first class
     * of a named module gets the module access to perpetua-core, for all its packages: without
     * it the JVM refuses to define a rewritten class ({@code IllegalAccessError: ... does not
     * read module perpetua.core}), and the kernel cannot read a record or an enum of a package
     * no rewritten class was loaded from yet.
     */
    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        Throwable denied = null;
        if (module != null && module.isNamed() && moduleAccess != null && className != null && !isJdkLoader(loader)
                && !className.startsWith("io/perpetua/")) { // perpetua-core's own module: granting loads its classes
            denied = grant(module, loader);
        }
        byte[] rewritten = transform(loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
        if (rewritten != null && denied != null) {
            failed(className.replace('/', '.'), loader, new IllegalStateException("its module " + module.getName()
                    + " cannot be given access to perpetua-core (give it with --add-reads " + module.getName()
                    + "=ALL-UNNAMED, or =perpetua.core if perpetua-core is on the module path, and --add-opens)", denied));
            return null;
        }
        return rewritten;
    }

    /** @return null once the module has access to perpetua-core, else why it could not be given */
    private Throwable grant(Module module, ClassLoader loader) {
        synchronized (granted) {
            if (!granted.containsKey(module)) {
                Throwable denied = null;
                try {
                    moduleAccess.grant(module, loader);
                } catch (Throwable t) {
                    denied = t;
                }
                granted.put(module, denied);
            }
            return granted.get(module);
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (className == null || isHidden(className) || isJdkLoader(loader)) {
            return null;
        }
        String dotted = className.replace('/', '.');
        try {
            if (classBeingRedefined != null) {
                // A loaded class cannot gain fields or methods; it was rewritten (or not) when loaded.
                return null;
            }
            String cannotSeeCore = rewriter.filter().reject(className) == null ? cannotSeeCore(loader) : null;
            if (cannotSeeCore != null) {
                // like the JDK's own classes: nothing it defines can be made persistent, and what it
                // writes into an array is not logged
                stopArrayTracking(dotted, dotted + " is not rewritten: " + cannotSeeCore);
                listener.onSkipped(dotted, loader, cannotSeeCore);
                return null;
            }
            ClassRewriter.Result result = rewriter.rewrite(loader, className, classfileBuffer);
            if (result.arraysUntracked() != null) {
                stopArrayTracking(dotted, result.arraysUntracked());
            }
            if (result.outcome() == ClassRewriter.Outcome.UNCHANGED) {
                listener.onSkipped(dotted, loader, result.detail());
                return null;
            }
            dump(className, dotted, result.bytes());
            if (result.outcome() == ClassRewriter.Outcome.LINK_ONLY) {
                failed(dotted, loader, result.failure());
            } else {
                listener.onRewritten(dotted, loader, result.detail());
            }
            return result.bytes();
        } catch (Throwable t) {
            stopArrayTracking(dotted, dotted + " could not be rewritten");
            failed(dotted, loader, t);
            return null;
        }
    }

    /**
     * A class loader that does not find perpetua-core (one whose parent is the bootstrap loader:
     * Byte Buddy's helper loaders under Mockito, the OpenTelemetry agent's, an isolating plug-in
     * host's) could not define a rewritten class: it implements {@code io.perpetua.runtime.Persistent}
     * and calls the runtime ({@code NoClassDefFoundError}). Such a loader's classes are left as
     * they are. Any copy of core it sees will do (a web application may bundle its own): a
     * rewritten class links against the one its loader finds. Asked once per loader; the class
     * is found already loaded by the loaders that delegate to the agent's, which the agent loaded
     * before it started.
     *
     * @return null if the loader sees perpetua-core, else why its classes are left as they are
     */
    private String cannotSeeCore(ClassLoader loader) {
        synchronized (blind) {
            if (blind.containsKey(loader)) {
                return blind.get(loader);
            }
        }
        String why = null;
        try {
            Class.forName(PERSISTENT, false, loader); // not under the lock: the loader may take its own
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            // a RuntimeException: a sandboxing loader refusing the package (SecurityException)
            why = "its class loader (" + describe(loader) + ") does not see perpetua-core (" + PERSISTENT
                    + (e instanceof RuntimeException ? ": " + e : "") + "), so a rewritten class could not be defined:"
                    + " left as it is, its instances cannot be made persistent";
        }
        synchronized (blind) {
            blind.put(loader, why);
        }
        return why;
    }

    private static String describe(ClassLoader loader) {
        String name = loader.getName();
        return loader.getClass().getName() + (name == null ? "" : " '" + name + "'");
    }

    /** Reports a class that could not be rewritten (whole); with {@code failFast}, halts the JVM. */
    private void failed(String dotted, ClassLoader loader, Throwable t) {
        try {
            listener.onFailed(dotted, loader, t);
        } catch (Throwable again) {
            System.err.println("[perpetua] FAILED " + dotted + ": " + t + " (and the listener failed: " + again + ")");
        }
        if (failFast) {
            System.err.println("[perpetua] failFast: halting the JVM because " + dotted + " could not be rewritten");
            System.err.flush();
            // halt, not exit: this thread may hold class loading locks that shutdown hooks need
            Runtime.getRuntime().halt(FAIL_FAST_EXIT_STATUS);
        }
    }

    /**
     * Tells the kernel not to trust the array write log from now on (the next commit of each
     * open store compares every resident array again), and says why, once.
     */
    private void stopArrayTracking(String dotted, String reason) {
        String was = System.getProperty(ArrayWrites.PROPERTY);
        if (ArrayWrites.TRACKED.equals(was)) {
            System.setProperty(ArrayWrites.PROPERTY, "compared: " + reason);
            listener.onWarning(dotted, "commits now compare every resident array (slower, still correct): " + reason);
        }
    }

    private void dump(String internalName, String dotted, byte[] bytes) {
        if (dumpDirectory == null) {
            return;
        }
        Path file = dumpDirectory.resolve(internalName + ".class");
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes);
        } catch (IOException | RuntimeException e) {
            listener.onWarning(dotted, "cannot dump the rewritten class to " + file + ": " + e);
        }
    }

    /**
     * Hidden classes (lambda proxies, {@code Lookup.defineHiddenClass}) cannot be named by other
     * classes, and the JVM may offer them under a name with {@code +0x} or {@code /0x}.
     */
    static boolean isHidden(String className) {
        return className.contains("+0x") || className.contains("$$Lambda") || className.contains("/0x");
    }

    private static boolean isJdkLoader(ClassLoader loader) {
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }
}
