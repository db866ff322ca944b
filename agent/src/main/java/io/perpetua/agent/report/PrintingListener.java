package io.perpetua.agent.report;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints the agent's diagnostics, one line per event, prefixed {@code [perpetua]}. Failures and
 * warnings are always printed, with the failure's stack trace; rewritten and skipped classes
 * only when verbose. Thread-safe (one {@code println} per event). Counts every event.
 */
public final class PrintingListener implements TransformListener {
    private final PrintStream out;
    private final boolean verbose;
    private final AtomicInteger rewritten = new AtomicInteger();
    private final AtomicInteger skipped = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();

    /**
     * @param out where to print, usually {@code System.err}; not null, not closed by this listener
     * @param verbose whether to print a line for every rewritten and skipped class
     */
    public PrintingListener(PrintStream out, boolean verbose) {
        this.out = out;
        this.verbose = verbose;
    }

    @Override
    public void onRewritten(String className, ClassLoader loader, String detail) {
        rewritten.incrementAndGet();
        if (verbose) {
            out.println("[perpetua] rewritten " + className + ": " + detail);
        }
    }

    @Override
    public void onSkipped(String className, ClassLoader loader, String reason) {
        skipped.incrementAndGet();
        if (verbose) {
            out.println("[perpetua] skipped " + className + ": " + reason);
        }
    }

    @Override
    public void onFailed(String className, ClassLoader loader, Throwable error) {
        failed.incrementAndGet();
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        // the message says whether the class was left as it was or given only the members that
        // other rewritten classes link against
        out.println("[perpetua] FAILED " + className + " (its instances cannot be made persistent): "
                + error.getMessage() + System.lineSeparator() + trace);
        out.flush();
    }

    @Override
    public void onWarning(String className, String message) {
        out.println("[perpetua] WARNING " + (className == null ? "" : className + ": ") + message);
    }

    @Override
    public void onNote(String message) {
        if (verbose) {
            out.println("[perpetua] " + message);
        }
    }

    /** @return how many classes were rewritten so far */
    public int rewritten() {
        return rewritten.get();
    }

    /** @return how many classes were skipped so far */
    public int skipped() {
        return skipped.get();
    }

    /** @return how many classes failed so far */
    public int failed() {
        return failed.get();
    }
}
