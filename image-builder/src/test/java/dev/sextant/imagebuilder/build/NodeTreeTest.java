package dev.sextant.imagebuilder.build;

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
        int staged = NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar), "dev.sextant.nodeboot.Application")));
        assertEquals(1, staged);
        assertTrue(Files.isRegularFile(tree.resolve("opt/sextant/lib/a.jar")));
        Path launcher = tree.resolve("opt/sextant/bin/sextant-node");
        assertTrue(Files.isExecutable(launcher));
        assertTrue(Files.readString(launcher).contains("-cp '/opt/sextant/lib/*' dev.sextant.nodeboot.Application"));
    }

    @Test
    @DisplayName("leaves no launcher behind when rebuilt without node software")
    void restagesEmpty() throws Exception {
        Path jar = Files.writeString(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.of(new NodeSoftware(List.of(jar), "a.B")));
        assertEquals(0, NodeTree.stage(tree, Optional.empty()));
        assertFalse(Files.exists(tree.resolve("opt/sextant/bin/sextant-node")));
        assertTrue(Files.isDirectory(tree.resolve("opt/sextant/lib")));
    }

    @Test
    @DisplayName("hash to the same input digest when staged twice from the same jars, and to another when a jar changes")
    void digestIsStable() throws Exception {
        Path jar = Files.writeString(dir.resolve("a.jar"), "jar");
        Path tree = dir.resolve("tree");
        NodeSoftware node = new NodeSoftware(List.of(jar), "a.B");
        NodeTree.stage(tree, Optional.of(node));
        String first = InputDigest.of(List.of(tree), List.of("mkosi", "build"));
        NodeTree.stage(tree, Optional.of(node));
        assertEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
        Files.writeString(jar, "jar2");
        NodeTree.stage(tree, Optional.of(node));
        assertNotEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
    }

    @Test
    @DisplayName("refuses a main class that is not a Java class name (it is written into a shell script)")
    void rejectsShellInMainClass() {
        assertThrows(IllegalArgumentException.class,
                () -> new NodeSoftware(List.of(dir.resolve("a.jar")), "a.B; rm -rf /"));
    }
}
