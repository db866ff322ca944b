package io.perpetua.store.rocksdb;

import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;

/**
 * Loads rocksdbjni's native library from one copy per user and library build, kept between
 * runs, instead of rocksdbjni's own way: a fresh 16 MB copy in the temporary directory for every
 * JVM, deleted at a normal exit only, so that every JVM killed or crashed leaves one behind
 * (a test suite that kills writers, or a service restarted with {@code kill -9}, fills
 * {@code /tmp} by 16 MB a time), and every start pays for the copy.
 *
 * <p>The copy lives in {@code <java.io.tmpdir>/perpetua-<user>/rocksdbjni-<size>-<crc>/}, a
 * directory only its owner can write (checked before the copy in it is trusted), named by the
 * library's size and checksum in the rocksdbjni jar, so that another version never loads a
 * stale copy. It is written to a temporary name and renamed into place: a JVM never sees half
 * a file, and two starting together both end with a whole one. The system property
 * {@code perpetua.rocksdb.libraryDir} names another parent directory; set to the empty string,
 * it leaves loading to rocksdbjni. Whatever goes wrong here (no such resource, a directory not
 * ours, a file system that refuses, a second class loader of rocksdbjni in the JVM, which may
 * not load the same file) falls back to rocksdbjni's own loading.
 */
final class NativeLibrary {
    /** The system property naming the parent directory of the kept copies. */
    static final String DIRECTORY_PROPERTY = "perpetua.rocksdb.libraryDir";

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private NativeLibrary() {
    }

    /**
     * Loads the library, once per JVM ({@link RocksDB#loadLibrary()} returns at once after the
     * first).
     *
     * @throws UnsatisfiedLinkError if neither way can load it
     */
    static void load() {
        Path directory = keptCopyDirectory();
        if (directory != null) {
            try {
                // RocksDB.loadLibrary(paths) loads <path>/<this name> (rocksdbjni 11 asks for
                // "rocksdbjni" here, hence "librocksdbjnijni-linux64.so"): the copy takes the
                // name it will look for, by the same call
                RocksDB.loadLibrary(List.of(directory.toString()));
                return;
            } catch (UnsatisfiedLinkError e) {
                // a copy damaged at the right size (zeros after a power loss) is written again,
                // once; else: loaded by another class loader of rocksdbjni in this JVM, or a name
                // rocksdbjni no longer asks for, and its own loading makes a copy of its own
                if (rewroteDamagedCopy(directory)) {
                    try {
                        RocksDB.loadLibrary(List.of(directory.toString()));
                        return;
                    } catch (UnsatisfiedLinkError again) {
                        // as above
                    }
                }
            }
        }
        RocksDB.loadLibrary();
    }

    /** The file name {@link RocksDB#loadLibrary(List)} loads from each directory it is given. */
    static String keptFileName() {
        return Environment.getJniLibraryFileName("rocksdbjni");
    }

