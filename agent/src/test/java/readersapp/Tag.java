package readersapp;

/**
 * Equal by its label, as an entity is by its key; with no field that can hold a container, it
 * is stored in the record of the part whose hash set holds it, and filled from there when the
 * set hashes it.
 */
public class Tag {
    final String label;
    int weight;

    Tag(String label, int weight) {
        this.label = label;
        this.weight = weight;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tag other && other.label.equals(label);
    }

    @Override
    public int hashCode() {
        return label.hashCode();
    }
}
