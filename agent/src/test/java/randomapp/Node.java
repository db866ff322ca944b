package randomapp;

import java.util.List;

/** A plain class: the agent makes it persistent-capable when it is loaded. */
public class Node {
    String name;
    int value;
    Node next;
    List<Node> children;
    Object any;
    /** Not stored: zero again in an object read back. */
    transient int visits;

    Node(String name, int value) {
        this.name = name;
        this.value = value;
    }
}
