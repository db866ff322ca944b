package randomapp;

/**
 * A plain class with a final field and no field that can hold a container (a satellite). Equal
 * by its label, as an entity is by its key: a hash set of leaves read back from the store hashes
 * each one, which fills it while the set is being filled.
 */
public class Leaf {
    final String label;
    int weight;
    Node peer;

    Leaf(String label, int weight) {
        this.label = label;
        this.weight = weight;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Leaf other && other.label.equals(label);
    }

    @Override
    public int hashCode() {
        return label.hashCode();
    }
}
