package corpus.refused;

/** Extends Thread: refused. */
public class Worker extends Thread {
    int jobs;
}
