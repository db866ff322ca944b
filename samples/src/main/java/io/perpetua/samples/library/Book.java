package io.perpetua.samples.library;

import java.util.ArrayList;
import java.util.List;

/** A book and who borrowed it. A plain class. */
public class Book {
    private final String title;
    private final String author;
    private final List<String> borrowers = new ArrayList<>();

    public Book(String title, String author) {
        this.title = title;
        this.author = author;
    }

    public String title() {
        return title;
    }

    public void lendTo(String reader) {
        borrowers.add(reader);
    }

    @Override
    public String toString() {
        return title + " by " + author + (borrowers.isEmpty() ? "" : ", lent to " + String.join(", ", borrowers));
    }
}
