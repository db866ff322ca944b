package corpus.access;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Objects;

/**
 * An open-addressing hash set in the style of fastutil's and Guava's: its table is a transient
 * array, which it writes itself by re-inserting the elements when read back.
 */
public class SmallHashSet extends AbstractSet<Object> implements Serializable {
    private static final long serialVersionUID = 1L;

    private transient Object[] table = new Object[16];
    private int size;

    @Override
    public boolean add(Object e) {
        int i = slot(e);
        while (table[i] != null) {
            if (table[i].equals(e)) {
                return false;
            }
            i = (i + 1) & (table.length - 1);
        }
        table[i] = e;
        size++;
        return true;
    }

    @Override
    public boolean contains(Object e) {
        for (int i = slot(e); table[i] != null; i = (i + 1) & (table.length - 1)) {
            if (table[i].equals(e)) {
                return true;
            }
        }
        return false;
    }

    private int slot(Object e) {
        return Objects.hashCode(e) & (table.length - 1);
    }

    @Override
    public Iterator<Object> iterator() {
        return Arrays.stream(table).filter(Objects::nonNull).iterator();
    }

    @Override
    public int size() {
        return size;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        for (Object e : this) {
            out.writeObject(e);
        }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        int n = size;
        size = 0;
        table = new Object[16];
        for (int i = 0; i < n; i++) {
            add(in.readObject());
        }
    }
}
