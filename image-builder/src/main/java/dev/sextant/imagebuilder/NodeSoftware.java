package dev.sextant.imagebuilder;

import java.nio.file.Path;
import java.util.List;

/**
 * The Java programs the image ships under {@code /opt/sextant}: each gets a launcher
 * {@code /opt/sextant/bin/<launcher>} that runs its main class with exactly its own jars.
 */
public record NodeSoftware(List<Program> programs) {
    /** The node bootstrapper (sextant-node.service). */
    public static final String NODE_BOOT_MAIN = "dev.sextant.nodeboot.Application";

    public record Program(String launcher, String mainClass, List<Path> jars) {
        public Program {
            jars = List.copyOf(jars);
            if (jars.isEmpty()) {
                throw new IllegalArgumentException(launcher + " without jars");
            }
            // Both are pasted into a shell script; anything else would be a bug or worse.
            if (!launcher.matches("[a-z][a-z0-9-]*")) {
                throw new IllegalArgumentException("not a launcher name: " + launcher);
            }
            if (!mainClass.matches("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*")) {
                throw new IllegalArgumentException("not a Java class name: " + mainClass);
            }
        }
    }

    public NodeSoftware {
        programs = List.copyOf(programs);
        if (programs.isEmpty()) {
            throw new IllegalArgumentException("node software without programs");
        }
    }

    /** One program, the bootstrapper's launcher running {@code mainClass}. */
    public NodeSoftware(List<Path> jars, String mainClass) {
        this(List.of(new Program("sextant-node", mainClass, jars)));
    }

    public String describe() {
        return String.join(", ", programs.stream().map(p -> p.launcher() + " (" + p.mainClass() + ")").toList());
    }
}
