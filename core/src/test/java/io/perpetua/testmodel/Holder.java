package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.PersistentClasses;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;
import io.perpetua.runtime.Residency;

/**
 * An object with array fields, written by hand as the agent rewrites one: each persistent array
 * field has a lazy marker ({@code $perpetua$lazy$<field>}) and a getter that decodes the field
 * when it finds the marker there.
 */
public class Holder extends Base implements Cloneable {
    static {
        PersistentClasses.register(Holder.class, () -> new Holder((HollowFactory) null));
    }

    public static final String[] $perpetua$lazy$labels = new String[0];
    public static final Leaf[] $perpetua$lazy$leaves = new Leaf[0];
    public static final Node[] $perpetua$lazy$nodes = new Node[0];
    public static final int[] $perpetua$lazy$numbers = new int[0];

    private String label;
    private String[] labels;
    private Leaf[] leaves;
    private Node[] nodes;
    private int[] numbers;

    protected Holder(HollowFactory proxy) {
    }

    public Holder(String label, Node[] nodes, int[] numbers, String[] labels) {
        this.label = label;
        this.nodes = nodes;
        this.numbers = numbers;
        this.labels = labels;
    }

    /** A holder of leaves only: they become its satellites. */
    public Holder(String label, Leaf[] leaves) {
        this.label = label;
        this.leaves = leaves;
    }

    public String label() {
        readCheck();
        return label;
    }

    public void label(String label) {
        writeCheck();
        this.label = label;
    }

    public Node[] nodes() {
        readCheck();
        if (nodes == $perpetua$lazy$nodes) {
            Residency.materialize(this, $perpetua$lazy$nodes);
        }
        return nodes;
    }

    public void nodes(Node[] nodes) {
        writeCheck();
        this.nodes = nodes;
    }

    public Leaf[] leaves() {
        readCheck();
        if (leaves == $perpetua$lazy$leaves) {
            Residency.materialize(this, $perpetua$lazy$leaves);
        }
        return leaves;
    }

    public void leaves(Leaf[] leaves) {
        writeCheck();
        this.leaves = leaves;
    }

    public int[] numbers() {
        readCheck();
        if (numbers == $perpetua$lazy$numbers) {
            Residency.materialize(this, $perpetua$lazy$numbers);
        }
        return numbers;
    }

    public void numbers(int[] numbers) {
        writeCheck();
        this.numbers = numbers;
    }

    public String[] labels() {
        readCheck();
        if (labels == $perpetua$lazy$labels) {
            Residency.materialize(this, $perpetua$lazy$labels);
        }
        return labels;
    }

    public void labels(String[] labels) {
        writeCheck();
        this.labels = labels;
    }

    /** @return a shallow copy, passed to the hook the agent puts after every {@code clone()} call */
    public Holder copy() {
        readCheck();
        return (Holder) Residency.afterClone(copyUnhooked(), this);
    }

    /**
     * @return a shallow copy made by {@code Object.clone()} with no check and no hook, as code the
     *         agent did not rewrite (a library's super-class) makes one: it holds this object's
     *         state and handle, hollow if this object is
     */
    public Holder copyUnhooked() {
        try {
            return (Holder) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }

    /** @return the field as it is, without any check: what reflection would see */
    public Object rawNodes() {
        return nodes;
    }

    /** @return the field as it is, without any check */
    public Object rawLeaves() {
        return leaves;
    }

    /** @return the field as it is, without any check */
    public Object rawNumbers() {
        return numbers;
    }

    /** @return true if no field holds its lazy marker */
    public boolean allDecoded() {
        return $perpetua$state != ObjectState.HOLLOW && nodes != $perpetua$lazy$nodes
                && numbers != $perpetua$lazy$numbers && labels != $perpetua$lazy$labels && leaves != $perpetua$lazy$leaves;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
        super.$perpetua$write(out);
        out.writeObject(label);
        out.writeObject(labels);
        out.writeObject(leaves);
        out.writeObject(nodes);
        out.writeObject(numbers);
    }

    @Override
    public void $perpetua$read(RecordReader in) {
        super.$perpetua$read(in);
        label = (String) in.readObject();
        labels = (String[]) in.readObject();
        leaves = (Leaf[]) in.readObject();
        nodes = (Node[]) in.readObject();
        numbers = (int[]) in.readObject();
    }
}
