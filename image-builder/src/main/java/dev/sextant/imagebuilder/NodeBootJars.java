package dev.sextant.imagebuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The node software of a source tree, as built by Maven: the bootstrapper (node-boot) and the KMS
 * and join service a control plane runs itself when it has no Kubernetes to run them in. Each is
 * {@code <module>/target/sextant-<module>-*.jar} plus its runtime dependencies in
 * {@code <module>/target/lib}; missing ones are built first.
 */
public final class NodeBootJars {
    record Module(String dir, String launcher, String mainClass) {
    }

    static final List<Module> MODULES = List.of(
            new Module("node-boot", "sextant-node", NodeSoftware.NODE_BOOT_MAIN),
            new Module("kms", "sextant-kms", "dev.sextant.kms.Application"),
            new Module("join-api", "sextant-join", "dev.sextant.joinapi.Application"));
    static final List<String> MVN_BUILD = List.of("mvn", "-B", "-q", "-DskipTests", "-pl", "node-boot,kms,join-api", "-am", "package");

    private final Path repo;

    public NodeBootJars(Path repo) {
        this.repo = repo.toAbsolutePath().normalize();
    }

    /** The programs, building them first when some are absent (Maven's output is streamed). */
    public NodeSoftware locateOrBuild(Consumer<String> log) throws BuildException {
        if (!allBuilt()) {
            log.accept("the node software is not built; running: " + String.join(" ", MVN_BUILD));
            StreamedProcess.run(MVN_BUILD, repo, "mvn| ", log);
        }
        List<NodeSoftware.Program> programs = new ArrayList<>();
        for (Module module : MODULES) {
            List<Path> jars = jars(module);
            if (jars.isEmpty()) {
                throw new BuildException(module.dir() + "/target holds no sextant-" + module.dir() + " jar after '"
                        + String.join(" ", MVN_BUILD) + "' in " + repo);
            }
            if (olderThanSources(module, jars.get(0))) {
                log.accept("WARNING: " + jars.get(0).getFileName() + " is older than " + module.dir() + "/src/main; the image"
                        + " ships it as built. To ship the current sources run: " + String.join(" ", MVN_BUILD));
            }
            programs.add(new NodeSoftware.Program(module.launcher(), module.mainClass(), jars));
        }
        return new NodeSoftware(programs);
    }

    private boolean allBuilt() throws BuildException {
        for (Module module : MODULES) {
            if (jars(module).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The module's main jar first, then target/lib sorted; empty when the module is not built. */
    private List<Path> jars(Module module) throws BuildException {
        Path target = repo.resolve(module.dir()).resolve("target");
        Path lib = target.resolve("lib");
        List<Path> main = jarsIn(target, "sextant-" + module.dir() + "-");
        if (main.isEmpty() || !Files.isDirectory(lib)) {
            return List.of();
        }
        List<Path> jars = new ArrayList<>(main);
        jars.addAll(jarsIn(lib, ""));
        return jars;
    }

    // Warn rather than rebuild: rebuilding a module someone is editing is not this command's call.
    private boolean olderThanSources(Module module, Path mainJar) throws BuildException {
        Path sources = repo.resolve(module.dir()).resolve("src/main");
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
