package randomapp;

/** A plain class with a final field and no field that can hold a container (a satellite). */
public class Leaf {
    final String label;
    int weight;
    Node peer;

    Leaf(String label, int weight) {
        this.label = label;
        this.weight = weight;
    }
}
