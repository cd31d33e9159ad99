package dev.sextant.imagebuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The node software tree")
class NodeTreeTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("ships the jars in /opt/sextant/lib and an executable launcher that runs the main class with them")
    void stagesJarsAndLauncher() throws Exception {
        Path jar = jar(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        int staged = NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar), "dev.sextant.nodeboot.Application")), Optional.empty(), EkCaBundle.NONE);
        assertEquals(1, staged);
        assertTrue(Files.isRegularFile(tree.resolve("opt/sextant/lib/a.jar")));
        Path launcher = tree.resolve("opt/sextant/bin/sextant-node");
        assertTrue(Files.isExecutable(launcher));
        assertTrue(Files.readString(launcher).contains("-cp '/opt/sextant/lib/a.jar' dev.sextant.nodeboot.Application"));
    }

    @Test
    @DisplayName("maps the class-data-sharing archive of its program, unless the training run points SEXTANT_JAVA_CDS elsewhere")
    void launcherMapsItsArchive() throws Exception {
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar(dir.resolve("a.jar"), "a")), "a.B")), Optional.empty(), EkCaBundle.NONE);
        assertTrue(Files.readString(tree.resolve("opt/sextant/bin/sextant-node"))
                .contains(" ${SEXTANT_JAVA_CDS:--XX:SharedArchiveFile=/opt/sextant/cds/sextant-node.jsa} -cp "));
    }

    @Test
    @DisplayName("ships a signed jar without its signature files, every other entry as it was (the JVM archives no class of a signed jar)")
    void unsignsSignedJars() throws Exception {
        Path signed = jar(dir.resolve("bcprov.jar"), "x", "META-INF/BC.SF", "META-INF/BC.RSA", "META-INF/SIG-X",
                "META-INF/services/java.security.Provider", "org/bouncycastle/P.class");
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(signed), "a.B")), Optional.empty(), EkCaBundle.NONE);
        Path shipped = tree.resolve("opt/sextant/lib/bcprov.jar");
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(shipped.toFile())) {
            assertEquals(List.of("META-INF/MANIFEST.MF", "META-INF/services/java.security.Provider", "org/bouncycastle/P.class"),
                    file.stream().map(java.util.zip.ZipEntry::getName).toList());
            assertEquals("x", new String(file.getInputStream(file.getEntry("org/bouncycastle/P.class")).readAllBytes()));
        }
        assertEquals(0, Files.getLastModifiedTime(shipped).toMillis());
        assertFalse(SignedJars.isSigned(shipped));
        assertTrue(SignedJars.isSigned(signed));
    }

    /** A jar with a manifest and each named entry holding {@code content}. */
    private static Path jar(Path path, String content, String... entries) throws java.io.IOException {
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(path), new java.util.jar.Manifest())) {
            for (String entry : entries.length == 0 ? new String[] {"content"} : entries) {
                out.putNextEntry(new java.util.zip.ZipEntry(entry));
                out.write(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return path;
    }

    @Test
    @DisplayName("stages a jar shared by two programs once, and gives each launcher only its own jars")
    void sharedJarsOnce() throws Exception {
        Path shared = jar(dir.resolve("shared.jar"), "shared");
        Path a = jar(dir.resolve("a.jar"), "a");
        Path b = jar(dir.resolve("b.jar"), "b");
        Path tree = dir.resolve("tree");
        int staged = NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(
                new NodeSoftware.Program("sextant-node", "n.Main", List.of(a, shared)),
                new NodeSoftware.Program("sextant-kms", "k.Main", List.of(b, shared))))), Optional.empty(), EkCaBundle.NONE);
        assertEquals(3, staged);
        assertTrue(Files.readString(tree.resolve("opt/sextant/bin/sextant-kms"))
                .contains("-cp '/opt/sextant/lib/b.jar:/opt/sextant/lib/shared.jar' k.Main"));
    }

    @Test
    @DisplayName("refuses two different jars under one file name rather than ship one of them to both programs")
    void conflictingJars() throws Exception {
        Path one = jar(Files.createDirectories(dir.resolve("one")).resolve("lib.jar"), "1");
        Path two = jar(Files.createDirectories(dir.resolve("two")).resolve("lib.jar"), "2");
        NodeSoftware software = new NodeSoftware(List.of(
                new NodeSoftware.Program("sextant-node", "n.Main", List.of(one)),
                new NodeSoftware.Program("sextant-kms", "k.Main", List.of(two))));
        BuildException e = assertThrows(BuildException.class,
                () -> NodeTree.stage(dir.resolve("tree"), Optional.of(software), Optional.empty(), EkCaBundle.NONE));
        assertTrue(e.getMessage().contains("two different jars named lib.jar"), e.getMessage());
    }

    @Test
    @DisplayName("ships a given k3s binary as /usr/local/bin/k3s, executable")
    void shipsK3s() throws Exception {
        Path k3s = Files.writeString(dir.resolve("k3s"), "#!/bin/sh\n");
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.empty(), Optional.of(k3s), EkCaBundle.NONE);
        assertTrue(Files.isExecutable(tree.resolve("usr/local/bin/k3s")));
    }

    @Test
    @DisplayName("leaves no launcher behind when rebuilt without node software")
    void restagesEmpty() throws Exception {
        Path jar = jar(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar), "a.B")), Optional.empty(), EkCaBundle.NONE);
        assertEquals(0, NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.NONE));
        assertFalse(Files.exists(tree.resolve("opt/sextant/bin/sextant-node")));
        assertTrue(Files.isDirectory(tree.resolve("opt/sextant/lib")));
    }

    @Test
    @DisplayName("hash to the same input digest when staged twice from the same jars, and to another when a jar changes")
    void digestIsStable() throws Exception {
        Path jar = jar(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        NodeSoftware node = new NodeSoftware(List.of(jar), "a.B");
        NodeTree.stage(tree, Optional.of(node), Optional.empty(), EkCaBundle.NONE);
        String first = InputDigest.of(List.of(tree), List.of("mkosi", "build"));
        NodeTree.stage(tree, Optional.of(node), Optional.empty(), EkCaBundle.NONE);
        assertEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
        jar(jar, "jar2");
        NodeTree.stage(tree, Optional.of(node), Optional.empty(), EkCaBundle.NONE);
        assertNotEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
    }

    @Test
    @DisplayName("refuses a main class that is not a Java class name (it is written into a shell script)")
    void rejectsShellInMainClass() {
        assertThrows(IllegalArgumentException.class,
                () -> new NodeSoftware(List.of(dir.resolve("a.jar")), "a.B; rm -rf /"));
    }
}
