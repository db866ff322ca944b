package io.perpetua.store.rocksdb;

import io.perpetua.CorruptStoreException;
import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write-ahead log after a crash: a child JVM makes {@value #COMMITS} synced commits and
 * halts without closing the store ({@link CommitsThenHalt}), so that they live only in the
 * log. A log cut short, as a kill may leave it, opens with the commits before the cut; a log
 * damaged before its end, or deleted, is refused without a file of the store changed, never
 * opened without acknowledged commits.
 */
class RocksDbWalDamageTest {
    private static final int COMMITS = 5;

    private static URI uri(Path dir) {
        return URI.create("rocksdb:" + dir.toUri().getRawPath());
    }

    /** Runs the child and returns the store it left: {@value #COMMITS} acknowledged commits, never closed. */
    private static Path crashedStore(Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        try (ForkedJvm child = ForkedJvm.start(tmp.resolve("child-tmp"), CommitsThenHalt.class,
                uri(dir).toString(), String.valueOf(COMMITS))) {
            child.awaitLine("ACKNOWLEDGED " + (COMMITS - 1), 2, TimeUnit.MINUTES);
            assertTrue(child.process().waitFor(1, TimeUnit.MINUTES), "the child halted");
        }
        return dir;
    }

    private static Path log(Path dir) throws IOException {
        List<Path> logs = files(dir).filter(p -> p.getFileName().toString().endsWith(".log")).toList();
        assertEquals(1, logs.size(), "one write-ahead log: " + logs);
        return logs.get(0);
    }

    private static Stream<Path> files(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList().stream();
        }
    }

    /** Each file's SHA-256, except RocksDB's info logs (an open starts a new one, refused or not). */
    private static Map<String, String> contents(Path dir) throws IOException, NoSuchAlgorithmException {
        Map<String, String> contents = new TreeMap<>();
        for (Path file : files(dir).toList()) {
            String name = file.getFileName().toString();
            if (!name.startsWith("LOG")) {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
                contents.put(name, HexFormat.of().formatHex(digest));
            }
        }
        return contents;
    }

    /** @return how many commits the store holds, checking that each is there whole */
    private static int wholeCommits(Backend backend) {
        int n = 0;
        for (long first; (first = backend.lookup("list" + n)) != 0; n++) {
            for (int i = 0; i < CommitsThenHalt.RECORDS; i++) {
                assertArrayEquals(CommitsThenHalt.record(n, i), backend.read(first + i), "commit " + n + ", record " + i);
            }
        }
        assertEquals(n, backend.names().size(), "no later commit without the ones before it");
        assertEquals((long) n * CommitsThenHalt.RECORDS, backend.statistics().objects());
        return n;
    }

    private static void assertRefusedAndUnchanged(Path dir) throws Exception {
        Map<String, String> before = contents(dir);
        for (int attempt = 0; attempt < 2; attempt++) {
            CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Backends.open(uri(dir)).close());
            assertEquals("rocksdb:" + dir.toAbsolutePath(), e.location());
            assertEquals(before, contents(dir), "the refused open changed no file of the store");
        }
    }

    @Test
    void anIntactLogGivesBackEveryAcknowledgedCommit(@TempDir Path tmp) throws Exception {
        Path dir = crashedStore(tmp);
        try (Backend backend = Backends.open(uri(dir))) {
            assertEquals(COMMITS, wholeCommits(backend));
        }
    }

    @Test
    void aLogDamagedInTheMiddleIsRefused(@TempDir Path tmp) throws Exception {
        Path dir = crashedStore(tmp);
        Path log = log(dir);
        byte[] content = Files.readAllBytes(log);
        assertTrue(content.length > 40_000, "the commits span two 32 KiB blocks of the log: " + content.length);
        // Point-in-time recovery used to stop here and open with the commits before this byte.
        content[content.length / 2] ^= (byte) 0xFF;
        Files.write(log, content);
        assertRefusedAndUnchanged(dir);
    }

    @Test
    void aDeletedLogIsRefused(@TempDir Path tmp) throws Exception {
        Path dir = crashedStore(tmp);
        // The store's format marker is in an SST file: without the log it used to open empty.
        Files.delete(log(dir));
        assertRefusedAndUnchanged(dir);
    }

    /**
     * A kill can leave the log cut anywhere after the last acknowledged commit, so every cut
     * must open, with whole commits only: here cut before that point too (the commits after
     * the cut play the unacknowledged ones), at 30 places, in copies of the crashed store.
     */
    @Test
    void aLogCutAnywhereOpensWithTheCommitsBeforeTheCut(@TempDir Path tmp) throws Exception {
        Path original = crashedStore(tmp);
        String logName = log(original).getFileName().toString();
        byte[] content = Files.readAllBytes(original.resolve(logName));
        int previous = 0;
        for (int k = 0; k <= 30; k++) {
            int cut = (int) ((long) content.length * k / 30);
            Path copy = tmp.resolve("cut-" + cut);
            Files.createDirectory(copy);
            for (Path file : files(original).toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
            Files.write(copy.resolve(logName), Arrays.copyOf(content, cut));
            try (Backend backend = Backends.open(uri(copy))) {
                int commits = wholeCommits(backend);
                assertTrue(commits >= previous, "a longer log never gives fewer commits: cut at " + cut);
                previous = commits;
            }
        }
        assertEquals(COMMITS, previous, "the whole log gives every commit");
    }
}
