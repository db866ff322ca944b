package corpus.refused;

import java.util.AbstractList;

/** Extends a JDK class without persistent state and with an accessible no-arg constructor: handled. */
public class Fixed extends AbstractList<String> {
    String[] items;

    public Fixed(String... items) {
        this.items = items;
    }

    @Override
    public String get(int index) {
        return items[index];
    }

    @Override
    public int size() {
        return items.length;
    }
}
