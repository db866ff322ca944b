package randomapp;

/** A plain class with array fields: the agent reads them lazily. */
public class Holder {
    String label;
    Node[] nodes;
    int[] numbers;
    String[] labels;
    Leaf[] leaves;

    Holder(String label, Leaf[] leaves) {
        this.label = label;
        this.leaves = leaves;
    }

    Holder(String label, Node[] nodes, int[] numbers, String[] labels) {
        this.label = label;
        this.nodes = nodes;
        this.numbers = numbers;
        this.labels = labels;
    }
}
