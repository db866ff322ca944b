package io.perpetua.agent.transform;

import org.objectweb.asm.Type;

/**
 * What a method the agent does not rewrite (the JDK's) may do with the arrays a call passes to it
 * or gets back from it, for the array write barrier ({@link ArrayWriteBarrier}). Rewritten code
 * logs its own array stores; a JDK method does not, so the call site logs for it: an array the
 * method writes during the call is logged as written, and one it may keep and write later (a
 * {@code ByteBuffer.wrap}, an {@code Arrays.asList}, a {@code ByteBuffer.array()} handed back)
 * is logged as escaped, which makes every commit compare it from then on.
 *
 * <p>Unknown JDK methods are taken to keep and write every array they touch (escaped): that is
 * always safe, only slower. The known ones below are those whose behaviour the JDK specifies:
 * they read their arrays, or write them only during the call, and what they return is new.
 * Stateless.
 */
final class ArrayUse {
    private ArrayUse() {
    }

    /** What happens to one array. */
    enum Action {
        /** Read at most, during the call, or a new array handed back: nothing to log. */
        NONE,
        /** Written during the call only: logged as written. */
        WRITTEN,
        /** May be kept and written later by code that does not log: logged as escaped. */
        ESCAPED
    }

    /**
     * @param params by parameter of the descriptor (the receiver not counted)
     * @param result for the returned value
     */
    record Rule(Action[] params, Action result) {
        boolean isNone() {
            return result == Action.NONE && !logsParameters();
        }

        /** @return whether some parameter is logged */
        boolean logsParameters() {
            for (Action a : params) {
                if (a != Action.NONE) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * @return whether the method writes an array it takes as an {@code Object} (whose descriptor
     *         therefore names no array): {@code System.arraycopy}, {@code Array.set*}
     */
    static boolean writesArrayTypedObject(String owner, String name) {
        return owner.equals("java/lang/System") && name.equals("arraycopy")
                || owner.equals("java/lang/reflect/Array") && name.startsWith("set");
    }

    /**
     * @param jdkOwner the JDK class whose method is called (for a call through an application
     *        class, the JDK class it inherits the method from)
     * @return what the call may do with its arrays
     */
    static Rule of(String jdkOwner, String name, String descriptor) {
        Type[] params = Type.getArgumentTypes(descriptor);
        Type result = Type.getReturnType(descriptor);
        Action[] actions = new Action[params.length];
        if (writesArrayTypedObject(jdkOwner, name)) {
            java.util.Arrays.fill(actions, Action.NONE);
            // Array.set(Object array, int index, ...); System.arraycopy(src, srcPos, dest, ...)
            actions[jdkOwner.equals("java/lang/System") ? 2 : 0] = Action.WRITTEN;
            return new Rule(actions, Action.NONE);
        }
        Action onArrays = forParameters(jdkOwner, name);
        for (int i = 0; i < params.length; i++) {
            actions[i] = params[i].getSort() == Type.ARRAY ? onArrays : Action.NONE;
        }
        Action onResult = result.getSort() == Type.ARRAY && !returnsNew(jdkOwner, name) ? Action.ESCAPED : Action.NONE;
        return new Rule(actions, onResult);
    }

    /** @return what the method does with array parameters, by the JDK's specification */
    private static Action forParameters(String owner, String name) {
        switch (owner) {
            case "java/lang/String", "java/lang/StringBuilder", "java/lang/StringBuffer",
                 "java/lang/AbstractStringBuilder" -> {
                // getChars/getBytes(..., dst, ...) fill dst; everything else copies what it reads
                return name.equals("getChars") || name.equals("getBytes") ? Action.WRITTEN : Action.NONE;
            }
            case "java/util/Arrays" -> {
                return switch (name) {
                    case "fill", "sort", "parallelSort", "setAll", "parallelSetAll", "parallelPrefix" -> Action.WRITTEN;
                    case "asList" -> Action.ESCAPED; // a list whose set and sort write the array
                    default -> Action.NONE; // copies, comparisons, searches, streams, strings
                };
            }
            case "java/util/Objects", "java/lang/Math", "java/lang/StrictMath", "java/io/PrintStream",
                 "java/util/Collections", "java/util/List", "java/util/Set", "java/util/Map",
                 "java/util/EnumSet" -> {
                return name.equals("toArray") ? Action.WRITTEN : Action.NONE;
            }
            case "java/util/Random", "java/security/SecureRandom",
                 "java/util/concurrent/ThreadLocalRandom" -> {
                return name.equals("nextBytes") ? Action.WRITTEN : Action.NONE;
            }
            default -> {
            }
        }
        if (owner.startsWith("java/util/stream/")) {
            return Action.NONE; // of(...) reads its array (a stream never writes its source)
        }
        if (name.equals("toArray") && owner.startsWith("java/util/")) {
            return Action.WRITTEN; // a collection copies its elements into the array it is given
        }
        if (owner.startsWith("java/io/") && !owner.startsWith("java/io/Object")) {
            // streams, readers and writers of java.io: read(...) fills the buffer, write(...)
            // and constructors (ByteArrayInputStream, CharArrayReader) only read theirs
            return name.startsWith("read") ? Action.WRITTEN : Action.NONE;
        }
        return Action.ESCAPED;
    }

    /** @return whether an array the method returns is new (not kept by anyone) */
    private static boolean returnsNew(String owner, String name) {
        return switch (owner) {
            case "java/lang/String", "java/lang/StringBuilder", "java/lang/StringBuffer", "java/util/Arrays",
                 "java/util/Objects" -> true;
            default -> name.equals("toArray") && owner.startsWith("java/util/")
                    || owner.startsWith("java/util/stream/")
                    || owner.startsWith("java/io/") && (name.startsWith("read") || name.startsWith("to"));
        };
    }
}
