package io.perpetua.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Finds the agent jar the agent module built, for tests that fork JVMs with {@code -javaagent}. */
public final class AgentJar {
    private AgentJar() {
    }

    /** @return the agent jar in {@code agent/target}, or null if the agent module was not packaged */
    public static Path find() throws IOException {
        Path target = Path.of("..", "agent", "target");
        if (!Files.isDirectory(target)) {
            return null;
        }
        try (Stream<Path> s = Files.list(target)) {
            return s.filter(p -> p.getFileName().toString().matches("perpetua-agent-[^/]*\\.jar"))
                    .filter(p -> !p.getFileName().toString().contains("sources"))
                    .findFirst().map(Path::toAbsolutePath).orElse(null);
        }
    }
}
