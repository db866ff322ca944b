package io.perpetua.store.rocksdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * rocksdbjni's native library, loaded by child JVMs that die without exiting (as under
 * {@code kill -9}): they share one kept copy and leave nothing else in the temporary
 * directory, where rocksdbjni's own loading leaves a 16 MB copy per JVM.
 */
class NativeLibraryTest {

    private static String storeUri(Path dir) {
        return URI.create("rocksdb:" + dir.toUri().getRawPath()).toString();
    }

    private static void openAndHalt(Path childTmp, Path store, String... jvmOptions) throws Exception {
        try (ForkedJvm child = ForkedJvm.start(childTmp, List.of(jvmOptions), OpenThenHalt.class, storeUri(store))) {
            child.awaitLine("OPEN", 2, TimeUnit.MINUTES);
            assertTrue(child.process().waitFor(1, TimeUnit.MINUTES), "the child halted");
        }
    }

    /** The native libraries anywhere under a directory. */
    private static List<Path> libraries(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("librocksdbjni")).toList();
        }
    }

    @Test
    void jvmsThatDieShareOneKeptCopyAndLeaveNoOther(@TempDir Path tmp) throws Exception {
        Path childTmp = tmp.resolve("child-tmp");
        openAndHalt(childTmp, tmp.resolve("store"));
        List<Path> first = libraries(childTmp);
        assertEquals(1, first.size(), "one copy: " + first);
        Path kept = first.get(0);
        assertEquals(NativeLibrary.keptFileName(), kept.getFileName().toString());
        Object fileKey = Files.readAttributes(kept, java.nio.file.attribute.BasicFileAttributes.class).fileKey();

        openAndHalt(childTmp, tmp.resolve("store"));
        openAndHalt(childTmp, tmp.resolve("store"));
        assertEquals(List.of(kept), libraries(childTmp), "the later JVMs loaded the kept copy");
        assertEquals(fileKey, Files.readAttributes(kept, java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
                "the kept copy was not written again");
        try (Stream<Path> files = Files.list(kept.getParent())) {
            assertEquals(List.of(kept), files.toList(), "no partial copy left");
        }
    }

    @Test
    void aKeptCopyCutShortIsWrittenAgain(@TempDir Path tmp) throws Exception {
        Path childTmp = tmp.resolve("child-tmp");
        openAndHalt(childTmp, tmp.resolve("store"));
        Path kept = libraries(childTmp).get(0);
        long size = Files.size(kept);
        try (var channel = java.nio.channels.FileChannel.open(kept, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(size / 2);
        }
        openAndHalt(childTmp, tmp.resolve("store"));
        assertEquals(size, Files.size(kept));
    }

    @Test
    void aCopyDamagedAtItsFullSizeIsWrittenAgainAndPartialsLeftByKillsAreRemoved(@TempDir Path tmp) throws Exception {
        Path childTmp = tmp.resolve("child-tmp");
        openAndHalt(childTmp, tmp.resolve("store"));
        Path kept = libraries(childTmp).get(0);
        long size = Files.size(kept);
        try (var channel = java.nio.channels.FileChannel.open(kept, java.nio.file.StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.allocate(4096), 0); // zeros, as a power loss may leave
        }
        Path partial = kept.resolveSibling("partial-1.tmp");
        Files.write(partial, new byte[1000]);
        Files.setLastModifiedTime(partial, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 120_000));
        openAndHalt(childTmp, tmp.resolve("store"));
        assertEquals(List.of(kept), libraries(childTmp), "loaded from the kept copy, written again: no other");
        assertEquals(size, Files.size(kept));
        assertTrue(Files.notExists(partial), "a partial copy a kill left is removed");
    }

    @Test
    void aRelativeDirectoryIsTakenFromTheWorkingDirectory(@TempDir Path tmp) throws Exception {
        Path relative = Path.of("target", "kept-native-" + System.nanoTime());
        try {
            Path childTmp = tmp.resolve("child-tmp");
            openAndHalt(childTmp, tmp.resolve("store"), "-D" + NativeLibrary.DIRECTORY_PROPERTY + "=" + relative);
            assertEquals(List.of(), libraries(childTmp), "no copy in the temporary directory");
            assertEquals(1, libraries(relative).size(), "the kept copy, under the relative directory");
        } finally {
            if (Files.exists(relative)) {
                try (Stream<Path> files = Files.walk(relative)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    @Test
    void aDirectoryOthersMayWriteIsNotTrusted(@TempDir Path tmp) throws Exception {
        assumeTrue(tmp.getFileSystem().supportedFileAttributeViews().contains("posix"));
        Path parent = tmp.resolve("shared");
        Files.createDirectories(parent);
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path childTmp = tmp.resolve("child-tmp");
        openAndHalt(childTmp, tmp.resolve("store"), "-D" + NativeLibrary.DIRECTORY_PROPERTY + "=" + parent);
        assertEquals(List.of(), libraries(parent), "nothing loaded from a directory others may write");
        assertEquals(1, libraries(childTmp).size(), "rocksdbjni's own copy: " + libraries(childTmp));
    }

    @Test
    void anEmptyPropertyLeavesLoadingToRocksDb(@TempDir Path tmp) throws Exception {
        Path childTmp = tmp.resolve("child-tmp");
        openAndHalt(childTmp, tmp.resolve("store"), "-D" + NativeLibrary.DIRECTORY_PROPERTY + "=");
        List<Path> copies = libraries(childTmp);
        assertEquals(1, copies.size(), "rocksdbjni's own copy: " + copies);
        assertEquals(childTmp, copies.get(0).getParent(), "in the temporary directory itself");
    }
}
