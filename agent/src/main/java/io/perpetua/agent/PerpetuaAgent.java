package io.perpetua.agent;

import io.perpetua.agent.report.PrintingListener;
import io.perpetua.agent.report.TransformListener;
import io.perpetua.agent.transform.ClassFilter;
import io.perpetua.agent.transform.ClassRewriter;
import io.perpetua.agent.transform.PerpetuaTransformer;
import io.perpetua.runtime.ArrayWrites;

import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.security.CodeSource;

/**
 * The agent's entry point: {@code java -javaagent:perpetua-agent.jar[=options] -cp app.jar Main}
 * (options: {@link AgentOptions}). Installs the {@link PerpetuaTransformer}, which rewrites every
 * application class as it loads, and reports application classes loaded before it started: those
 * cannot be rewritten any more (a loaded class cannot gain fields or methods).
 *
 * <p>After {@code premain}, the system property {@value #AGENT_PROPERTY} holds the agent's
 * version, so that the kernel can tell "the agent is not running" from "this class was not
 * rewritten" in its messages; and {@code perpetua.arrays} says whether the kernel may trust the
 * array write log ({@code io.perpetua.runtime.ArrayWrites}): {@code tracked} when every class is
 * rewritten (no include or exclude option), else why not. A class that then fails to rewrite,
 * or that was loaded before the agent, turns it off for the rest of the run.
 */
public final class PerpetuaAgent {

    /** System property set while the agent is installed; its value is the agent's version. */
    public static final String AGENT_PROPERTY = "perpetua.agent";

    private PerpetuaAgent() {
    }

