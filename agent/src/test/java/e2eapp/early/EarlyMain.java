package e2eapp.early;

import io.perpetua.NotPersistableException;
import io.perpetua.PersistentStore;

/** Tries to persist an instance of a class loaded before the agent started. */
public final class EarlyMain {
    private EarlyMain() {
    }

    public static void main(String[] args) {
        try (PersistentStore store = PersistentStore.open(args[0])) {
            store.beginTransaction();
            try {
                store.persist(new Early(), "early");
                store.commitTransaction();
                System.out.println("committed (silent loss!)");
            } catch (NotPersistableException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }
}
