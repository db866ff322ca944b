package io.perpetua.store.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Creating files so that a crash leaves either the whole new file or none: write, sync, rename. */
final class StoreFiles {
    static final String TEMP_SUFFIX = ".tmp";

    private StoreFiles() {
    }

    /**
     * @return whether a file of this name may be in a store directory before its first
     *         checkpoint: a segment, a segment or checkpoint being created, the lock file
     */
    static boolean isCreationFile(String name) {
        String created = name.endsWith(TEMP_SUFFIX) ? name.substring(0, name.length() - TEMP_SUFFIX.length()) : name;
        return Format.segmentNumber(created) > 0 || name.equals(Checkpoint.TEMP) || name.equals(StoreLock.FILE);
    }

    /** Creates segment {@code number} holding only its header, both slots saying (seq, header size). */
    static Segment createSegment(Path dir, FileIO io, int number, long storeId, long seq) throws IOException {
        Path path = dir.resolve(Format.segmentName(number));
        Path temp = dir.resolve(Format.segmentName(number) + TEMP_SUFFIX);
        byte[] header = Format.segmentHeader(number, storeId, seq, Format.HEADER_SIZE);
        try (FileIO.WriteHandle out = io.open(temp, false)) {
            out.truncate(0);
            out.write(0, header, 0, header.length);
            out.sync();
        }
        Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE);
        io.syncDirectory(dir);
        return new Segment(number, path, Format.HEADER_SIZE, 0);
    }

    /** Deletes a partly written checkpoint, if any, so that it holds no disk space. Never throws. */
    static void deleteCheckpointTemp(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve(Checkpoint.TEMP));
        } catch (IOException | RuntimeException e) {
            // The next open deletes it.
        }
    }

    /** Replaces the checkpoint atomically. */
    static void writeCheckpoint(Path dir, FileIO io, byte[] data) throws IOException {
        Path temp = dir.resolve(Checkpoint.TEMP);
        try (FileIO.WriteHandle out = io.open(temp, false)) {
            out.truncate(0);
            out.write(0, data, 0, data.length);
            out.sync();
        }
        Files.move(temp, dir.resolve(Checkpoint.FILE), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        io.syncDirectory(dir);
    }
}
