package dev.sextant.localcluster.mini.files;

import dev.sextant.localcluster.mini.node.EtcdVolumeTag;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.NodeConfig;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Which disks a mini node has besides its boot image: every node its state disk ({@code /dev/vdb}), a control
 * plane also its etcd data volume. Made once, at {@code mini up} ({@link #create}); every later boot of the
 * node (reboot, stop and start, down and start, an image rollout or its rollback) attaches the same files
 * through its launch file ({@link NodeLaunch}), which holds these and nothing else of the disks.
 */
public record NodeDisks(Path stateDisk, Optional<Path> etcdVolume) {
    private static final long STATE_DISK_BYTES = 256L << 20;

    /** New, empty disks for the node {@code name}: a sparse state disk, and for a control plane its tagged volume. */
    public static NodeDisks create(MiniLayout layout, String name, NodeRole role) throws IOException, InterruptedException {
        Path disk = layout.stateDisk(name);
        Files.createDirectories(disk.getParent());
        Files.deleteIfExists(disk);
        // Sparse: the node LUKS-formats it; only what it writes takes space.
        try (RandomAccessFile file = new RandomAccessFile(disk.toFile(), "rw")) {
            file.setLength(STATE_DISK_BYTES);
        }
        Optional<Path> volume = Optional.empty();
        if (role == NodeRole.CONTROL_PLANE) {
            volume = Optional.of(VolumeDiskFile.create(layout.etcdVolume(name),
                    EtcdVolumeTag.ofControlPlane(role.indexOf(name))));
        }
        return new NodeDisks(disk, volume);
    }

    /** The disks {@code config} attaches. */
    public static NodeDisks of(NodeConfig config) {
        if (config.dataVolumes().size() > 1) {
            throw new IllegalArgumentException("a mini node has at most one data volume, got " + config.dataVolumes());
        }
        return new NodeDisks(config.stateDisk()
                .orElseThrow(() -> new IllegalArgumentException("a mini node has a state disk")),
                config.dataVolumes().stream().findFirst());
    }

    /** {@code config} with these disks attached: the state disk second, the volume after it. */
    public NodeConfig attachTo(NodeConfig config) {
        NodeConfig withDisk = config.withStateDisk(stateDisk);
        return etcdVolume.map(withDisk::withDataVolume).orElse(withDisk);
    }
}
