package corpus.refused;

import java.util.Date;

/** Extends Date, whose time is a transient field its writeObject saves: refused. */
public class Deadline extends Date {
    String what;
}
