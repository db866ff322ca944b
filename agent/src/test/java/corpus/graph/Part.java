package corpus.graph;

/** An OO1-style part: a few primitive fields and connections to other parts. */
public class Part {
    int id;
    String type;
    long x;
    double y;
    boolean visited;
    Part[] to;

    public Part(int id, String type, int fanOut) {
        this.id = id;
        this.type = type;
        this.x = id * 3L;
        this.y = id / 2.0;
        this.to = new Part[fanOut];
    }

    public int id() {
        return id;
    }

    /** Reads an array field through {@code this}. */
    public int fanOut() {
        return to.length;
    }
}