    /**
     * Called by the JVM before {@code main} for {@code -javaagent}.
     *
     * @param args the text after {@code =} in {@code -javaagent:perpetua-agent.jar=...}, or null
     * @param instrumentation the JVM's
     * @throws IllegalArgumentException if an option is not valid (the JVM then does not start)
     */
    public static void premain(String args, Instrumentation instrumentation) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(args);
        } catch (IllegalArgumentException e) {
            // the JVM reports a failed premain as a fatal error, with this line deep in its trace
            System.err.println(e.getMessage() + "; the JVM will not start");
            throw e;
        }
        // The kernel may trust the array write log only if every class that can write an
        // array is rewritten: none excluded, none loaded before now (reportEarlyClasses). A
        // value given on the command line (-Dperpetua.arrays=compared) is the user's word.
        if (System.getProperty(ArrayWrites.PROPERTY) == null) {
            System.setProperty(ArrayWrites.PROPERTY, options.include().isEmpty() && options.exclude().isEmpty()
                    ? ArrayWrites.TRACKED : "compared: the agent's include or exclude option leaves classes unrewritten");
        }
        install(options, instrumentation);
    }

    /**
     * Called when the agent is loaded into a running JVM. Classes already loaded stay as they
     * were and are reported; classes loaded from now on are rewritten.
     *
     * @param args the agent's options, or null
     * @param instrumentation the JVM's
     * @throws IllegalArgumentException if an option is not valid
     */
    public static void agentmain(String args, Instrumentation instrumentation) {
        System.setProperty(ArrayWrites.PROPERTY, "compared: the agent was attached to a running JVM");
        install(AgentOptions.parse(args), instrumentation);
    }

    /**
     * Installs the transformer.
     *
     * @param options the parsed options
     * @param instrumentation the JVM's
     * @return the installed transformer (to remove it, tests only)
     */
    public static PerpetuaTransformer install(AgentOptions options, Instrumentation instrumentation) {
        PrintingListener listener = new PrintingListener(System.err, options.verbose());
        ClassFilter filter = new ClassFilter(options.include(), options.exclude());
        PerpetuaTransformer transformer = new PerpetuaTransformer(new ClassRewriter(filter), listener,
                options.failFast(), options.dump());
        transformer.moduleAccess((module, loader) -> grant(instrumentation, module, loader));
        transformer.warmUp(); // before it is registered: it then loads no class as it rewrites one
        loadOwnClasses(listener);
        instrumentation.addTransformer(transformer, false);
        String version = PerpetuaAgent.class.getPackage().getImplementationVersion();
        System.setProperty(AGENT_PROPERTY, version == null ? "unknown" : version);
        if (options.verbose()) {
            reportCoreLocation(listener);
        }
        reportEarlyClasses(instrumentation, filter, listener);
        return transformer;
    }

    /**
     * Loads every class of the agent (with the ASM inside it) and perpetua-core's
     * {@code Persistent}, before the transformer is registered: a class the JVM loads while the
     * transformer runs is not offered to it again (the JDK does not call a transformer from
     * within itself), but it is offered to the transformers of other agents registered after this
     * one, and what those load then in their turn is never rewritten, while the classes of
     * theirs the agent did rewrite call the generated accessors of those (JaCoCo's agent after
     * this one recorded no coverage: {@code NoSuchMethodError} inside its transformer, which the
     * JVM swallows). Loaded, not initialized, after {@link PerpetuaTransformer#warmUp} has run the
     * common paths: about 60 classes more than the first rewritten class loads, 20 to 30 ms of CPU
     * (benchmarks/results/agent-startup.txt).
     */
    static void loadOwnClasses(TransformListener listener) {
        ClassLoader loader = PerpetuaAgent.class.getClassLoader();
        String own = PerpetuaAgent.class.getPackageName().replace('.', '/') + "/";
        java.util.List<String> names = new java.util.ArrayList<>();
        try {
            CodeSource source = PerpetuaAgent.class.getProtectionDomain().getCodeSource();
            java.nio.file.Path location = java.nio.file.Path.of(source.getLocation().toURI());
            if (java.nio.file.Files.isDirectory(location)) { // the agent's classes, not in a jar (tests)
                try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(location.resolve(own))) {
                    files.map(f -> location.relativize(f).toString().replace(java.io.File.separatorChar, '/'))
                            .forEach(names::add);
                }
            } else {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(location.toFile())) {
                    jar.stream().map(java.util.jar.JarEntry::getName).filter(n -> n.startsWith(own)).forEach(names::add);
                }
            }
        } catch (Exception e) {
            listener.onWarning(null, "cannot list the agent's own classes to load them before it starts (" + e
                    + "): a class another agent loads while this one rewrites a class may be left unrewritten");
        }
        names.add("io/perpetua/runtime/Persistent.class");
        for (String name : names) {
            if (name.endsWith(".class") && !name.endsWith("module-info.class") && !name.startsWith(own + "cli/")) {
                try {
                    Class.forName(name.substring(0, name.length() - ".class".length()).replace('/', '.'), false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    listener.onWarning(null, "cannot load the agent's class " + name + " before it starts: " + e);
                }
            }
        }
    }

    /**
     * Application classes loaded before the transformer was installed (by another agent's
     * premain, or before a dynamic attach) cannot be rewritten: warn about each, since their
     * instances cannot be made persistent and their field accesses are not checked.
     */
    static void reportEarlyClasses(Instrumentation instrumentation, ClassFilter filter, TransformListener listener) {
        for (Class<?> c : instrumentation.getAllLoadedClasses()) {
            ClassLoader loader = c.getClassLoader();
            if (loader == null || loader == ClassLoader.getPlatformClassLoader() || c.isArray() || c.isPrimitive()
                    || c.isHidden() || c.isSynthetic()) {
                continue;
            }
            String internal = c.getName().replace('.', '/');
            if (filter.reject(internal) != null) {
                continue;
            }
            System.setProperty(ArrayWrites.PROPERTY, "compared: " + c.getName() + " was loaded before the agent started");
            listener.onWarning(c.getName(), "was loaded before the Perpetua agent started, so it is not rewritten:"
                    + (Throwable.class.isAssignableFrom(c) ? "" : " its instances cannot be made persistent"
                    + " (persisting one fails with NotPersistableException), and") // an exception never is rewritten
                    + " its field accesses are not checked. Load it after the agent"
                    + " (put -javaagent:perpetua-agent.jar first), or exclude it.");
        }
    }

    /**
     * Makes a named module read the module of perpetua-core its class loader sees (an automatic
     * module on the module path, or the class path's unnamed module, where {@code -javaagent}
     * puts the agent's copy), and opens its packages to that module: a modular application's
     * domain classes, rewritten, implement {@code io.perpetua.runtime.Persistent}, and the kernel
     * reads their records and enum constants and makes their objects. Nothing is changed that the
     * module grants already.
     */
    static void grant(Instrumentation instrumentation, Module module, ClassLoader loader) {
        Module core;
        try {
            core = Class.forName("io.perpetua.runtime.Persistent", false, loader).getModule();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("its class loader does not find perpetua-core", e);
        }
        java.util.Map<String, java.util.Set<Module>> opens = new java.util.HashMap<>();
        for (String p : module.getPackages()) {
            if (!module.isOpen(p, core)) {
                opens.put(p, java.util.Set.of(core));
            }
        }
        boolean reads = module.canRead(core);
        if (!reads || !opens.isEmpty()) {
            instrumentation.redefineModule(module, reads ? java.util.Set.of() : java.util.Set.of(core), java.util.Map.of(),
                    opens, java.util.Set.of(), java.util.Map.of());
        }
    }

    /** Says which copy of perpetua-core the application's class loader sees. */
    private static void reportCoreLocation(TransformListener listener) {
        URL core = ClassLoader.getSystemResource("io/perpetua/runtime/Persistent.class");
        CodeSource agent = PerpetuaAgent.class.getProtectionDomain().getCodeSource();
        String agentJar = agent == null || agent.getLocation() == null ? "?" : agent.getLocation().toString();
        listener.onNote("perpetua-core classes are loaded from " + core + " (agent jar: " + agentJar + ")");
    }
}
