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
import java.util.Optional;

/**
 * How {@code mini up} booted a node ({@code <node>/launch.json}), so {@code mini reboot} and
 * {@code mini start} power it on with the same QEMU arguments: the same image, TPM state, disks
 * ({@link NodeDisks}: the state disk, a control plane's etcd data volume), memory, accelerator,
 * forwarded ports and settings. 0600: the settings hold the init secret's salted hash (no secret,
 * but nothing anyone else needs). {@code etcdVolume} is null for a worker, and in a launch file
 * written before control planes had volumes (such a node keeps etcd's data on its state disk).
 */
public record NodeLaunch(String image, String tpmState, String stateDisk, int memoryMiB, Accel accel,
                         List<Integer> guestPorts, Map<Integer, Integer> hostPorts, Map<String, String> settings,
                         String etcdVolume) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public NodeLaunch {
        guestPorts = List.copyOf(guestPorts);
        hostPorts = new LinkedHashMap<>(hostPorts);
        settings = new LinkedHashMap<>(settings);
    }

    /** What {@code config} boots, without the host tools (located again on every boot). */
    public static NodeLaunch of(NodeConfig config) {
        NodeDisks disks = NodeDisks.of(config);
        return new NodeLaunch(config.image().toString(),
                config.tpmState().orElseThrow(() -> new IllegalArgumentException("a mini node has a manufactured TPM"))
                        .toString(),
                disks.stateDisk().toString(), config.memoryMiB(), config.accel(), config.guestPorts(),
                config.hostPorts(), config.settings(), disks.etcdVolume().map(Path::toString).orElse(null));
    }

    /** The same launch booting another disk image (an image upgrade replaces the boot disk, nothing else). */
    public NodeLaunch withImage(Path other) {
        return new NodeLaunch(other.toString(), tpmState, stateDisk, memoryMiB, accel, guestPorts, hostPorts, settings,
                etcdVolume);
    }

    /** The same launch with one setting added or replaced: what the node is told from its next boot on. */
    public NodeLaunch withSetting(String key, String value) {
        Map<String, String> changed = new LinkedHashMap<>(settings);
        changed.put(key, value);
        return new NodeLaunch(image, tpmState, stateDisk, memoryMiB, accel, guestPorts, hostPorts, changed, etcdVolume);
    }

    /** The node's configuration again, its processes outliving the command like every mini node's. */
    public NodeConfig config(HostTools tools, Path workDir) {
        return disks().attachTo(NodeConfig.of(tools, Path.of(image), workDir, guestPorts).withTpmState(Path.of(tpmState))
                .withMemoryMiB(memoryMiB).withHostPorts(hostPorts)
                .withSettings(settings).withAccel(accel).withLifetime(Lifetime.DETACHED));
    }

    /** The disks every boot of this node attaches. */
    public NodeDisks disks() {
        return new NodeDisks(Path.of(stateDisk), Optional.ofNullable(etcdVolume).map(Path::of));
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
