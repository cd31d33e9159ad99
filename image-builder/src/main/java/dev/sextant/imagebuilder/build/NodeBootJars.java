package dev.sextant.imagebuilder.build;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The node-boot jars of a source tree: {@code node-boot/target/sextant-node-boot-*.jar} plus its
 * runtime dependencies in {@code node-boot/target/lib}, built with Maven when they are missing.
 */
public final class NodeBootJars {
    static final List<String> MVN_BUILD = List.of("mvn", "-B", "-q", "-DskipTests", "-pl", "node-boot", "-am", "package");

    private final Path repo;

    public NodeBootJars(Path repo) {
        this.repo = repo.toAbsolutePath().normalize();
    }

    /** The jars, building node-boot first when they are absent (its Maven output is streamed). */
    public NodeSoftware locateOrBuild(Consumer<String> log) throws BuildException {
        List<Path> jars = locate();
        if (jars.isEmpty()) {
            log.accept("node-boot is not built; running: " + String.join(" ", MVN_BUILD));
            StreamedProcess.run(MVN_BUILD, repo, "mvn| ", log);
            jars = locate();
            if (jars.isEmpty()) {
                throw new BuildException("node-boot/target holds no sextant-node-boot jar after '"
                        + String.join(" ", MVN_BUILD) + "' in " + repo);
            }
        }
        if (olderThanSources(jars.get(0))) {
            log.accept("WARNING: " + jars.get(0).getFileName() + " is older than node-boot/src/main; the image ships it"
                    + " as built. To ship the current sources run: " + String.join(" ", MVN_BUILD));
        }
        return new NodeSoftware(jars, NodeSoftware.NODE_BOOT_MAIN);
    }

    // Warn rather than rebuild: rebuilding a module someone is editing is not this command's call.
    private boolean olderThanSources(Path mainJar) throws BuildException {
        Path sources = repo.resolve("node-boot/src/main");
        if (!Files.isDirectory(sources)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(sources)) {
            long built = Files.getLastModifiedTime(mainJar).toMillis();
            return files.anyMatch(f -> {
                try {
                    return Files.getLastModifiedTime(f).toMillis() > built;
                } catch (IOException e) {
                    return false;
                }
            });
        } catch (IOException e) {
            throw new BuildException("cannot read " + sources + ": " + e.getMessage(), e);
        }
    }

    /** The main jar first, then node-boot/target/lib/*.jar sorted; empty when node-boot is not built. */
    public List<Path> locate() throws BuildException {
        Path target = repo.resolve("node-boot/target");
        Path lib = target.resolve("lib");
        List<Path> main = jarsIn(target, "sextant-node-boot-");
        if (main.isEmpty() || !Files.isDirectory(lib)) {
            return List.of();
        }
        List<Path> jars = new ArrayList<>(main);
        jars.addAll(jarsIn(lib, ""));
        return jars;
    }

    private static List<Path> jarsIn(Path dir, String prefix) throws BuildException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> {
                String name = f.getFileName().toString();
                return name.startsWith(prefix) && name.endsWith(".jar")
                        && !name.endsWith("-sources.jar") && !name.endsWith("-tests.jar");
            }).sorted().toList();
        } catch (IOException e) {
            throw new BuildException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
