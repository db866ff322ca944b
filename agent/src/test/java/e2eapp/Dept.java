package e2eapp;

public class Dept {
    final Company company;   // a final field, and a cycle back to the root
    String name;
    Employee head;
    Employee[] staff;
    int budget;

    Dept(Company company, String name, int staff) {
        this.company = company;
        this.name = name;
        this.staff = new Employee[staff];
        for (int i = 0; i < staff; i++) {
            this.staff[i] = new Employee(name + "-e" + i, 1000 + i * 10, null);
        }
        this.head = this.staff[0];
        for (int i = 1; i < staff; i++) {
            this.staff[i].manager = head;
        }
        this.budget = staff * 100;
    }

    /** Reads {@code staff} through {@code this}: the agent sends that read through the field's getter. */
    String staffNames() {
        StringBuilder out = new StringBuilder();
        for (Employee e : staff) {
            out.append(out.length() == 0 ? "" : ",").append(e.name);
        }
        return out.toString();
    }
}
