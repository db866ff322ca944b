package corpus.access;

public class IntBox extends Box<Integer> {
    public IntBox(int v) {
        super(v);
    }

    @Override
    public Integer get() { // covariant override: bridge method get()Comparable
        return value + 1;
    }

    @Override
    public void set(Integer v) { // bridge set(Comparable)
        value = v * 10;
    }
}
