package dev.sextant.nodeboot.joinservices;

import dev.sextant.housekeeping.discovery.Endpoint;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DiscoveryTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("a metadata file lists HOST:PORT lines with comments; it is re-read each round and may not exist yet")
    void metadataFile() throws IOException {
        Path file = dir.resolve("endpoints");
        var discovery = new MetadataFileDiscovery(file);
        assertEquals(List.of(), discovery.endpoints());
        Files.writeString(file, "# control planes\n10.0.0.1:30090\n\n[fd00::1]:30090  # v6\n");
        assertEquals(List.of(new Endpoint("10.0.0.1", 30090), new Endpoint("fd00::1", 30090)), discovery.endpoints());
        Files.writeString(file, "not-an-endpoint\n");
        assertThrows(IOException.class, discovery::endpoints);
    }
}
