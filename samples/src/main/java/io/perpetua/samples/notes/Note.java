package io.perpetua.samples.notes;

import java.time.LocalDate;

/** One note. A plain class: nothing about persistence in it. */
public class Note {
    private final String text;
    private final LocalDate written;
    private boolean done;

    public Note(String text, LocalDate written) {
        this.text = text;
        this.written = written;
    }

    public void markDone() {
        done = true;
    }

    @Override
    public String toString() {
        return (done ? "[x] " : "[ ] ") + text + "  (" + written + ")";
    }
}
