package dev.sextant.nodeboot.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A metadata file with one HOST:PORT per line ('#' starts a comment), as a hypervisor or `mini up`
 * writes it. A missing file means "no endpoints yet", not an error: it may appear later.
 */
public record MetadataFileDiscovery(Path file) implements ControlPlaneDiscovery {
    @Override
    public List<Endpoint> endpoints() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        List<Endpoint> endpoints = new ArrayList<>();
        for (String line : lines) {
            String entry = line.replaceFirst("#.*", "").strip();
            if (!entry.isEmpty()) {
                try {
                    endpoints.add(Endpoint.parse(entry));
                } catch (IllegalArgumentException e) {
                    throw new IOException(file + ": " + e.getMessage(), e);
                }
            }
        }
        return endpoints;
    }
}