    /**
     * The directory holding a whole copy of the library, made if need be.
     *
     * @return the directory, or null to leave loading to rocksdbjni
     */
    static Path keptCopyDirectory() {
        String parent = System.getProperty(DIRECTORY_PROPERTY);
        if (parent != null && parent.isEmpty()) {
            return null;
        }
        try {
            URL resource = RocksDB.class.getClassLoader() == null ? null
                    : RocksDB.class.getClassLoader().getResource(Environment.getJniLibraryFileName("rocksdb"));
            if (resource == null) {
                return null; // not in the jar (rocksdbjni then looks on java.library.path)
            }
            URLConnection connection = resource.openConnection();
            if (!(connection instanceof JarURLConnection jar)) {
                return null;
            }
            JarEntry entry = jar.getJarEntry();
            if (entry.getSize() < 0 || entry.getCrc() < 0) {
                return null;
            }
            // absolute: System.load takes no relative path, and a single name has no parent to make
            Path user = ownDirectory((parent != null ? Path.of(parent)
                    : Path.of(System.getProperty("java.io.tmpdir"), "perpetua-" + fileNameOf(System.getProperty("user.name"))))
                    .toAbsolutePath());
            if (user == null) {
                return null;
            }
            Path build = user.resolve(buildName(entry.getSize(), entry.getCrc()));
            Files.createDirectories(build);
            removeStalePartials(build);
            Path library = build.resolve(keptFileName());
            if (!isWhole(library, entry.getSize())) {
                copy(resource, build, library, entry.getSize());
            }
            return build;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String buildName(long size, long crc) {
        return "rocksdbjni-" + size + "-" + Long.toHexString(crc);
    }

    /**
     * Writes the kept copy again if its checksum is not the one its directory is named by (a
     * copy damaged at its full size: only the size is checked at each start, to keep the start
     * from reading 16 MB).
     *
     * @return true if it was damaged and is written again
     */
    private static boolean rewroteDamagedCopy(Path build) {
        try {
            Path library = build.resolve(keptFileName());
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(java.nio.ByteBuffer.wrap(Files.readAllBytes(library)));
            if (build.getFileName().toString().equals(buildName(Files.size(library), crc.getValue()))) {
                return false;
            }
            URL resource = RocksDB.class.getClassLoader().getResource(Environment.getJniLibraryFileName("rocksdb"));
            if (resource == null) {
                return false;
            }
            copy(resource, build, library, ((JarURLConnection) resource.openConnection()).getJarEntry().getSize());
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Deletes what copies cut short by a kill left ({@code partial-*.tmp}), if older than a
     * minute: a copy takes a fraction of a second, so a younger one may be another JVM's, at work.
     */
    private static void removeStalePartials(Path build) {
        long before = System.currentTimeMillis() - 60_000;
        try (java.nio.file.DirectoryStream<Path> partials = Files.newDirectoryStream(build, "partial-*.tmp")) {
            for (Path partial : partials) {
                if (Files.getLastModifiedTime(partial, LinkOption.NOFOLLOW_LINKS).toMillis() < before) {
                    Files.deleteIfExists(partial);
                }
            }
        } catch (IOException | RuntimeException e) {
            // left for a later start
        }
    }

    /**
     * The directory, made owner-only if missing; null if it exists and another user owns it or
     * may write in it (a copy there could have been put by someone else).
     */
    private static Path ownDirectory(Path dir) throws IOException {
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                if (posix) {
                    Files.createDirectories(dir.getParent());
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                } else {
                    Files.createDirectories(dir);
                }
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another JVM made it: checked below like any existing one
            }
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (posix) {
            UserPrincipal owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS);
            UserPrincipal me = FileSystems.getDefault().getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name"));
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            if (!owner.equals(me) || permissions.contains(PosixFilePermission.GROUP_WRITE)
                    || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
                return null;
            }
        }
        return dir;
    }

    private static boolean isWhole(Path library, long size) throws IOException {
        if (!Files.exists(library, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        BasicFileAttributes attributes = Files.readAttributes(library, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return attributes.isRegularFile() && attributes.size() == size;
    }

    /** Copies the library to a temporary name, then renames it into place. */
    private static void copy(URL resource, Path build, Path library, long size) throws IOException {
        Path partial = Files.createTempFile(build, "partial-", ".tmp");
        try {
            try (InputStream in = resource.openStream()) {
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            }
            if (Files.size(partial) != size) {
                throw new IOException("short copy of " + resource);
            }
            try {
                Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                if (!isWhole(library, size)) { // another JVM's rename won (Windows keeps a loaded file)
                    throw e;
                }
            }
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** A user name made safe as one file name component. */
    private static String fileNameOf(String name) {
        StringBuilder safe = new StringBuilder();
        for (char c : (name == null || name.isEmpty() ? "unknown" : name).toCharArray()) {
            safe.append(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.' ? c : '_');
        }
        return safe.toString();
    }
}
