package corpus.access;

/** Generics and bridge methods. */
public class Box<T extends Comparable<T>> implements Comparable<Box<T>> {
    protected T value;

    public Box(T value) {
        this.value = value;
    }

    public T get() {
        return value;
    }

    public void set(T v) {
        value = v;
    }

    @Override
    public int compareTo(Box<T> o) {
        return value.compareTo(o.value);
    }
}
