package dev.sextant.imagebuilder.build;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * The extra tree mkosi copies into the root: {@code /opt/sextant/lib} (the node jars) and
 * {@code /opt/sextant/bin/sextant-node}, the launcher sextant-node.service runs. Without node
 * software the tree holds only empty directories and the service's condition keeps it idle.
 */
public final class NodeTree {
    /**
     * TCG emulation makes the JIT's top tier expensive at start-up; C1 alone reaches a serving
     * gRPC port sooner, and the node's work is I/O, not computation.
     */
    static final String JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    private NodeTree() {}

    /** Recreates {@code tree} with the node software; returns the number of jars staged. */
    public static int stage(Path tree, Optional<NodeSoftware> node) throws BuildException {
        try {
            Files.createDirectories(tree);
            deleteRecursively(tree);
            Path lib = Files.createDirectories(tree.resolve("opt/sextant/lib"));
            Path bin = Files.createDirectories(tree.resolve("opt/sextant/bin"));
            if (node.isEmpty()) {
                return 0;
            }
            for (Path jar : node.get().jars()) {
                // A fixed mtime keeps the tree identical between builds of the same jars.
                Path copy = Files.copy(jar, lib.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                Files.setLastModifiedTime(copy, java.nio.file.attribute.FileTime.fromMillis(0));
            }
            Path launcher = Files.writeString(bin.resolve("sextant-node"), launcher(node.get().mainClass()));
            Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
            return node.get().jars().size();
        } catch (IOException e) {
            throw new BuildException("cannot stage the node software in " + tree + ": " + e.getMessage(), e);
        }
    }

    static String launcher(String mainClass) {
        return "#!/bin/sh\n"
                + "# Written by sextant image build: runs the node software shipped in /opt/sextant/lib.\n"
                + "exec java " + JAVA_OPTIONS + " -cp '/opt/sextant/lib/*' " + mainClass + " \"$@\"\n";
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        }
    }
}
