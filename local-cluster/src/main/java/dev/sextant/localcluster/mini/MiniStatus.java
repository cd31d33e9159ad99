package dev.sextant.localcluster.mini;

import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.localcluster.mini.boot.BootedNodes;
import dev.sextant.localcluster.mini.boot.NodeWaits;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.localcluster.mini.node.DataVolumeLine;
import dev.sextant.localcluster.mini.node.EtcdMemberState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.operator.ClusterEtcd;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.report.NodeReport;
import dev.sextant.localcluster.qemu.ConsoleLog;
import dev.sextant.localcluster.verify.AtlsProbe;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code sextant mini status}: per node its processes, ports, last status line and a fresh aTLS
 * verification; per control plane its etcd member as the member answers (leader, follower or learner,
 * and its health) and its etcd data volume.
 */
final class MiniStatus {
    private static final Duration STATUS_VERIFY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofSeconds(2);

    private final MiniLayout layout;

    MiniStatus(MiniLayout layout) {
        this.layout = layout;
    }

    /** Reads mini.json and looks at every node; empty when there is no cluster here. */
    Optional<List<NodeReport>> status() throws Exception {
        Optional<MiniState> read = MiniState.read(layout.stateFile());
        if (read.isEmpty()) {
            return Optional.empty();
        }
        MiniState state = read.get();
        Optional<NodeAttestation> attestation = policy(state);
        Optional<ClusterEtcd> etcd = Files.isRegularFile(layout.masterSecret())
                ? Optional.of(ClusterEtcd.client(layout)) : Optional.empty();
        // Every node at once: each report waits mostly on its node (a TPM quote, an etcd status) under TCG.
        ExecutorService lookers = Executors.newFixedThreadPool(Math.max(1, state.nodes().size()));
        try {
            List<Future<NodeReport>> reports = new ArrayList<>();
            for (MiniState.Node node : state.nodes()) {
                reports.add(lookers.submit(() -> report(node, attestation, etcd)));
            }
            List<NodeReport> done = new ArrayList<>();
            for (Future<NodeReport> report : reports) {
                done.add(report.get());
            }
            return Optional.of(done);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            lookers.shutdownNow();
        }
    }

    private NodeReport report(MiniState.Node node, Optional<NodeAttestation> attestation, Optional<ClusterEtcd> etcd)
            throws IOException {
        boolean qemu = node.qemu() != null && node.qemu().alive();
        boolean swtpm = node.swtpm() != null && node.swtpm().alive();
        List<String> lines = new ConsoleLog(Path.of(node.consoleLog())).lines();
        String last = NodeStatusLine.last(lines).map(NodeStatusLine::line)
                .orElse("no status line yet; last line: " + NodeWaits.lastLine(lines, 100));
        String verify;
        if (!qemu) {
            verify = "not running (powered off: 'sextant mini reboot " + node.name() + "' powers it on)";
        } else if (attestation.isEmpty()) {
            verify = "not checked (no measurements in " + layout.dir() + ")";
        } else {
            verify = verify(attestation.get(), node);
        }
        return new NodeReport(node.name(), node.role().label(), qemu, swtpm, BootedNodes.forwards(node.ports()), last,
                verify, etcd(etcd, node, qemu), volume(node, lines));
    }

    private static String etcd(Optional<ClusterEtcd> etcd, MiniState.Node node, boolean running) {
        if (node.role() != NodeRole.CONTROL_PLANE) {
            return EtcdMemberState.NONE.describe();
        }
        if (!running) {
            return "not running";
        }
        return etcd.map(client -> client.member(node.role(), node.ports()).describe())
                .orElse("not asked (no master secret: the cluster was never initialized)");
    }

    /**
     * The disk file the launch file attaches and the last thing this boot's console says of it (QEMU writes the
     * console anew at each boot).
     */
    private String volume(MiniState.Node node, List<String> console) throws IOException {
        if (node.role() != NodeRole.CONTROL_PLANE) {
            return "-";
        }
        Optional<Path> disk = NodeLaunch.read(layout.launch(node.name())).disks().etcdVolume();
        if (disk.isEmpty()) {
            return "none attached (its launch file predates etcd volumes: etcd data stays on the state disk)";
        }
        String said = DataVolumeLine.last(console).orElse("nothing said of it yet this boot");
        return disk.get() + ": " + said;
    }

    /**
     * Retries for a while: after bootstrapping the bootstrapper exits and its verify-only successor
     * needs tens of seconds under TCG before it answers again.
     */
    private static String verify(NodeAttestation attestation, MiniState.Node node) throws IOException {
        Instant deadline = Instant.now().plus(STATUS_VERIFY_TIMEOUT);
        while (true) {
            Optional<AtlsProbe.Outcome> outcome = attestation.once(node.hostPort(NodeRole.BOOTSTRAPPER_PORT));
            if (outcome.isPresent() || Instant.now().isAfter(deadline) || node.qemu() == null || !node.qemu().alive()) {
                return outcome.isPresent() ? attestation.describe(outcome)
                        : "no answer on the aTLS port within " + STATUS_VERIFY_TIMEOUT.toSeconds()
                        + " s (a bootstrapper restarts after bootstrapping; see the console log " + node.consoleLog() + ")";
            }
            NodeWaits.sleep(POLL);
        }
    }

    /** Bootstrapped nodes carry the cluster's PCR 15; before init they carry the image's zero. */
    private Optional<NodeAttestation> policy(MiniState state) throws Exception {
        Path measurements = state.clusterIdIfKnown().isPresent() ? layout.clusterMeasurements() : layout.measurements();
        if (!Files.isRegularFile(measurements) || !Files.isRegularFile(layout.caCert())) {
            return Optional.empty();
        }
        MeasurementSet policy = MeasurementsFile.verifySet(measurements, Files.readString(layout.measurementsPublicKey()));
        return Optional.of(new NodeAttestation(policy, LocalCa.load(layout.caDir()).certificate()));
    }
}
