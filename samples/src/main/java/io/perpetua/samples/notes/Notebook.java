package io.perpetua.samples.notes;

import java.util.ArrayList;
import java.util.List;

/** The notes, in the order they were written. A plain class. */
public class Notebook {
    private final List<Note> notes = new ArrayList<>();

    public void add(Note note) {
        notes.add(note);
    }

    public Note get(int number) {
        if (number < 1 || number > notes.size()) {
            throw new IllegalArgumentException("there is no note " + number + "; there are " + notes.size());
        }
        return notes.get(number - 1);
    }

    public List<Note> all() {
        return notes;
    }
}
