package dev.sextant.nodeboot.image;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

@DisplayName("OsRelease: the version the node's own image names")
class OsReleaseTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("is IMAGE_VERSION of os-release, quoted as mkosi writes it or not")
    void readsImageVersion() throws Exception {
        Path file = Files.writeString(dir.resolve("os-release"), "PRETTY_NAME=\"Debian\"\nIMAGE_ID=\"sextant-node\"\nIMAGE_VERSION=\"20261127.101500\"\n");
        assertEquals(Optional.of("20261127.101500"), new OsRelease(file).imageVersion());
        Files.writeString(file, "IMAGE_VERSION=1.4.0\n");
        assertEquals(Optional.of("1.4.0"), new OsRelease(file).imageVersion());
    }

    @Test
    @DisplayName("is none for an image built before versions, an empty value, or no os-release at all")
    void noneOtherwise() throws Exception {
        Path file = Files.writeString(dir.resolve("os-release"), "ID=debian\nIMAGE_VERSION=\"\"\n");
        assertEquals(Optional.empty(), new OsRelease(file).imageVersion());
        assertEquals(Optional.empty(), new OsRelease(dir.resolve("absent")).imageVersion());
    }
}
