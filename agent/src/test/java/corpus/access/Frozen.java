package corpus.access;

import java.io.Serializable;

/** Final fields, arrays of user types, a cycle; Serializable without an explicit serialVersionUID. */
public class Frozen implements Serializable {
    private final int a;
    private final String b;
    final Frozen[] peers;
    Frozen partner;
    transient int cache = -1;

    public Frozen(int a, String b, int peers) {
        this.a = a;
        this.b = b;
        this.peers = new Frozen[peers];
    }

    public static Frozen cycle() {
        Frozen x = new Frozen(1, "x", 2);
        Frozen y = new Frozen(2, "y", 1);
        x.partner = y;
        y.partner = x;
        x.peers[0] = y;
        x.peers[1] = x;
        y.peers[0] = x;
        return x;
    }

    public String walk() {
        StringBuilder sb = new StringBuilder();
        Frozen f = this;
        for (int i = 0; i < 4; i++) {
            sb.append(f.a).append(f.b).append(f.peers.length).append(' ');
            f = f.partner;
        }
        return sb.append(peers[1] == this).append(peers[0].partner == this).toString();
    }

    public int a() {
        return a;
    }

    private static final class Hidden implements Serializable {
        int v;
    }

    public static Class<?> hiddenClass() {
        return Hidden.class;
    }
}
