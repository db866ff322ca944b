package e2eapp.early;

/** Loaded by {@link EarlyAgent} before the Perpetua agent starts, so it cannot be rewritten. */
public class Early {
    String state = "early";
}
