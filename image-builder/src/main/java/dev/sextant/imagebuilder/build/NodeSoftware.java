package dev.sextant.imagebuilder.build;

import java.nio.file.Path;
import java.util.List;

/**
 * The software the image runs as {@code sextant-node.service}: jars for {@code /opt/sextant/lib}
 * and the main class the launcher starts with them on the class path.
 */
public record NodeSoftware(List<Path> jars, String mainClass) {
    /** The node bootstrapper that serves VerifyService over server-attested TLS. */
    public static final String NODE_BOOT_MAIN = "dev.sextant.nodeboot.Application";

    public NodeSoftware {
        jars = List.copyOf(jars);
        if (jars.isEmpty()) {
            throw new IllegalArgumentException("node software without jars");
        }
        if (!mainClass.matches("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*")) {
            // It is pasted into a shell script; anything but a class name would be a bug or worse.
            throw new IllegalArgumentException("not a Java class name: " + mainClass);
        }
    }
}
