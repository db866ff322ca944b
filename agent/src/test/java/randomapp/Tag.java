package randomapp;

/** A record: the agent leaves it alone, and the kernel stores it by value, through its canonical constructor. */
public record Tag(String label, Node node) {
}
