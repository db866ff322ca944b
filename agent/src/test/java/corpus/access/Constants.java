package corpus.access;

import java.lang.reflect.Field;

/**
 * Constants that enumerate themselves by reflection, as PostgreSQL's JDBC driver does in
 * {@code org.postgresql.core.Oid}: every public field is taken for a static int. The fields the
 * agent adds must not be among them.
 */
public final class Constants {
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int BOOL = 16;
    public static final int TOTAL;

    static {
        int total = 0;
        for (Field f : Constants.class.getFields()) {
            if (!f.getName().equals("TOTAL")) {
                try {
                    total += f.getInt(null);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        TOTAL = total;
    }

    private Constants() {
    }
}
