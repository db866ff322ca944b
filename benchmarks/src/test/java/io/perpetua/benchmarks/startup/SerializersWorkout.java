package io.perpetua.benchmarks.startup;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.gson.Gson;

import java.util.ArrayList;
import java.util.List;

/**
 * Jackson (through getters and setters) and Gson (through fields) write a graph of beans to
 * JSON and read it back. Under the agent the beans are rewritten, with fields and methods the
 * mappers must not pick up. Prints the JSON, which must be the same with the agent as without.
 */
public final class SerializersWorkout {
    private SerializersWorkout() {
    }

    /** A mapper whose output does not depend on hashing or declaration order. */
    static ObjectMapper jackson() {
        return JsonMapper.builder().enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
    }

    public static void main(String[] args) throws Exception {
        List<Customer> customers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            customers.add(Customer.sample(i));
        }
        ObjectMapper jackson = jackson();
        String json = jackson.writeValueAsString(customers);
        Customer[] back = jackson.readValue(json, Customer[].class);
        System.out.println(json);
        System.out.println(jackson.writeValueAsString(back));
        Gson gson = new Gson();
        String gsonJson = gson.toJson(customers.get(3));
        System.out.println(gsonJson);
        System.out.println(gson.toJson(gson.fromJson(gsonJson, Customer.class)));
    }
}
