package corpus.refused;

import java.util.LinkedHashMap;
import java.util.Map;

/** A cache in access order: rewritten, but its instances cannot persist (the order would be lost). */
public class AccessOrdered extends LinkedHashMap<String, Integer> {
    private static final long serialVersionUID = 1L;
    final int max;

    public AccessOrdered(int max) {
        super(16, 0.75f, true);
        this.max = max;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
        return size() > max;
    }
}
