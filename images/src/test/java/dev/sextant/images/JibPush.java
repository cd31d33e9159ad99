package dev.sextant.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Builds and pushes both service images with {@code jib:build}, as a Maven subprocess. Jib itself, not
 * skopeo, does the push: that is the path a release takes (Jib pushes only the layers the registry lacks,
 * and the base layers come straight from the JRE tar). jib:build refuses {@code mvn -o}, so the
 * subprocess runs online; the plugin is cached after the first run.
 */
final class JibPush {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    private JibPush() {
    }

    /** Pushes {@code <registry>/sextant/kms:<tag>} and {@code <registry>/sextant/join-service:<tag>}. */
    static void push(Path repo, Path jreBase, String registry, String tag, Path log)
            throws IOException, InterruptedException {
        List<String> argv = List.of(maven(), "-B", "-ntp", "-f", repo.resolve("pom.xml").toString(),
                "-pl", "kms,join-api", "-DskipTests", "package", "jib:build",
                "-Dsextant.jre.base=" + jreBase,
                "-Dsextant.image.prefix=" + registry + "/sextant",
                "-Dsextant.image.tag=" + tag,
                "-Djib.allowInsecureRegistries=true");
        Command.Result r = Command.run(TIMEOUT, argv);
        Files.writeString(log, r.output());
        if (!r.ok()) {
            throw new IOException("jib:build exited " + r.exitCode() + " (full log: " + log + "): "
                    + tail(r.output(), 40));
        }
    }

    private static String maven() {
        String home = System.getProperty("maven.home");
        if (home != null && Files.isExecutable(Path.of(home, "bin", "mvn"))) {
            return Path.of(home, "bin", "mvn").toString();
        }
        return "mvn";
    }

    private static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
