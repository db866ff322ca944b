package readersapp;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** A plain class the agent rewrites: a lazy array field, an embedded list, hash set and map. */
public class Part {
    int id;
    String name;
    Part[] links;
    List<Part> kids;
    Set<Tag> tags;
    Map<String, Integer> counts;

    Part(int id) {
        this.id = id;
        this.name = "part-" + id;
    }
}
