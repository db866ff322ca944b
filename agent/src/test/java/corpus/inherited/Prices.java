package corpus.inherited;

import java.util.HashMap;

/** Extends a JDK map, with a field; {@link SalePrices} extends it in turn. */
public class Prices extends HashMap<String, Integer> {
    private static final long serialVersionUID = 1L;
    String currency = "EUR";

    public String currency() {
        return currency;
    }
}
