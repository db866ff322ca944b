package io.perpetua.benchmarks.oo1.impl;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Versions of libraries on the class path, from their Maven metadata. */
final class Versions {

    private Versions() {
    }

    /** @return the artifact's version from {@code META-INF/maven/.../pom.properties}, or "?" */
    static String of(String groupId, String artifactId) {
        String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Versions.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }
}
