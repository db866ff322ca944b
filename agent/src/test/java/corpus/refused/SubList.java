package corpus.refused;

/** Extends a class that extends a JDK collection: persistent-capable below it. */
public class SubList extends MyList {
    private static final long serialVersionUID = 1L;
    int more;

    public int both() {
        return extra + more;
    }
}
