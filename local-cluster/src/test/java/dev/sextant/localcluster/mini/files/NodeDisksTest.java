package dev.sextant.localcluster.mini.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.NodeConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A mini node's disks")
class NodeDisksTest {
    @TempDir
    Path dir;
    private final HostTools tools = new HostTools(Path.of("/usr/bin/qemu-system-x86_64"), Path.of("/usr/bin/swtpm"),
            Path.of("/ovmf/CODE.fd"), Path.of("/ovmf/VARS.fd"));

    @Test
    @DisplayName("give a control plane a state disk and an etcd volume: one GPT partition named by its tag, member m<index>")
    void controlPlaneVolume() throws Exception {
        MiniLayout layout = new MiniLayout(dir);
        NodeDisks disks = NodeDisks.create(layout, "control-plane-2", NodeRole.CONTROL_PLANE);

        assertEquals(layout.stateDisk("control-plane-2"), disks.stateDisk());
        Path volume = disks.etcdVolume().orElseThrow();
        assertEquals(layout.etcdVolume("control-plane-2"), volume);
        assertEquals(VolumeDiskFile.BYTES, Files.size(volume));
        JsonNode table = sfdiskJson(volume).get("partitiontable");
        assertEquals("gpt", table.get("label").asText());
        assertEquals(1, table.get("partitions").size());
        JsonNode partition = table.get("partitions").get(0);
        assertEquals("sx1:sextant:cp:z1:m2", partition.get("name").asText());
        assertEquals("0FC63DAF-8483-4772-8E79-3D69D8477DE4", partition.get("type").asText());
        assertTrue(partition.get("size").asLong() * 512 > VolumeDiskFile.BYTES - (4L << 20), partition.toString());
    }

    @Test
    @DisplayName("give a worker its state disk and no volume")
    void workerHasNoVolume() throws Exception {
        NodeDisks disks = NodeDisks.create(new MiniLayout(dir), "worker-0", NodeRole.WORKER);
        assertEquals(Optional.empty(), disks.etcdVolume());
        assertTrue(Files.isRegularFile(disks.stateDisk()));
        assertTrue(!Files.exists(new MiniLayout(dir).etcdVolume("worker-0")));
    }

    @Test
    @DisplayName("attach the volume after the state disk at every boot: mini up's, and each from the launch file"
            + " (reboot, stop/start, down/start), also after an image upgrade or its rollback replaced the boot disk")
    void everyBootAttachesTheVolume() throws Exception {
        MiniLayout layout = new MiniLayout(dir);
        NodeDisks disks = NodeDisks.create(layout, "control-plane-0", NodeRole.CONTROL_PLANE);
        NodeConfig up = disks.attachTo(NodeConfig.of(tools, Path.of("/m/image.raw"), dir, List.of(7443))
                .withTpmState(Path.of("/m/tpm/state")));
        assertEquals(List.of(layout.etcdVolume("control-plane-0")), up.dataVolumes());
        assertEquals(Optional.of(layout.stateDisk("control-plane-0")), up.stateDisk());

        Path file = layout.launch("control-plane-0");
        NodeLaunch.of(up).write(file);
        NodeConfig reboot = NodeLaunch.read(file).config(tools, dir);
        assertEquals(up.dataVolumes(), reboot.dataVolumes());
        assertEquals(disks, NodeLaunch.read(file).disks());

        NodeLaunch.read(file).withImage(Path.of("/m/images/2.raw")).write(file);
        NodeConfig upgraded = NodeLaunch.read(file).config(tools, dir);
        assertEquals(Path.of("/m/images/2.raw"), upgraded.image());
        assertEquals(up.dataVolumes(), upgraded.dataVolumes());
        NodeLaunch.read(file).withImage(Path.of("/m/image.raw")).write(file);
        assertEquals(up.dataVolumes(), NodeLaunch.read(file).config(tools, dir).dataVolumes());
    }

    @Test
    @DisplayName("boot a node whose launch file predates volumes without one (its etcd data stays on its state disk)")
    void olderLaunchFileHasNoVolume() throws Exception {
        MiniLayout layout = new MiniLayout(dir);
        NodeConfig up = NodeDisks.create(layout, "control-plane-0", NodeRole.CONTROL_PLANE)
                .attachTo(NodeConfig.of(tools, Path.of("/m/image.raw"), dir, List.of(7443)).withTpmState(Path.of("/t")));
        Path file = layout.launch("control-plane-0");
        NodeLaunch.of(up).write(file);
        ObjectMapper json = new ObjectMapper();
        ObjectNode old = (ObjectNode) json.readTree(file.toFile());
        old.remove("etcdVolume");
        Files.write(file, json.writeValueAsBytes(old));
        assertEquals(List.of(), NodeLaunch.read(file).config(tools, dir).dataVolumes());
    }

    @Test
    @DisplayName("refuse a data volume without a state disk before it, which the guest would take for its state disk")
    void volumeNeedsStateDisk() {
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.of(tools, Path.of("/i"), dir, List.of(7443))
                .withDataVolume(Path.of("/v.raw")));
    }

    private static JsonNode sfdiskJson(Path disk) throws Exception {
        String sfdisk = Files.isExecutable(Path.of("/usr/sbin/sfdisk")) ? "/usr/sbin/sfdisk" : "sfdisk";
        Process p = new ProcessBuilder(sfdisk, "--json", disk.toString()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return new ObjectMapper().readTree(out);
    }

}
