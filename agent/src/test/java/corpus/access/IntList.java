package corpus.access;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A list of ints in the style of fastutil's {@code IntArrayList}: its elements live in a
 * transient array that it serializes itself, so its transient field is state.
 */
public class IntList implements Serializable {
    private static final long serialVersionUID = 1L;

    private transient int[] a = new int[2];
    private int size;

    public void add(int v) {
        if (size == a.length) {
            a = Arrays.copyOf(a, size * 2);
        }
        a[size++] = v;
    }

    public int sum() {
        int s = 0;
        for (int i = 0; i < size; i++) {
            s += a[i];
        }
        return s;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        for (int i = 0; i < size; i++) {
            out.writeInt(a[i]);
        }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        a = new int[Math.max(2, size)];
        for (int i = 0; i < size; i++) {
            a[i] = in.readInt();
        }
    }
}
