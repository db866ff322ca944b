package io.perpetua.store.file;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/** Test helpers: opening stores, crash images, damaging files. */
final class Stores {
    private Stores() {
    }

    /** Opens through the provider, with a URI query such as {@code "sync=false&segmentSize=4k"}. */
    static FileBackend open(Path dir, String query) {
        String uri = "file:" + dir.toUri().getRawPath() + (query == null || query.isEmpty() ? "" : "?" + query);
        Backend backend = Backends.open(URI.create(uri));
        return (FileBackend) backend;
    }

    /**
     * Copies a store directory, except its lock file, as it is on disk now: taken while the
     * store is open, the copy is what a SIGKILL at this moment would leave (everything written
     * is in the operating system's cache, which the copy reads).
     */
    static void copy(Path from, Path to) {
        try {
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (!f.getFileName().toString().equals(StoreLock.FILE)) {
                        Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Path> segmentFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> Format.segmentNumber(p.getFileName().toString()) > 0).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path lastSegment(Path dir) {
        List<Path> segments = segmentFiles(dir);
        return segments.get(segments.size() - 1);
    }

    static void xorByte(Path file, long offset, int mask) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ mask);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void append(Path file, byte[] bytes) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(f.length());
            f.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void truncate(Path file, long size) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
