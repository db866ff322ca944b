package io.perpetua.kernel;

/**
 * The array fields of a filled object that are not decoded yet, and where their values are in
 * its record. A fill steps over each array field's stored value and leaves the field holding its
 * class's <em>lazy marker</em> (a zero-length array the rewritten class keeps in
 * {@code $perpetua$lazy$<field>}); the rewritten getter, on meeting the marker, has the kernel
 * decode the value then ({@link Kernel#materialize}). So an array the program never reads costs
 * no elements' shells at the fill and no comparison at each commit: an OO1 lookup reads a part's
 * {@code x}, {@code y} and {@code type} and never its two arrays of connections.
 *
 * <p>A commit that writes the object while a field is still lazy copies the field's stored
 * value as it is ({@link RecordEncoder}): what it refers to is persistent already and tracked by
 * its own handle, so an OO1 insert that appends to a part's incoming connections does not decode
 * its outgoing ones. The copy is the same bytes, so the record kept here still serves a later
 * decode after such a commit.
 *
 * <p>Held by the object's {@link Handle} while some field is still lazy; guarded by the kernel's
 * lock.
 */
final class LazyFields {
    /** The record the object was filled from (for a satellite, its home's). Never changed. */
    final byte[] record;
    /** Where the object's body ends in {@link #record}. */
    final int end;
    /**
     * By reference-field ordinal (the position among the layout's reference fields): where the
     * field's stored value starts in {@link #record}, or 0 once it is decoded (or was never lazy).
     */
    final int[] at;

    LazyFields(byte[] record, int end, int[] at) {
        this.record = record;
        this.end = end;
        this.at = at;
    }

    /**
     * @return where the stored value of field {@code k} (still lazy) ends in {@link #record}
     * @throws ByteIn.MalformedRecord if it is not what the fill stepped over
     */
    int valueEnd(int k) {
        ByteIn in = new ByteIn(record, at[k], end);
        if (!RecordDecoder.stepOverContainer(in)) {
            throw new ByteIn.MalformedRecord("the value of a lazy field is no longer a container at byte " + at[k]);
        }
        return in.position();
    }

    /** @return true once no field is left to decode */
    boolean done() {
        for (int a : at) {
            if (a != 0) {
                return false;
            }
        }
        return true;
    }
}
