package io.perpetua.testmodel;

/** A class the agent did not rewrite (as if loaded before it started). */
public class Plain {
    public int x = 1;
}
