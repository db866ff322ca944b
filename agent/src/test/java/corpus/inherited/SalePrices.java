package corpus.inherited;

/**
 * A subclass of a class extending a JDK map: Java serialization of a hollow one must fill it
 * first, though the {@code writeReplace} its super-class gets is private and does not apply to it.
 */
public class SalePrices extends Prices {
    private static final long serialVersionUID = 1L;
    int discount;

    public int discount() {
        return discount;
    }
}
