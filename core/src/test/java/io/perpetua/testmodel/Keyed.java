package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;

/**
 * An entity equal by its key, as applications write them: {@code equals}, {@code hashCode} and
 * {@code compareTo} read the key, so a hashed or sorted container of these read from the store
 * runs their code (and fills them) while it is filled. It has no field that can hold a
 * container, so the kernel may store it in the record of the object whose embedded container
 * holds it (a satellite); {@link KeyedNode} has one, and a record of its own.
 */
public class Keyed extends Base implements Comparable<Keyed> {
    static {
        PersistentClasses.register(Keyed.class, () -> new Keyed((HollowFactory) null));
    }

    private String key;

    protected Keyed(HollowFactory proxy) {
    }

    public Keyed(String key) {
        this.key = key;
    }

    public String key() {
        readCheck();
        return key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Keyed other && other.getClass() == getClass() && other.key().equals(key());
    }

    @Override
    public int hashCode() {
        return key().hashCode();
    }

    @Override
    public int compareTo(Keyed other) {
        return key().compareTo(other.key());
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + key() + ")";
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(key);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        key = (String) in.readObject();
    }
}
