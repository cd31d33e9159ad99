package dev.sextant.localcluster.mini.boot;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.NodeDisks;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.Accel;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.Lifetime;
import dev.sextant.localcluster.qemu.NodeConfig;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a node of a new cluster boots with: a factory TPM whose EK certificate the mini CA signs
 * (its AK provisioned), its new disks ({@link NodeDisks}), the image, its settings and its forwarded ports; its
 * QEMU and swtpm outlive the command.
 */
public final class NewNodes {
    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final HostTools tools;
    private final LocalCa ca;
    private final Path image;
    private final Accel accel;

    public NewNodes(MiniLayout layout, Consumer<String> progress, HostTools tools, LocalCa ca, Path image, Accel accel) {
        this.layout = layout;
        this.progress = progress;
        this.tools = tools;
        this.ca = ca;
        this.image = image;
        this.accel = accel;
    }

    /** {@code hostPorts}: guest port to the 127.0.0.1 port forwarded to it. */
    public NodeConfig make(String name, NodeRole role, Map<Integer, Integer> hostPorts, Map<String, String> settings)
            throws Exception {
        progress.accept(name + ": manufacturing its TPM (EK certificate from " + layout.caCert() + ", AK provisioned)");
        FactoryTpm tpm = FactoryTpm.manufacture(layout.tpmDir(name), ca);
        NodeDisks disks = NodeDisks.create(layout, name, role);
        disks.etcdVolume().ifPresent(v -> progress.accept(name + ": etcd data volume " + v));
        return disks.attachTo(NodeConfig.of(tools, image, layout.nodeDir(name), role.guestPorts())
                .withTpmState(tpm.stateDir()).withMemoryMiB(role.memoryMiB())
                .withHostPorts(hostPorts).withSettings(settings)
                .withAccel(accel).withLifetime(Lifetime.DETACHED));
    }
}
