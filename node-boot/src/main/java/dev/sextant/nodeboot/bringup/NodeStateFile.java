package dev.sextant.nodeboot.bringup;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sextant.diskcrypt.SecretFiles;
import dev.sextant.diskcrypt.StateMount;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code <state mount>/sextant/node-state.json}, 0600, on the encrypted state disk. */
@Singleton
public final class NodeStateFile {
    private final Path file;
    private final ObjectMapper json = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Inject
    public NodeStateFile(StateMount mount) {
        this(mount.mountPoint().resolve("sextant").resolve("node-state.json"));
    }

    public NodeStateFile(Path file) {
        this.file = file;
    }

    public Path path() {
        return file;
    }

    public void write(NodeState state) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        // Written beside and moved over, so a crash never leaves half a state file on the disk.
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.deleteIfExists(next);
        SecretFiles.write(next, json.writeValueAsBytes(state));
        Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    public NodeState read() throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("no node state at " + file + " (the disk opened, but this node never finished its first bring-up)");
        }
        NodeState state = json.readValue(file.toFile(), NodeState.class);
        if (state.role() == null || state.clusterIdHex() == null || state.since() == null || state.kubernetes() == null) {
            throw new IOException("node state " + file + " lacks its role, cluster ID, since or Kubernetes role");
        }
        try {
            java.time.Instant.parse(state.since());
        } catch (java.time.format.DateTimeParseException e) {
            throw new IOException("node state " + file + ": since is not an ISO-8601 time: " + state.since());
        }
        return state;
    }
}
