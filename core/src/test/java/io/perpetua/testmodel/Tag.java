package io.perpetua.testmodel;

/** A record: stored by value, inside the record of what refers to it, and rebuilt through its canonical constructor. */
public record Tag(String label, Node node) {
}
