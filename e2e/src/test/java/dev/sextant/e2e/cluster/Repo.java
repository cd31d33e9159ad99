package dev.sextant.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The built artefacts the cluster test runs as processes: the CLI (classes + resolved classpath, as
 * bin/sextant runs it), node-boot, kms and join-api (jar + target/lib, as their images run them).
 */
record Repo(Path root) {
    /** JVM options that favour start-up time over peak speed: every process here lives a minute. */
    static final List<String> QUICK_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

    static Repo locate() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("node-boot")) && Files.isDirectory(p.resolve("join-api"))) {
                return new Repo(p);
            }
        }
        throw new IllegalStateException("no Sextant checkout above " + dir);
    }

    /** Why the test cannot run, or empty when every artefact is built. */
    Optional<String> missing() {
        for (String module : List.of("node-boot", "kms", "join-api")) {
            if (!Files.isRegularFile(jar(module)) || !Files.isDirectory(root.resolve(module).resolve("target/lib"))) {
                return Optional.of(module + " is not packaged (" + jar(module) + " + target/lib); run mvn -pl "
                        + module + " package");
            }
        }
        if (!Files.isRegularFile(root.resolve("cli/target/classpath.txt"))) {
            return Optional.of("the CLI is not built (cli/target/classpath.txt); run bin/sextant --help once");
        }
        return Optional.empty();
    }

    private Path jar(String module) {
        return root.resolve(module).resolve("target/sextant-" + module + "-0.1.0-SNAPSHOT.jar");
    }

    /** {@code java [jvm options] -cp <module jar>:<module>/target/lib/* mainClass}. */
    List<String> service(String module, String mainClass, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>(List.of(java()));
        cmd.addAll(QUICK_JVM);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", jar(module) + ":" + root.resolve(module).resolve("target/lib") + "/*", mainClass));
        return cmd;
    }

    /** The {@code sextant} CLI with {@code args}. */
    List<String> sextant(String... args) {
        try {
            String cp = root.resolve("cli/target/classes") + ":" + Files.readString(root.resolve("cli/target/classpath.txt")).strip();
            List<String> cmd = new ArrayList<>(List.of(java()));
            cmd.addAll(QUICK_JVM);
            cmd.addAll(List.of("-cp", cp, "dev.sextant.cli.Main"));
            cmd.addAll(List.of(args));
            return cmd;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
