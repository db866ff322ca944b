package corpus.access;

/**
 * A map in the style of Commons Collections' {@code AbstractHashedMap}: not serializable itself,
 * its state in transient fields that its serializable subclass writes ({@link Hashed}), a
 * {@code new Object()} marker for the null key, and a view made on demand.
 */
public abstract class HashedBase {
    static final Object NULL = new Object();

    transient Object[] keys = new Object[8];
    transient Object[] values = new Object[8];
    transient int count;
    transient KeyView view;

    public void put(Object key, Object value) {
        Object k = key == null ? NULL : key;
        for (int i = 0; i < count; i++) {
            if (keys[i].equals(k)) {
                values[i] = value;
                return;
            }
        }
        keys[count] = k;
        values[count++] = value;
    }

    public Object get(Object key) {
        Object k = key == null ? NULL : key;
        for (int i = 0; i < count; i++) {
            if (keys[i] == k || keys[i].equals(k)) {
                return values[i];
            }
        }
        return null;
    }

    /** The keys, as a view made when first asked for and kept. */
    public KeyView keys() {
        if (view == null) {
            view = new KeyView();
        }
        return view;
    }

    /** A view of its map: an inner class whose state is its outer object. */
    public class KeyView {
        public int size() {
            return count;
        }
    }
}
