package dev.sextant.imagebuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.nio.file.attribute.FileTime;

/**
 * The extra tree mkosi copies into the root: {@code /opt/sextant/lib} (the jars),
 * {@code /opt/sextant/bin/<launcher>} per program (sextant-node.service runs sextant-node),
 * optionally a k3s binary as {@code /usr/local/bin/k3s}, and the EK CA bundle, if any, as
 * {@link EkCaBundle#IMAGE_PATH}, and node-boot's image-side settings ({@link UpgradesFrom#NODE_SETTINGS}).
 * Without node software the tree holds only empty directories and the
 * services' conditions keep them idle.
 */
public final class NodeTree {
    /**
     * TCG emulation makes the JIT's top tier expensive at start-up; C1 alone reaches a serving
     * gRPC port sooner, and the node's work is I/O, not computation. C1 compiles a method after ten
     * times the default calls (the Tier3 thresholds): under emulation a compiled method is compiled
     * and then translated once more by QEMU, which costs start-up more than interpreting the methods
     * called only a few hundred times. The root is read-only: no hsperfdata files. Netty's buffer
     * events for Java Flight Recorder are off: registering them starts JFR's event machinery (some
     * 110 classes, annotation proxies and generated handler classes that no archive holds) in a JVM
     * that never records; a node profiled with JFR can drop the property.
     */
    static final String JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:Tier3InvocationThreshold=2000"
            + " -XX:Tier3MinInvocationThreshold=1000 -XX:Tier3CompileThreshold=20000 -XX:Tier3BackEdgeThreshold=600000"
            + " -XX:+UseSerialGC -XX:-UsePerfData -Dio.netty.jfr.enabled=false";
    /**
     * Where each program's class-data-sharing archive lies: written in the image build by its
     * training run (mkosi.postinst.chroot, which points SEXTANT_JAVA_CDS at -XX:ArchiveClassesAtExit),
     * mapped by its launcher on every start.
     */
    static final String CDS_DIR = "/opt/sextant/cds/";

    private NodeTree() {}

    /**
     * Recreates {@code tree} with the node software: jars shared by several programs are staged once
     * (same file name, same bytes) and each launcher names exactly its own jars, so two programs may
     * use different versions of a library. Returns the number of jars staged.
     */
    public static int stage(Path tree, Optional<NodeSoftware> node, Optional<Path> k3s, EkCaBundle ekCa)
            throws BuildException {
        return stage(tree, node, k3s, ekCa, UpgradesFrom.NONE);
    }

    /**
     * As {@link #stage(Path, Optional, Optional, EkCaBundle)}, with node-boot's image-side settings
     * ({@link UpgradesFrom#NODE_SETTINGS}) naming the images this one upgrades from; always written,
     * an empty list included, since sextant-node.service names the file.
     */
    public static int stage(Path tree, Optional<NodeSoftware> node, Optional<Path> k3s, EkCaBundle ekCa,
                            UpgradesFrom upgradesFrom) throws BuildException {
        try {
            Files.createDirectories(tree);
            deleteRecursively(tree);
            Path lib = Files.createDirectories(tree.resolve("opt/sextant/lib"));
            Path bin = Files.createDirectories(tree.resolve("opt/sextant/bin"));
            if (k3s.isPresent()) {
                Path target = Files.createDirectories(tree.resolve("usr/local/bin")).resolve("k3s");
                executable(Files.copy(k3s.get(), target));
            }
            if (!ekCa.isEmpty()) {
                Path bundle = tree.resolve(EkCaBundle.IMAGE_PATH);
                Files.createDirectories(bundle.getParent());
                Files.setLastModifiedTime(Files.writeString(bundle, ekCa.pem()), FileTime.fromMillis(0));
            }
            Path settings = tree.resolve(UpgradesFrom.NODE_SETTINGS);
            Files.createDirectories(settings.getParent());
            Files.setLastModifiedTime(Files.writeString(settings, upgradesFrom.nodeSettings()), FileTime.fromMillis(0));
            if (node.isEmpty()) {
                return 0;
            }
            Map<String, Path> staged = new TreeMap<>();
            for (NodeSoftware.Program program : node.get().programs()) {
                for (Path jar : program.jars()) {
                    stageJar(jar, lib, staged);
                }
                executable(Files.writeString(bin.resolve(program.launcher()), launcher(program)));
            }
            return staged.size();
        } catch (IOException e) {
            throw new BuildException("cannot stage the node software in " + tree + ": " + e.getMessage(), e);
        }
    }

    private static void stageJar(Path jar, Path lib, Map<String, Path> staged) throws IOException, BuildException {
        String name = jar.getFileName().toString();
        Path earlier = staged.putIfAbsent(name, jar);
        if (earlier != null) {
            if (earlier.equals(jar) || Files.mismatch(earlier, jar) == -1) {
                return;
            }
            throw new BuildException("two different jars named " + name + ": " + earlier + " and " + jar);
        }
        Path copy = lib.resolve(name);
        if (SignedJars.isSigned(jar)) {
            SignedJars.copyUnsigned(jar, copy);
        } else {
            Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        // A fixed mtime keeps the tree identical between builds of the same jars (the training run in
        // the image gives them the image's own SOURCE_DATE_EPOCH before it archives them).
        Files.setLastModifiedTime(copy, FileTime.fromMillis(0));
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setLastModifiedTime(file, FileTime.fromMillis(0));
    }

    static String launcher(NodeSoftware.Program program) {
        String classPath = String.join(":", program.jars().stream()
                .map(j -> "/opt/sextant/lib/" + j.getFileName()).toList());
        return "#!/bin/sh\n"
                + "# Written by sextant image build: runs " + program.mainClass() + " with its jars from /opt/sextant/lib\n"
                + "# and the class-data-sharing archive its training run wrote at build time.\n"
                + "exec java " + JAVA_OPTIONS + " ${SEXTANT_JAVA_CDS:--XX:SharedArchiveFile=" + CDS_DIR + program.launcher() + ".jsa}"
                + " -cp '" + classPath + "' " + program.mainClass() + " \"$@\"\n";
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
