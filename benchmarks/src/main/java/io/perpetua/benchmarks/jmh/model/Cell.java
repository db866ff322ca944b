package io.perpetua.benchmarks.jmh.model;

/** A small object with one hot int field, for the field read and write benchmarks. */
public class Cell {
    int value;
    String label;

    Cell(int value) {
        this.value = value;
        this.label = "c" + value;
    }
}
