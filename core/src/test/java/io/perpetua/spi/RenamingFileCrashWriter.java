package io.perpetua.spi;

import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A {@link CrashHarness} child for {@link RenamingFileBackend}, which has no provider: opens the
 * directory a {@code renaming-file:} URI names and runs {@link CrashWriter}.
 */
public final class RenamingFileCrashWriter {
    /** A system property: if set, the backend is opened {@linkplain RenamingFileBackend#openTorn torn}. */
    static final String TORN_PAUSE_PROPERTY = "perpetua.test.tornCommitPauseMillis";

    private RenamingFileCrashWriter() {
    }

    /** @param args the store URI and the maximum payload, as {@link CrashWriter#main} takes them */
    public static void main(String[] args) {
        CrashWriter.haltWhenParentGoesAway();
        Path dir = Paths.get(URI.create(args[0]).getSchemeSpecificPart());
        long tornPause = Long.getLong(TORN_PAUSE_PROPERTY, -1);
        Backend backend = tornPause >= 0 ? RenamingFileBackend.openTorn(dir, tornPause) : RenamingFileBackend.open(dir);
        CrashWriter.run(backend, System.out, Integer.parseInt(args[1]), n -> { });
    }
}
