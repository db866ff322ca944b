package corpus.graph;

/** Builds and walks graphs of Parts; every access here is from another class (static methods). */
public final class Graphs {
    private Graphs() {
    }

    /** n parts in a ring; each connects to the next and to the one after it (cycles). */
    public static Part build(int n) {
        Part[] parts = new Part[n];
        for (int i = 0; i < n; i++) {
            parts[i] = new Part(i, "t" + (i % 3), 2);
        }
        for (int i = 0; i < n; i++) {
            parts[i].to[0] = parts[(i + 1) % n];
            parts[i].to[1] = parts[(i + 2) % n];
        }
        return parts[0];
    }

    /** Follows the first connection k times, summing ids: touches exactly k + 1 parts. */
    public static long walk(Part root, int k) {
        long sum = 0;
        Part p = root;
        for (int i = 0; i <= k; i++) {
            sum += p.id + p.x;
            p = p.to[0];
        }
        return sum;
    }

    /** Depth-limited traversal of both connections (OO1 traversal shape). */
    public static long traverse(Part p, int depth) {
        long sum = p.id + (long) p.y + p.type.length();
        if (depth > 0) {
            for (Part q : p.to) {
                sum += traverse(q, depth - 1);
            }
        }
        return sum;
    }

    /** Writes the first k parts along the first connection. */
    public static void touch(Part root, int k) {
        Part p = root;
        for (int i = 0; i <= k; i++) {
            p.visited = true;
            p.x++;
            p = p.to[0];
        }
    }

    public static boolean visited(Part p) {
        return p.visited;
    }
}
