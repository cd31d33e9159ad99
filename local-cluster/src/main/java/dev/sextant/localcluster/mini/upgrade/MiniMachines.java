package dev.sextant.localcluster.mini.upgrade;

import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.localcluster.mini.boot.BootedNodes;
import dev.sextant.localcluster.mini.boot.NodeComeback;
import dev.sextant.localcluster.mini.boot.PowerOff;
import dev.sextant.localcluster.mini.boot.StartOrder;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeSettings;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.rollout.NodeMachines;
import dev.sextant.localcluster.rollout.NodeVersions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A mini cluster's nodes as machines of an image rollout. Powering off stops QEMU and swtpm as
 * {@code mini reboot} does; the boot disk is the image in the node's launch file, so replacing it
 * rewrites that file and keeps the old path beside it ({@link MiniLayout#previousBootDisk}) until the
 * node is restored or the upgrade is through. The state disk and the TPM state are never touched. A
 * node proves its version through {@code policy}, the cluster's measurement set with its PCR 15: a
 * control plane that cannot rejoin (no quorum of others running) is recovered with the cluster's own
 * master secret first, as after a reboot.
 */
public final class MiniMachines implements NodeMachines, NodeVersions {
    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final HostTools tools;
    private final NodeAttestation policy;
    private final NodeComeback comeback;
    private final Map<String, NodeComeback.PoweredOn> poweredOn = new HashMap<>();
    private final Map<String, Boolean> rejoins = new HashMap<>();

    public MiniMachines(MiniLayout layout, Consumer<String> progress, OperatorCommand recover, HostTools tools,
                        NodeAttestation policy) {
        this.layout = layout;
        this.progress = progress;
        this.tools = tools;
        this.policy = policy;
        this.comeback = new NodeComeback(layout, progress, recover);
    }

    @Override
    public void powerOff(String node) throws Exception {
        MiniState.Node n = node(state(), node);
        PowerOff off = new PowerOff(progress);
        if (!off.qemu(n) || !off.swtpm(n)) {
            throw new MiniFailure(node + " could not be powered off (its processes survived SIGKILL)");
        }
    }

    @Override
    public void replaceBootDisk(String node, Path image) throws IOException {
        NodeLaunch launch = NodeLaunch.read(layout.launch(node));
        Path previous = layout.previousBootDisk(node);
        if (!Files.exists(previous)) {
            // A second replacement (a resumed rollout) keeps the disk the node booted before the first.
            Files.writeString(previous, launch.image() + "\n");
        }
        launch.withImage(image).write(layout.launch(node));
    }

    @Override
    public void restoreBootDisk(String node) throws IOException, MiniFailure {
        Path previous = layout.previousBootDisk(node);
        if (!Files.exists(previous)) {
            throw new MiniFailure(node + " has no earlier boot disk recorded (" + previous + ")");
        }
        NodeLaunch.read(layout.launch(node)).withImage(Path.of(Files.readString(previous).trim())).write(layout.launch(node));
        Files.delete(previous);
    }

    /** The upgrade is through for this node: the disk it booted before is no longer a way back. */
    public void forgetPreviousBootDisk(String node) throws IOException {
        Files.deleteIfExists(layout.previousBootDisk(node));
    }

    @Override
    public void powerOn(String node) throws Exception {
        MiniState state = state();
        MiniState.Node n = node(state, node);
        rejoins.put(node, StartOrder.rejoins(n, NodeLaunch.read(layout.launch(node)).settings()
                .containsKey(NodeSettings.JOIN_ENDPOINTS), state));
        poweredOn.put(node, comeback.powerOn(new BootedNodes(layout, progress, state), n, tools));
    }

    @Override
    public Path console(String node) {
        return layout.consoleLog(node);
    }

    @Override
    public Optional<String> proven(String node) throws Exception {
        MiniState.Node n = node(state(), node);
        if (n.qemu() == null || !n.qemu().alive()) {
            return Optional.empty();
        }
        return policy.once(n.hostPort(NodeRole.BOOTSTRAPPER_PORT))
                .flatMap(outcome -> outcome.accepted()).map(AttestedState::imageVersion);
    }

    @Override
    public String awaitBack(String node, Duration timeout) throws Exception {
        NodeComeback.PoweredOn on = poweredOn.remove(node);
        if (on == null) {
            throw new IllegalStateException(node + " was not powered on by this rollout");
        }
        if (!rejoins.remove(node)) {
            comeback.recover(on, timeout);
        }
        NodeComeback.Back back = comeback.awaitBack(on, policy, timeout);
        progress.accept(back.figure());
        return back.outcome().accepted().map(AttestedState::imageVersion)
                .orElseThrow(() -> new MiniFailure(node + " is back but its verification was not accepted"));
    }

    private MiniState state() throws IOException, MiniFailure {
        return MiniState.read(layout.stateFile()).orElseThrow(() -> new MiniFailure("no mini cluster in " + layout.dir()));
    }

    private MiniState.Node node(MiniState state, String name) throws MiniFailure {
        return state.nodes().stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new MiniFailure("no node " + name + " in the mini cluster in " + layout.dir()));
    }
}
