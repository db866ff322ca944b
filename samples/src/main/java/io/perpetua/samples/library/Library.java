package io.perpetua.samples.library;

import java.util.Map;
import java.util.TreeMap;

/** Books by title. A plain class. */
public class Library {
    private final Map<String, Book> books = new TreeMap<>();

    public void add(Book book) {
        books.put(book.title(), book);
    }

    public Book find(String title) {
        Book b = books.get(title);
        if (b == null) {
            throw new IllegalArgumentException("no book titled " + title);
        }
        return b;
    }

    public Iterable<Book> books() {
        return books.values();
    }
}
