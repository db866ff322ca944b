package io.perpetua;

/**
 * A class changed since its objects were stored in a way Perpetua cannot evolve: a field
 * changed its kind so that a stored value may not fit (a {@code long} become an {@code int}, an
 * {@code int} a {@code float}; lossless widenings, boxing and unboxing are read), a reference
 * field's type changed so that a stored value no longer fits it (a {@code String} field become
 * an {@code Integer} one), or the class itself can no longer be found (a renamed class is found
 * once the application declares it in {@code META-INF/perpetua/renamed-classes.properties}, one
 * {@code old.Name = new.Name} per line; a renamed field or enum constant,
 * {@code Name#oldName = newName}). Added fields (they take their default value), removed fields
 * (they are dropped) and fields moved within the class hierarchy (they keep their value) are not
 * errors. The object read is left as it was (hollow) and the store is not changed.
 */
public class IncompatibleClassChangeException extends PersistentStoreException {
    private static final long serialVersionUID = 1L;
    private final String className;
    private final String fieldName;

    /**
     * @param className the class whose stored form no longer fits, never null
     * @param fieldName the field at fault, or null when the class as a whole is at fault
     * @param detail what changed, never null
     */
    public IncompatibleClassChangeException(String className, String fieldName, String detail) {
        this(className, fieldName, detail, null);
    }

    /**
     * @param className the class whose stored form no longer fits, never null
     * @param fieldName the field at fault, or null when the class as a whole is at fault
     * @param detail what changed, never null
     * @param cause the underlying failure, may be null
     */
    public IncompatibleClassChangeException(String className, String fieldName, String detail, Throwable cause) {
        super("class " + className + (fieldName == null ? "" : ", field " + fieldName)
                + " changed incompatibly since it was stored: " + detail, cause);
        this.className = className;
        this.fieldName = fieldName;
    }

    /** @return the class whose stored form no longer fits, never null */
    public String className() {
        return className;
    }

    /** @return the field at fault, or null when the class as a whole is at fault */
    public String fieldName() {
        return fieldName;
    }
}
