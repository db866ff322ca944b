package e2eapp.early;

import java.lang.instrument.Instrumentation;

/** A first -javaagent that loads an application class before the Perpetua agent's premain. */
public final class EarlyAgent {
    private EarlyAgent() {
    }

    public static void premain(String args, Instrumentation inst) throws Exception {
        Class.forName("e2eapp.early.Early");
    }
}
