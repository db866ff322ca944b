package e2eapp;

import org.apache.commons.lang.mutable.MutableInt;
import org.apache.commons.lang.mutable.MutableObject;

/** The root of the end-to-end graph; holds instances of an unmodified third-party library too. */
public class Company {
    String name;
    Dept[] depts;
    MutableInt counter = new MutableInt(0);      // commons-lang 2.6, class file version 47
    MutableObject motto = new MutableObject("persist everything");

    public Company(String name, int depts, int staff) {
        this.name = name;
        this.depts = new Dept[depts];
        for (int d = 0; d < depts; d++) {
            this.depts[d] = new Dept(this, "dept" + d, staff);
        }
    }
}
