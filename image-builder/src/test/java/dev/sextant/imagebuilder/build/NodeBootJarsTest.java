package dev.sextant.imagebuilder.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The node-boot jars of a source tree")
class NodeBootJarsTest {
    @TempDir
    Path repo;

    @Test
    @DisplayName("are the node-boot jar first, then its dependencies from target/lib, without sources or test jars")
    void mainJarThenLib() throws Exception {
        Path target = Files.createDirectories(repo.resolve("node-boot/target/lib"));
        Files.writeString(repo.resolve("node-boot/target/sextant-node-boot-0.1.0-SNAPSHOT.jar"), "main");
        Files.writeString(repo.resolve("node-boot/target/sextant-node-boot-0.1.0-SNAPSHOT-sources.jar"), "src");
        Files.writeString(target.resolve("b.jar"), "b");
        Files.writeString(target.resolve("a.jar"), "a");
        List<String> names = new NodeBootJars(repo).locate().stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(List.of("sextant-node-boot-0.1.0-SNAPSHOT.jar", "a.jar", "b.jar"), names);
    }

    @Test
    @DisplayName("are absent while node-boot is not built, which makes the command build it")
    void absentWhenNotBuilt() throws Exception {
        assertEquals(List.of(), new NodeBootJars(repo).locate());
    }

    @Test
    @DisplayName("come with a warning naming the mvn command when node-boot's sources are newer than its jar")
    void warnsWhenStale() throws Exception {
        Files.createDirectories(repo.resolve("node-boot/target/lib"));
        Path jar = Files.writeString(repo.resolve("node-boot/target/sextant-node-boot-0.1.0-SNAPSHOT.jar"), "main");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(1000));
        Files.writeString(Files.createDirectories(repo.resolve("node-boot/src/main")).resolve("A.java"), "class A {}");
        List<String> log = new ArrayList<>();
        NodeSoftware node = new NodeBootJars(repo).locateOrBuild(log::add);
        assertEquals(NodeSoftware.NODE_BOOT_MAIN, node.mainClass());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("WARNING") && l.contains("mvn -B -q -DskipTests -pl node-boot")), log.toString());
    }
}
