package dev.sextant.localcluster.mini.files;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sextant.localcluster.qemu.Accel;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.Lifetime;
import dev.sextant.localcluster.qemu.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How {@code mini up} booted a node ({@code <node>/launch.json}), so {@code mini reboot} and
 * {@code mini start} power it on with the same QEMU arguments: the same image, TPM state, state
 * disk, memory, accelerator, forwarded ports and settings. 0600: the settings hold the init
 * secret's salted hash (no secret, but nothing anyone else needs).
 */
public record NodeLaunch(String image, String tpmState, String stateDisk, int memoryMiB, Accel accel,
                         List<Integer> guestPorts, Map<Integer, Integer> hostPorts, Map<String, String> settings) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public NodeLaunch {
        guestPorts = List.copyOf(guestPorts);
        hostPorts = new LinkedHashMap<>(hostPorts);
        settings = new LinkedHashMap<>(settings);
    }

    /** What {@code config} boots, without the host tools (located again on every boot). */
    public static NodeLaunch of(NodeConfig config) {
        return new NodeLaunch(config.image().toString(),
                config.tpmState().orElseThrow(() -> new IllegalArgumentException("a mini node has a manufactured TPM"))
                        .toString(),
                config.stateDisk().orElseThrow(() -> new IllegalArgumentException("a mini node has a state disk"))
                        .toString(),
                config.memoryMiB(), config.accel(), config.guestPorts(), config.hostPorts(), config.settings());
    }

    /** The same launch booting another disk image (an image upgrade replaces the boot disk, nothing else). */
    public NodeLaunch withImage(Path other) {
        return new NodeLaunch(other.toString(), tpmState, stateDisk, memoryMiB, accel, guestPorts, hostPorts, settings);
    }

    /** The node's configuration again, its processes outliving the command like every mini node's. */
    public NodeConfig config(HostTools tools, Path workDir) {
        return NodeConfig.of(tools, Path.of(image), workDir, guestPorts).withTpmState(Path.of(tpmState))
                .withMemoryMiB(memoryMiB).withHostPorts(hostPorts).withStateDisk(Path.of(stateDisk))
                .withSettings(settings).withAccel(accel).withLifetime(Lifetime.DETACHED);
    }

    public void write(Path file) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, JSON.writeValueAsBytes(this));
    }

    public static NodeLaunch read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("no " + file + ": the node was not booted by this sextant's 'mini up', so it cannot be"
                    + " booted again the same way; 'sextant mini down --purge' and 'sextant mini up' start afresh");
        }
        try {
            return JSON.readValue(Files.readAllBytes(file), NodeLaunch.class);
        } catch (JsonProcessingException e) {
            throw new IOException(file + " is not a node launch file: " + e.getOriginalMessage());
        }
    }
}
