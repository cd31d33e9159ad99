package dev.sextant.imagebuilder;

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

@DisplayName("The node software of a source tree")
class NodeBootJarsTest {
    @TempDir
    Path repo;

    private Path built(String module) throws Exception {
        Path lib = Files.createDirectories(repo.resolve(module + "/target/lib"));
        Files.writeString(lib.resolve("b.jar"), "b");
        Files.writeString(lib.resolve("a.jar"), "a");
        Files.writeString(repo.resolve(module + "/target/sextant-" + module + "-0.1.0-SNAPSHOT-sources.jar"), "src");
        return Files.writeString(repo.resolve(module + "/target/sextant-" + module + "-0.1.0-SNAPSHOT.jar"), "main");
    }

    @Test
    @DisplayName("names main classes that exist in node-boot, kms and join-api (the modules image-builder's pom declares), so a renamed main class fails this build, not a booting node")
    void mainClassesExist() {
        for (NodeBootJars.Module module : NodeBootJars.MODULES) {
            try {
                Class<?> main = Class.forName(module.mainClass(), false, getClass().getClassLoader());
                main.getMethod("main", String[].class);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(module.dir() + ": " + module.mainClass() + " is not a main class on the class path of "
                        + "image-builder (a provided dependency on " + module.dir() + "): " + e, e);
            }
        }
    }

    @Test
    @DisplayName("is the bootstrapper, the KMS and the join service, each its main jar first, then its target/lib, without sources or test jars")
    void threeProgramsMainJarThenLib() throws Exception {
        built("node-boot");
        built("kms");
        built("join-api");
        NodeSoftware software = new NodeBootJars(repo).locateOrBuild(line -> { });
        assertEquals(List.of("sextant-node", "sextant-kms", "sextant-join"),
                software.programs().stream().map(NodeSoftware.Program::launcher).toList());
        assertEquals(NodeSoftware.NODE_BOOT_MAIN, software.programs().get(0).mainClass());
        assertEquals(List.of("sextant-node-boot-0.1.0-SNAPSHOT.jar", "a.jar", "b.jar"),
                software.programs().get(0).jars().stream().map(p -> p.getFileName().toString()).toList());
    }

    @Test
    @DisplayName("comes with a warning naming the mvn command when a module's sources are newer than its jar")
    void warnsWhenStale() throws Exception {
        built("node-boot");
        built("join-api");
        Files.setLastModifiedTime(built("kms"), FileTime.fromMillis(1000));
        Files.writeString(Files.createDirectories(repo.resolve("kms/src/main")).resolve("A.java"), "class A {}");
        List<String> log = new ArrayList<>();
        new NodeBootJars(repo).locateOrBuild(log::add);
        assertTrue(log.stream().anyMatch(l -> l.startsWith("WARNING: sextant-kms") && l.contains("mvn -B -q -DskipTests -pl node-boot,kms,join-api")),
                log.toString());
    }
}
