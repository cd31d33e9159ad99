package dev.sextant.imagebuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The image's apt sources")
class AptSourcesTest {
    private static final String EXPECTED = """
            Types: deb
            URIs: http://mirror.example/debian
            Suites: bookworm bookworm-updates
            Components: main
            Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

            Types: deb
            URIs: http://mirror.example/debian-security
            Suites: bookworm-security
            Components: main
            Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
            """;

    @TempDir
    Path dir;

    @Test
    @DisplayName("use the host's deb822 mirrors for bookworm, bookworm-updates and bookworm-security only")
    void fromDeb822() throws Exception {
        Path deb822 = Files.writeString(dir.resolve("debian.sources"), """
                Types: deb
                URIs: http://mirror.example/debian
                Suites: bookworm bookworm-updates
                Components: main

                Types: deb
                URIs: http://mirror.example/debian-security
                Suites: bookworm-security
                Components: main
                """);
        assertEquals(EXPECTED, AptSources.forHost(deb822, dir.resolve("absent")));
    }

    @Test
    @DisplayName("fall back to one-line sources.list entries, options and all")
    void fromOneLine() throws Exception {
        Path list = Files.writeString(dir.resolve("sources.list"), """
                # comment
                deb [arch=amd64] http://mirror.example/debian bookworm main
                deb http://mirror.example/debian-security bookworm-security main
                """);
        assertEquals(EXPECTED, AptSources.forHost(dir.resolve("absent"), list));
    }

    @Test
    @DisplayName("derive the security mirror from the main one when none is configured")
    void derivedSecurityMirror() throws Exception {
        Path list = Files.writeString(dir.resolve("sources.list"), "deb http://mirror.example/debian bookworm main\n");
        assertEquals(EXPECTED, AptSources.forHost(dir.resolve("absent"), list));
    }

    @Test
    @DisplayName("refuse to guess when the host has no Debian mirror at all")
    void noMirror() {
        assertThrows(BuildException.class, () -> AptSources.forHost(dir.resolve("a"), dir.resolve("b")));
    }
}
