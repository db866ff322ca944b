package corpus.refused;

import java.util.ArrayList;

/** Extends a JDK collection: persistent-capable, its contents stored with its own field. */
public class MyList extends ArrayList<String> {
    private static final long serialVersionUID = 1L;
    int extra = 3;

    public int extra() {
        return extra;
    }
}
