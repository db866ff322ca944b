package io.perpetua.testmodel;

import io.perpetua.runtime.HollowFactory;
import io.perpetua.runtime.PersistentClasses;

import java.util.Comparator;

/** A persistable comparator (a rewritten class with no fields), for sorted collections. */
public class ByLength extends Base implements Comparator<String> {
    static {
        PersistentClasses.register(ByLength.class, () -> new ByLength((HollowFactory) null));
    }

    protected ByLength(HollowFactory proxy) {
    }

    public ByLength() {
    }

    @Override
    public int compare(String a, String b) {
        readCheck();
        int c = Integer.compare(a.length(), b.length());
        return c != 0 ? c : a.compareTo(b);
    }
}
