package dev.sextant.nodeboot.joinservices;

import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.discovery.Endpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A metadata file with HOST:PORT entries, one per line or comma-separated ('#' starts a comment),
 * as a hypervisor writes it or `mini up` passes it as a systemd credential. A missing file means "no endpoints yet", not an error: it may appear later.
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
            for (String entry : line.replaceFirst("#.*", "").split(",")) {
                entry = entry.strip();
                if (entry.isEmpty()) {
                    continue;
                }
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
