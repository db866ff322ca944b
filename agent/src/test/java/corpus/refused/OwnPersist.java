package corpus.refused;

/** Declares its own persist(String) and fetch(String): the agent must not add or replace them. */
public class OwnPersist {
    String saved;

    public String persist(String name) {
        saved = name;
        return "own " + name;
    }

    public static String fetch(String name) {
        return "own fetch " + name;
    }
}
