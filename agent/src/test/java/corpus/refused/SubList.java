package corpus.refused;

/** Extends a refused class: refused too, with the reason. */
public class SubList extends MyList {
    private static final long serialVersionUID = 1L;
    int more;

    /** Field accesses to a refused class stay direct. */
    public int both() {
        return extra + more;
    }
}
