package dev.sextant.imagetool;

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
        Path jar = Files.writeString(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        int staged = NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar), "dev.sextant.nodeboot.Application")), Optional.empty());
        assertEquals(1, staged);
        assertTrue(Files.isRegularFile(tree.resolve("opt/sextant/lib/a.jar")));
        Path launcher = tree.resolve("opt/sextant/bin/sextant-node");
        assertTrue(Files.isExecutable(launcher));
        assertTrue(Files.readString(launcher).contains("-cp '/opt/sextant/lib/a.jar' dev.sextant.nodeboot.Application"));
    }

    @Test
    @DisplayName("stages a jar shared by two programs once, and gives each launcher only its own jars")
    void sharedJarsOnce() throws Exception {
        Path shared = Files.writeString(dir.resolve("shared.jar"), "shared");
        Path a = Files.writeString(dir.resolve("a.jar"), "a");
        Path b = Files.writeString(dir.resolve("b.jar"), "b");
        Path tree = dir.resolve("tree");
        int staged = NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(
                new NodeSoftware.Program("sextant-node", "n.Main", List.of(a, shared)),
                new NodeSoftware.Program("sextant-kms", "k.Main", List.of(b, shared))))), Optional.empty());
        assertEquals(3, staged);
        assertTrue(Files.readString(tree.resolve("opt/sextant/bin/sextant-kms"))
                .contains("-cp '/opt/sextant/lib/b.jar:/opt/sextant/lib/shared.jar' k.Main"));
    }

    @Test
    @DisplayName("refuses two different jars under one file name rather than ship one of them to both programs")
    void conflictingJars() throws Exception {
        Path one = Files.writeString(Files.createDirectories(dir.resolve("one")).resolve("lib.jar"), "1");
        Path two = Files.writeString(Files.createDirectories(dir.resolve("two")).resolve("lib.jar"), "2");
        NodeSoftware software = new NodeSoftware(List.of(
                new NodeSoftware.Program("sextant-node", "n.Main", List.of(one)),
                new NodeSoftware.Program("sextant-kms", "k.Main", List.of(two))));
        BuildException e = assertThrows(BuildException.class,
                () -> NodeTree.stage(dir.resolve("tree"), Optional.of(software), Optional.empty()));
        assertTrue(e.getMessage().contains("two different jars named lib.jar"), e.getMessage());
    }

    @Test
    @DisplayName("ships a given k3s binary as /usr/local/bin/k3s, executable")
    void shipsK3s() throws Exception {
        Path k3s = Files.writeString(dir.resolve("k3s"), "#!/bin/sh\n");
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.empty(), Optional.of(k3s));
        assertTrue(Files.isExecutable(tree.resolve("usr/local/bin/k3s")));
    }

    @Test
    @DisplayName("leaves no launcher behind when rebuilt without node software")
    void restagesEmpty() throws Exception {
        Path jar = Files.writeString(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar), "a.B")), Optional.empty());
        assertEquals(0, NodeTree.stage(tree, Optional.empty(), Optional.empty()));
        assertFalse(Files.exists(tree.resolve("opt/sextant/bin/sextant-node")));
        assertTrue(Files.isDirectory(tree.resolve("opt/sextant/lib")));
    }

    @Test
    @DisplayName("hash to the same input digest when staged twice from the same jars, and to another when a jar changes")
    void digestIsStable() throws Exception {
        Path jar = Files.writeString(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        NodeSoftware node = new NodeSoftware(List.of(jar), "a.B");
        NodeTree.stage(tree, Optional.of(node), Optional.empty());
        String first = InputDigest.of(List.of(tree), List.of("mkosi", "build"));
        NodeTree.stage(tree, Optional.of(node), Optional.empty());
        assertEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
        Files.writeString(jar, "jar2");
        NodeTree.stage(tree, Optional.of(node), Optional.empty());
        assertNotEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
    }

    @Test
    @DisplayName("refuses a main class that is not a Java class name (it is written into a shell script)")
    void rejectsShellInMainClass() {
        assertThrows(IllegalArgumentException.class,
                () -> new NodeSoftware(List.of(dir.resolve("a.jar")), "a.B; rm -rf /"));
    }
}
