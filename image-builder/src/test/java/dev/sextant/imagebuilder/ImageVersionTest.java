package dev.sextant.imagebuilder;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("ImageVersion: the version mkosi writes into the image's os-release")
class ImageVersionTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"1", "1.4.0", "20261127.101500", "2026-rc_1"})
    @DisplayName("takes what os-release allows for IMAGE_VERSION")
    void takesOsReleaseVersions(String version) {
        assertEquals(version, new ImageVersion(version).value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Release", "1 2", ".1", "-1", "1/2", "1\"", "1\nIMAGE_ID=x",
            "12345678901234567890123456789012345678901234567890123456789012345"})
    @DisplayName("refuses upper case, spaces, separators first, quotes, new lines, slashes and more than 64 characters")
    void refusesTheRest(String version) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ImageVersion(version));
        assertTrue(e.getMessage().contains("os-release's IMAGE_VERSION"), e.getMessage());
    }

    @Test
    @DisplayName("without one given, is the build's UTC time, so later builds sort after earlier ones")
    void defaultsToTheBuildTime() {
        assertEquals("20261127.091504", ImageVersion.builtAt(Instant.parse("2026-11-27T09:15:04Z")).value());
    }

    @Test
    @DisplayName("is read back from beside a complete build, and not from a file that holds no valid version")
    void isStoredBesideTheImage() throws Exception {
        assertEquals(Optional.empty(), ImageVersion.stored(dir));
        Files.writeString(dir.resolve(ImageVersion.OUT_FILE), "1.4.0\n");
        assertEquals(Optional.of(new ImageVersion("1.4.0")), ImageVersion.stored(dir));
        Files.writeString(dir.resolve(ImageVersion.OUT_FILE), "1.4.0 beta\n");
        assertEquals(Optional.empty(), ImageVersion.stored(dir));
    }

    @Test
    @DisplayName("goes to mkosi as --image-version, which writes IMAGE_VERSION into os-release")
    void goesToMkosi() {
        BuildRequest request = BuildRequest.forRepo(dir, dir.resolve("out"), Optional.empty());
        var args = new MkosiCommand(request, dir.resolve("pkgmngr"), dir.resolve("tree")).arguments("1.4.0");
        assertEquals("1.4.0", args.get(args.indexOf("--image-version") + 1));
    }
}
