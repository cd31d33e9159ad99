package dev.sextant.localcluster.mini.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.Accel;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.Lifetime;
import dev.sextant.localcluster.qemu.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A node's launch file")
class NodeLaunchTest {
    @TempDir
    Path dir;
    private final HostTools tools = new HostTools(Path.of("/usr/bin/qemu-system-x86_64"), Path.of("/usr/bin/swtpm"),
            Path.of("/ovmf/CODE.fd"), Path.of("/ovmf/VARS.fd"));

    @Test
    @DisplayName("boots the node again exactly as first configured: image, TPM state, disk, memory, accelerator, ports, settings")
    void roundTrip() throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("sextant.node-name", "worker-0");
        settings.put("sextant.ek-ca", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        NodeConfig first = NodeConfig.of(tools, Path.of("/m/image.raw"), dir, NodeRole.CONTROL_PLANE.guestPorts())
                .withTpmState(Path.of("/m/worker-0/tpm/state")).withMemoryMiB(1536)
                .withHostPorts(Map.of(7443, 40000, 7444, 40001, 9090, 40002, 9091, 40003, 6443, 40004))
                .withStateDisk(Path.of("/m/worker-0/state-disk.raw")).withSettings(settings)
                .withAccel(Accel.KVM).withLifetime(Lifetime.DETACHED);
        Path file = dir.resolve("launch.json");
        NodeLaunch.of(first).write(file);

        assertEquals(first, NodeLaunch.read(file).config(tools, dir));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    @DisplayName("a setting added for the next boots keeps every other setting and everything else the node boots with")
    void settingAdded() throws Exception {
        NodeConfig first = NodeConfig.of(tools, Path.of("/m/image.raw"), dir, NodeRole.CONTROL_PLANE.guestPorts())
                .withTpmState(Path.of("/m/control-plane-0/tpm/state")).withHostPorts(Map.of(9090, 40002))
                .withStateDisk(Path.of("/m/control-plane-0/state-disk.raw"))
                .withSettings(Map.of("sextant.node-name", "control-plane-0")).withLifetime(Lifetime.DETACHED);
        Path file = dir.resolve("launch.json");
        NodeLaunch.of(first).withSetting("sextant.join-endpoints", "10.0.2.2:40002,10.0.2.2:40102").write(file);

        NodeConfig next = NodeLaunch.read(file).config(tools, dir);
        assertEquals(Map.of("sextant.node-name", "control-plane-0", "sextant.join-endpoints",
                "10.0.2.2:40002,10.0.2.2:40102"), next.settings());
        assertEquals(first.withSettings(next.settings()), next);
    }

    @Test
    @DisplayName("a missing launch file says the node cannot be booted the same way, and how to start afresh")
    void missing() {
        var e = assertThrows(IOException.class, () -> NodeLaunch.read(dir.resolve("launch.json")));
        assertTrue(e.getMessage().contains("mini down --purge"), e.getMessage());
    }
}
