package dev.sextant.nodeboot.rememberdisk;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.core.type.Argument;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The image's node-boot settings file (sextant image build writes /opt/sextant/etc/sextant-node.yml,
 * sextant-node.service names it in MICRONAUT_CONFIG_FILES, the JVM-wide twin of the property used here)
 * wins over the jar's application.yml, whose list of predecessor writers is empty.
 */
class ImageSettingsFileTest {
    private static final String WRITER = "595633a179905bf650375c54e336ee19e1b67483884e8718e6fee4d0ace7c82c";

    @Test
    @DisplayName("the predecessor writers an upgrade image's settings file lists replace application.yml's empty list")
    void imageFileWins(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("sextant-node.yml"), "sextant:\n  remembered-disk:\n"
                + "    predecessor-writers:\n      # image 1.0.0\n      - \"" + WRITER + "\"\n");
        assertEquals(List.of(WRITER), predecessorsWith(file));
    }

    @Test
    @DisplayName("an image built without --upgrades-from lists none")
    void emptyList(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("sextant-node.yml"), "sextant:\n  remembered-disk:\n    predecessor-writers: []\n");
        assertEquals(List.of(), predecessorsWith(file));
    }

    private static List<String> predecessorsWith(Path file) {
        String before = System.getProperty("micronaut.config.files");
        System.setProperty("micronaut.config.files", file.toString());
        try (ApplicationContext context = ApplicationContext.builder().build()) {
            Environment environment = context.getEnvironment().start();
            return environment.getProperty(RememberedDiskSettings.PREDECESSORS, Argument.listOf(String.class)).orElse(List.of())
                    .stream().filter(w -> !w.isBlank()).toList();
        } finally {
            if (before == null) {
                System.clearProperty("micronaut.config.files");
            } else {
                System.setProperty("micronaut.config.files", before);
            }
        }
    }
}
