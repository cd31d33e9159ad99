package dev.sextant.nodeboot.bringup;

import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The state disk as a bring-up sees it: re-keyed and initialized, with the node state written on
 * it, at a first membership; the node state kept up to date on it afterwards.
 */
@Singleton
public final class MemberDisk {
    private final StateDisk disk;
    private final StateDiskSettings settings;
    private final NodeStateFile stateFile;
    private final Clock clock = Clock.systemUTC();

    /**
     * What a first membership leaves on the disk.
     *
     * @param state    the node state written to it
     * @param diskUuid the state disk's LUKS UUID; empty on a development node without a state disk
     */
    record FirstState(NodeState state, Optional<String> diskUuid) {
    }

    public MemberDisk(StateDisk disk, StateDiskSettings settings, NodeStateFile stateFile) {
        this.disk = disk;
        this.settings = settings;
        this.stateFile = stateFile;
    }

    /**
     * A first membership: swap the boot passphrase for the cluster key, open the disk, write the
     * node state, and only then mark the disk initialized: a node that stops before the state is
     * on the disk formats afresh at its next boot instead of opening a disk it cannot read back.
     *
     * @param nodeLocalServices the cluster services run as units of this node (no Kubernetes):
     *                          recorded now, so a reboot at any later point starts them again
     */
    FirstState first(Membership m, boolean nodeLocalServices, BiConsumer<String, String> progress)
            throws StepFailed, InterruptedException {
        String since = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        NodeState state = new NodeState(m.role().label(), m.nodeName(), HexFormat.of().formatHex(m.clusterId()), since,
                Base64.getEncoder().encodeToString(m.discoveryKey()), kubernetesRole(m.kubernetes()), nodeLocalServices,
                Map.of(), NodeState.Member.of(m.member()));
        if (!Files.exists(settings.device())) {
            progress.accept("state-disk", "no state disk at " + settings.device() + "; skipped (development node)");
            return new FirstState(save(state), Optional.empty());
        }
        try {
            byte[] bootPassphrase = disk.bootPassphrase();
            String uuid = disk.uuid();
            disk.changeKey(bootPassphrase, m.diskKey());
            String opened = disk.openAndMount(m.diskKey());
            save(state);
            disk.markInitialized();
            progress.accept("state-disk", "LUKS2 disk " + uuid + " re-keyed with the cluster key; " + opened);
            return new FirstState(state, Optional.of(uuid));
        } catch (DiskCryptException e) {
            throw new StepFailed("preparing the state disk: " + e.getMessage());
        }
    }

    /** Writes {@code state} to the disk; returns it. */
    NodeState save(NodeState state) throws StepFailed {
        try {
            stateFile.write(state);
            return state;
        } catch (IOException e) {
            throw new StepFailed("writing the node state to " + stateFile.path() + ": " + e.getMessage());
        }
    }

    private static NodeState.KubernetesRole kubernetesRole(KubernetesPlan plan) {
        if (plan instanceof KubernetesPlan.Init) {
            return new NodeState.KubernetesRole(NodeState.KubernetesRole.FIRST_SERVER, "", "");
        }
        if (plan instanceof KubernetesPlan.Join join) {
            return new NodeState.KubernetesRole(join.join().controlPlane() ? "server" : "agent", join.join().serverUrl(),
                    join.join().token());
        }
        return NodeState.KubernetesRole.none();
    }
}
