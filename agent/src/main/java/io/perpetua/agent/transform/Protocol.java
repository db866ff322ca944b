package io.perpetua.agent.transform;

/**
 * The names of the core protocol ({@code io.perpetua.runtime}, {@code io.perpetua.Perpetua}) that
 * generated code refers to, as internal names and descriptors. The agent never loads these
 * classes itself: the generated code links against whatever copy the rewritten class's own
 * loader sees. A unit test checks every name against the real core classes.
 */
final class Protocol {
    static final String PREFIX = "$perpetua$";

    static final String PERSISTENT = "io/perpetua/runtime/Persistent";
    static final String OBJECT_STATE = "io/perpetua/runtime/ObjectState";
    static final String OBJECT_HANDLE = "io/perpetua/runtime/ObjectHandle";
    static final String RESIDENCY = "io/perpetua/runtime/Residency";
    static final String RECORD_WRITER = "io/perpetua/runtime/RecordWriter";
    static final String RECORD_READER = "io/perpetua/runtime/RecordReader";
    static final String HOLLOW_FACTORY = "io/perpetua/runtime/HollowFactory";
    static final String PERSISTENT_CLASSES = "io/perpetua/runtime/PersistentClasses";
    static final String PERPETUA = "io/perpetua/Perpetua";

    static final String STATE_FIELD = "$perpetua$state";
    static final String STATE_DESC = "B";
    static final String HANDLE_FIELD = "$perpetua$handle";
    static final String HANDLE_DESC = "L" + OBJECT_HANDLE + ";";

    static final String WRITE = "$perpetua$write";
    static final String WRITE_DESC = "(L" + RECORD_WRITER + ";)V";
    static final String READ = "$perpetua$read";
    static final String READ_DESC = "(L" + RECORD_READER + ";)V";

    /** {@code Residency.load(Persistent)} and {@code Residency.beforeWrite(Persistent)}. */
    static final String LOAD = "load";
    static final String BEFORE_WRITE = "beforeWrite";
    static final String SLOW_PATH_DESC = "(L" + PERSISTENT + ";)V";
    /**
     * {@code Residency.beforeTransientWrite(Persistent)}: the setter of a transient field; with
     * {@link #TRANSIENT_REFERENCE_DESC}, the one of a transient reference field, given the
     * field's value before and after.
     */
    static final String BEFORE_TRANSIENT_WRITE = "beforeTransientWrite";
    static final String TRANSIENT_REFERENCE_DESC = "(L" + PERSISTENT + ";Ljava/lang/Object;Ljava/lang/Object;)V";
    /** {@code PersistentClasses.storesTransientFields(Class)}: the codec's test for its transient fields. */
    static final String STORES_TRANSIENTS = "storesTransientFields";
    static final String STORES_TRANSIENTS_DESC = "(Ljava/lang/Class;)Z";

    /** {@code ObjectState.HOLLOW}: the only state whose reads take the slow path. */
    static final int HOLLOW = -2;

    /** The creation proxy: a constructor whose only parameter type no user constructor has. */
    static final String PROXY_CTOR_DESC = "(L" + OBJECT_STATE + ";)V";
    /** The static method the creation proxy calls ({@code PersistentClasses.CREATION_PROXY}). */
    static final String NEW_HOLLOW = "$perpetua$new";
    static final String NEW_HOLLOW_DESC = "()L" + PERSISTENT + ";";
    /** {@code PersistentClasses.register(Class, MethodHandles.Lookup)}: the proxy is made when first needed. */
    static final String REGISTER = "register";
    static final String REGISTER_DESC = "(Ljava/lang/Class;Ljava/lang/invoke/MethodHandles$Lookup;)V";

    /** Per-class residency check called first by every instance method. */
    static final String RESIDENT = "$perpetua$resident";

    /**
     * In a class extending a JDK collection or map ({@link InheritedContainer}): the write check
     * as a private static method, the fill of the JDK part from its stored contents, and the
     * runtime's helper that takes those contents.
     */
    static final String WRITING = "$perpetua$writing";
    static final String FILL = "$perpetua$fill";
    static final String FILL_DESC = "(Ljava/lang/Object;)V";
    static final String INHERITED_CONTENTS = "io/perpetua/runtime/InheritedContents";
    static final String INHERITED_VIEWS = "io/perpetua/runtime/InheritedViews";

    /**
     * The static field holding a persistent array field's lazy marker: a zero-length array of
     * the field's type that a fill leaves in the field until its getter asks for the value.
     */
    static final String LAZY = "$perpetua$lazy$";
    /** {@code Residency.materialize(Persistent, Object)}: decodes the field whose marker it is given. */
    static final String MATERIALIZE = "materialize";
    static final String MATERIALIZE_DESC = "(L" + PERSISTENT + ";Ljava/lang/Object;)V";
    /** {@code Residency.beforeSerialization(Persistent)}: first in {@code writeObject}, fills the object whole. */
    static final String BEFORE_SERIALIZATION = "beforeSerialization";
    /**
     * {@code Residency.filling(Persistent)}: first in a {@code LinkedHashMap} subclass's
     * {@code removeEldestEntry}, which answers false while the store fills the object.
     */
    static final String FILLING = "filling";
    static final String FILLING_DESC = "(L" + PERSISTENT + ";)Z";
    /** {@code Residency.afterClone(Object copy, Object original)}: a clone of a persistent object made transient. */
    static final String AFTER_CLONE = "afterClone";
    static final String AFTER_CLONE_DESC = "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;";

    /**
     * {@code PersistentClasses.REWRITE_REFUSAL}: the static field, holding the reason, of a class
     * given only the members other rewritten classes link against.
     */
    static final String REFUSED = "$perpetua$refused";

    static final String GET = "$perpetua$get$";
    static final String SET = "$perpetua$set$";

    private Protocol() {
    }

    /** @return the descriptor of the getter of a field {@code desc} declared in {@code owner} */
    static String getterDescriptor(String owner, String desc) {
        return "(L" + owner + ";)" + desc;
    }

    /** @return the descriptor of the setter of a field {@code desc} declared in {@code owner} */
    static String setterDescriptor(String owner, String desc) {
        return "(L" + owner + ";" + desc + ")V";
    }
}
