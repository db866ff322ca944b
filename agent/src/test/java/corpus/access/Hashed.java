package corpus.access;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/** The serializable subclass of {@link HashedBase}: it writes the transient state of its super-class. */
public class Hashed extends HashedBase implements Serializable {
    private static final long serialVersionUID = 1L;

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        out.writeInt(count);
        for (int i = 0; i < count; i++) {
            out.writeObject(keys[i] == NULL ? null : keys[i]);
            out.writeObject(values[i]);
        }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        keys = new Object[8];
        values = new Object[8];
        for (int n = in.readInt(); n > 0; n--) {
            put(in.readObject(), in.readObject());
        }
    }
}
