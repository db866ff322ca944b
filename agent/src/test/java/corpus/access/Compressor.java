package corpus.access;

import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Arrays handed to JDK code that keeps them ({@code Deflater.setInput}) with the operand stack
 * at its maximum height: the write barrier's logging of the array needs one slot more than the
 * original method did (H2's {@code DbSchema.readTables} has this shape, with a {@code String[]}
 * given to JDBC).
 */
public final class Compressor {
    private byte[] data;
    private final Deflater deflater = new Deflater();

    public Compressor(String text) {
        this.data = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The shape itself: the stack holds the deflater and the array, its maximum, at the call. */
    void load() {
        deflater.setInput(data);
    }

    /** @return the text compressed and inflated again */
    public String roundTrip() throws java.util.zip.DataFormatException {
        load();
        deflater.finish();
        byte[] packed = new byte[256];
        int n = deflater.deflate(packed);
        Inflater inflater = new Inflater();
        inflater.setInput(packed, 0, n);
        byte[] out = new byte[256];
        int m = inflater.inflate(out);
        inflater.end();
        deflater.end();
        return new String(out, 0, m, java.nio.charset.StandardCharsets.UTF_8) + " (" + data.length + " -> " + n + ")";
    }
}
