package io.perpetua.benchmarks.startup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A plain bean, as JSON mappers expect one (no-argument constructor, getters and setters):
 * rewritten under the agent, serialized by Jackson and Gson in {@link SerializersWorkout} and
 * {@link PersistedJsonWorkout}.
 */
public class Customer {
    private String name;
    private int id;
    private List<Order> orders = new ArrayList<>();
    private Map<String, Integer> scores = new HashMap<>();
    private int[] codes = new int[0];
    private Customer referrer;

    public Customer() {
    }

    public Customer(String name, int id) {
        this.name = name;
        this.id = id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public int getId() {
        return id;
    }

    public void setId(int id) {
        this.id = id;
    }

    public List<Order> getOrders() {
        return orders;
    }

    public void setOrders(List<Order> orders) {
        this.orders = orders;
    }

    public Map<String, Integer> getScores() {
        return scores;
    }

    public void setScores(Map<String, Integer> scores) {
        this.scores = scores;
    }

    public int[] getCodes() {
        return codes;
    }

    public void setCodes(int[] codes) {
        this.codes = codes;
    }

    public Customer getReferrer() {
        return referrer;
    }

    public void setReferrer(Customer referrer) {
        this.referrer = referrer;
    }

    /** An order line of a {@link Customer}. */
    public static class Order {
        private String item;
        private long quantity;
        private double price;

        public Order() {
        }

        public Order(String item, long quantity, double price) {
            this.item = item;
            this.quantity = quantity;
            this.price = price;
        }

        public String getItem() {
            return item;
        }

        public void setItem(String item) {
            this.item = item;
        }

        public long getQuantity() {
            return quantity;
        }

        public void setQuantity(long quantity) {
            this.quantity = quantity;
        }

        public double getPrice() {
            return price;
        }

        public void setPrice(double price) {
            this.price = price;
        }
    }

    /** @return customer {@code n} of a small fixed set: orders, scores, codes, and the one before as referrer */
    static Customer sample(int n) {
        Customer c = new Customer("customer-" + n, n);
        for (int i = 0; i < 3 + n % 3; i++) {
            c.orders.add(new Order("item-" + (n * 7 + i) % 11, i + 1L, 0.25 * (n + i)));
        }
        c.scores.put("loyalty", n * 3 % 10);
        c.scores.put("risk", n % 4);
        c.codes = new int[] {n, n * n, -n};
        if (n > 0) {
            c.referrer = new Customer("customer-" + (n - 1), n - 1);
        }
        return c;
    }
}
