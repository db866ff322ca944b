package e2eapp;

public class Employee {
    String name;
    int salary;
    Employee manager;

    Employee(String name, int salary, Employee manager) {
        this.name = name;
        this.salary = salary;
        this.manager = manager;
    }

    public String line() {
        return name + " salary=" + salary + " manager=" + (manager == null ? "-" : manager.name);
    }
}
