package corpus.refused;

import java.util.concurrent.ConcurrentLinkedQueue;

/** Extends ConcurrentLinkedQueue, whose nodes are transient fields its writeObject saves: refused. */
public class Jobs extends ConcurrentLinkedQueue<String> {
    String owner;
}
