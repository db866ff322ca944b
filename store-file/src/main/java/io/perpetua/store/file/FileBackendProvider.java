package io.perpetua.store.file;

import io.perpetua.spi.Backend;
import io.perpetua.spi.BackendProvider;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The provider of the {@code file:} scheme: a pure-Java store in one directory (see
 * {@link FileBackend}). Found by {@link java.util.ServiceLoader}; stateless and thread-safe.
 *
 * <pre>{@code
 * Backend backend = Backends.open(URI.create("file:/data/shop?sync=false"));
 * }</pre>
 *
 * <h2>Options (URI query parameters)</h2>
 * <dl>
 *   <dt>{@code sync} (default {@code true})</dt>
 *   <dd>{@code true}: every commit and id allocation is fsynced before it returns, so it
 *       survives a crash of the operating system or a power loss. {@code false}: no fsync per
 *       commit; a commit survives the death of the process but an operating system crash may
 *       lose the commits since the last sync point (a new segment, a checkpoint, close). Much
 *       faster for many small commits.</dd>
 *   <dt>{@code segmentSize} (default {@code 64m})</dt>
 *   <dd>The size at which a segment file is closed and the next begun; compaction works a
 *       segment at a time. A byte count, optionally with a suffix {@code k}, {@code m} or
 *       {@code g}; at least {@code 4k}. A single commit larger than this gets a segment of its
 *       own.</dd>
 *   <dt>{@code checkpointBytes} (default {@code 32m})</dt>
 *   <dd>How much log written after the last checkpoint makes the next one due (written in the
 *       background). Bounds how much an open after a crash must replay. A checkpoint is also
 *       written on close.</dd>
 *   <dt>{@code autoCompact} (default {@code true})</dt>
 *   <dd>Compact in the background when a closed segment's garbage passes {@code garbageRatio}
 *       (also garbage an earlier session left: an open looks for it), and close the segment
 *       being written to when a quarter of {@code segmentSize} of it is garbage over that ratio.
 *       {@link FileBackend#close()} finishes a due compaction that copies at most 4 MB of live
 *       records; a larger one is left to the next open. {@link FileBackend#compact()} compacts
 *       on request either way.</dd>
 *   <dt>{@code garbageRatio} (default {@code 0.5})</dt>
 *   <dd>The share of a segment (overwritten and deleted records) in {@code (0, 1]} at which
 *       automatic compaction copies its live records away and deletes it.</dd>
 * </dl>
 * Any other option is rejected with {@link IllegalArgumentException}.
 */
public final class FileBackendProvider implements BackendProvider {

    /** Public no-argument constructor, for {@link java.util.ServiceLoader}. */
    public FileBackendProvider() {
    }

    @Override
    public String scheme() {
        return "file";
    }

    /**
     * @param location a directory path (created if missing), not empty
     * @return a {@link FileBackend}
     * @throws IllegalArgumentException for an unknown option or a bad option value
     * @throws io.perpetua.StoreLockedException if the store is open in another process or in
     *         this one
     * @throws io.perpetua.CorruptStoreException if the directory holds a damaged store, or the
     *         location is a file
     * @throws io.perpetua.UnsupportedStoreFormatException if the store is in a newer format of
     *         this backend; it is left unchanged
     */
    @Override
    public Backend open(URI uri, String location, Map<String, String> options) {
        Objects.requireNonNull(location, "location");
        Options parsed = Options.parse(Objects.requireNonNull(options, "options"));
        if (location.isEmpty()) {
            throw new IllegalArgumentException("a file: URI needs a directory, for example file:/data/shop: " + uri);
        }
        return FileBackend.open(Path.of(location), parsed, FileIO.DEFAULT);
    }
}
