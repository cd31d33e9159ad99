package dev.sextant.localcluster.mini;

import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.imagebuilder.BuildException;
import dev.sextant.localcluster.init.InitResult;
import dev.sextant.localcluster.mini.boot.BootedNodes;
import dev.sextant.localcluster.mini.boot.NewNodes;
import dev.sextant.localcluster.mini.boot.NodeWaits;
import dev.sextant.localcluster.mini.files.HostIdentities;
import dev.sextant.localcluster.mini.files.MiniImage;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.PreviousCluster;
import dev.sextant.localcluster.mini.files.PrivateFiles;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeSettings;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.node.PortPlan;
import dev.sextant.localcluster.mini.operator.ClusterMeasurements;
import dev.sextant.localcluster.mini.operator.ControlPlaneInit;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.operator.OperatorInit;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Summary;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.FreePort;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.NodeConfig;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.localcluster.verify.AtlsProbe;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code sextant mini up}: builds (or reuses) the image, gives every node a factory TPM whose EK
 * certificate the mini CA signs, boots one control plane (QEMU user networking, ports forwarded on
 * 127.0.0.1 only), verifies it over attested TLS, boots N workers while it runs init, waits for the
 * workers to join and verifies every node again. The QEMU and swtpm processes outlive the command;
 * mini.json records them for status and down. Every wait has a timeout naming what it waited for
 * and the node's console log.
 */
final class MiniUp {
    private static final String CONTROL_PLANE = NodeRole.CONTROL_PLANE.nodeName(0);

    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final NodeWaits waits;

    MiniUp(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
        this.waits = new NodeWaits(progress);
    }

    /** The cluster up makes: its nodes (the control plane first, then the workers), their ports, and how up runs. */
    private record Plan(Map<String, NodeRole> nodes, PortPlan ports, MiniCluster.UpOptions options) {
        int joinHostPort() {
            return ports.hostPort(CONTROL_PLANE, NodeRole.JOIN_PORT);
        }
    }

    /** Returns 0 with the summary printed, 1 when a cluster is already running here. */
    int up(MiniCluster.UpOptions options, OperatorInit init, Consumer<String> summaryOut) throws Exception {
        Optional<MiniState> previous = MiniState.read(layout.stateFile());
        if (alreadyRunning(previous)) {
            return 1;
        }
        HostTools tools = hostTools();
        LocalCa ca = hostIdentities(previous);
        MiniImage.Prepared image = prepareImage(options);
        Measurements imageMeasurements = verifiedMeasurements(image);
        Plan plan = plan(options);
        Map<String, NodeConfig> configs = manufacture(plan, new NewNodes(layout, progress, tools, ca, image.image(),
                options.accel()));

        BootedNodes booted = new BootedNodes(layout, progress, new MiniState(MiniState.VERSION, MiniState.STARTING,
                Instant.now().toString(), image.image().toString(), null, List.of()));
        try (BootedNodes.Guard guard = booted.guard("mini up", options.keepOnFailure())) {
            QemuNode controlPlane = bootControlPlane(booted, configs, new NodeAttestation(imageMeasurements,
                    ca.certificate()), options);
            bootWorkers(booted, plan, configs);
            InitResult initialized = new ControlPlaneInit(layout, progress).run(init, controlPlane, CONTROL_PLANE);
            Measurements cluster = recordCluster(booted, imageMeasurements, initialized);
            Map<String, NodeStatusLine> statuses = awaitBootstrapped(booted, plan);
            List<Summary.Row> rows = verifyAll(booted, plan, new NodeAttestation(cluster, ca.certificate()), statuses);
            if (initialized.kubeconfig().isPresent()) {
                pointKubeconfigAtForward(plan.ports().hostPort(CONTROL_PLANE, NodeRole.KUBERNETES_API_PORT));
            }
            booted.update(booted.state().withPhase(MiniState.UP));
            guard.succeeded();
            printSummary(rows, statuses.get(CONTROL_PLANE), initialized.kubeconfig().isPresent(), summaryOut);
            return 0;
        }
    }

    private boolean alreadyRunning(Optional<MiniState> previous) {
        if (previous.isEmpty() || previous.get().running().isEmpty()) {
            return false;
        }
        progress.accept("a mini cluster is already running in " + layout.dir() + " ("
                + previous.get().running().size() + " processes); see 'sextant mini status', stop it with"
                + " 'sextant mini down'");
        return true;
    }

    private static HostTools hostTools() throws MiniFailure {
        List<String> missing = new ArrayList<>(HostTools.missing());
        missing.addAll(FactoryTpm.missingTools());
        if (!missing.isEmpty()) {
            throw new MiniFailure("host tools missing: " + String.join("; ", missing) + " (scripts/setup.sh installs them)");
        }
        return HostTools.locate().orElseThrow();
    }

    /** The directory (0700), the EK CA and the measurements key, kept; a stopped cluster's node states, replaced. */
    private LocalCa hostIdentities(Optional<MiniState> previous) throws Exception {
        PrivateFiles.directory(layout.dir());
        LocalCa ca = HostIdentities.ca(layout, progress);
        HostIdentities.measurementsKey(layout, progress);
        previous.ifPresent(stopped -> PreviousCluster.clear(layout, stopped, progress));
        return ca;
    }

    private MiniImage.Prepared prepareImage(MiniCluster.UpOptions options) throws Exception {
        progress.accept(options.repo().isPresent() ? "image: building " + options.imageDir() + " from "
                + options.repo().get() + " (or reusing it when its inputs did not change)"
                : "image: booting " + options.imageDir() + " as built (--no-build)");
        try {
            return new MiniImage(layout, progress).prepare(options.imageDir(), options.repo());
        } catch (BuildException | MeasurementsException e) {
            throw new MiniFailure("the node image could not be " + (options.repo().isPresent() ? "built" : "used")
                    + ": " + e.getMessage(), e);
        }
    }

    /** The image's measurements as the nodes will be verified against them: checked against the mini key's signature. */
    private Measurements verifiedMeasurements(MiniImage.Prepared image) throws Exception {
        return MeasurementsFile.verify(image.measurements(), Files.readString(layout.measurementsPublicKey()));
    }

    private static Plan plan(MiniCluster.UpOptions options) {
        Map<String, NodeRole> nodes = new LinkedHashMap<>();
        nodes.put(CONTROL_PLANE, NodeRole.CONTROL_PLANE);
        for (int i = 0; i < options.workers(); i++) {
            nodes.put(NodeRole.WORKER.nodeName(i), NodeRole.WORKER);
        }
        return new Plan(nodes, PortPlan.pick(nodes, FreePort::pick), options);
    }

    /** Every node's TPM and disk, and its settings: on the control plane a new init secret's hash. */
    private Map<String, NodeConfig> manufacture(Plan plan, NewNodes newNodes) throws Exception {
        byte[] initSecret = HostIdentities.newInitSecret(layout);
        String ekCaPem = Files.readString(layout.caCert());
        Map<String, NodeConfig> configs = new LinkedHashMap<>();
        for (var node : plan.nodes().entrySet()) {
            String name = node.getKey();
            Map<String, String> settings = node.getValue() == NodeRole.CONTROL_PLANE
                    ? NodeSettings.controlPlane(name, initSecret, HostIdentities.salt(), ekCaPem)
                    : NodeSettings.worker(name, plan.joinHostPort(), ekCaPem);
            configs.put(name, newNodes.make(name, node.getValue(), plan.ports().ports(name), settings));
        }
        return configs;
    }

    private QemuNode bootControlPlane(BootedNodes booted, Map<String, NodeConfig> configs, NodeAttestation imagePolicy,
                                      MiniCluster.UpOptions options) throws Exception {
        QemuNode node = booted.boot(CONTROL_PLANE, NodeRole.CONTROL_PLANE, configs.get(CONTROL_PLANE));
        waits.verified(CONTROL_PLANE, node, imagePolicy, options.bootTimeout(), "its bootstrapper's aTLS port (guest 7443)");
        return node;
    }

    /**
     * The workers only now, to boot while init runs: guests booting at once share the host's cores
     * (under TCG a control plane booting beside a worker verifies far later than one booting alone),
     * and a worker has nothing to join before init has started the join service.
     */
    private static void bootWorkers(BootedNodes booted, Plan plan, Map<String, NodeConfig> configs) throws IOException {
        for (var config : configs.entrySet()) {
            if (!config.getKey().equals(CONTROL_PLANE)) {
                booted.boot(config.getKey(), plan.nodes().get(config.getKey()), config.getValue());
            }
        }
    }

    /** The cluster ID into mini.json; the measurements a node of this cluster must show, signed. */
    private Measurements recordCluster(BootedNodes booted, Measurements image, InitResult initialized) throws Exception {
        booted.update(booted.state().withClusterId(initialized.clusterIdHex()));
        Measurements cluster = ClusterMeasurements.forCluster(image, initialized.clusterId());
        Files.write(layout.clusterMeasurements(), cluster.toJson());
        MeasurementsFile.sign(layout.clusterMeasurements(), Files.readString(layout.measurementsKey()));
        return cluster;
    }

    /** Each node's status line: the control plane's after init, each worker's once it joined. */
    private Map<String, NodeStatusLine> awaitBootstrapped(BootedNodes booted, Plan plan) throws Exception {
        Map<String, NodeStatusLine> statuses = new LinkedHashMap<>();
        for (String name : plan.nodes().keySet()) {
            boolean controlPlane = name.equals(CONTROL_PLANE);
            String what = controlPlane ? "the end of its bootstrapping after init"
                    : "it to join " + CONTROL_PLANE + " (join service at " + NodeSettings.HOST_FROM_GUEST + ":"
                    + plan.joinHostPort() + " from the guest)";
            statuses.put(name, waits.status(name, booted.node(name),
                    controlPlane ? plan.options().bootTimeout() : plan.options().joinTimeout(), what));
        }
        return statuses;
    }

    /** Every node again, now against this cluster's PCR 15: one summary row each. */
    private List<Summary.Row> verifyAll(BootedNodes booted, Plan plan, NodeAttestation clusterPolicy,
                                        Map<String, NodeStatusLine> statuses) throws Exception {
        List<Summary.Row> rows = new ArrayList<>();
        for (String name : plan.nodes().keySet()) {
            AtlsProbe.Outcome outcome = waits.verified(name, booted.node(name), clusterPolicy, NodeWaits.REVERIFY_TIMEOUT,
                    "its aTLS port after bootstrapping (verify-only mode)");
            rows.add(Summary.Row.of(name, plan.nodes().get(name), clusterPolicy.describe(Optional.of(outcome)),
                    statuses.get(name)));
        }
        return rows;
    }

    /** k3s writes its API server as https://127.0.0.1:6443; from the host it is the forwarded port. */
    private void pointKubeconfigAtForward(int hostPort) throws IOException {
        String kubeconfig = Files.readString(layout.kubeconfig());
        Files.writeString(layout.kubeconfig(), kubeconfig.replace("https://127.0.0.1:" + NodeRole.KUBERNETES_API_PORT,
                "https://127.0.0.1:" + hostPort));
    }

    private void printSummary(List<Summary.Row> rows, NodeStatusLine controlPlane, boolean kubeconfig,
                              Consumer<String> summaryOut) {
        progress.accept("cluster up: " + rows.size() + " node(s) verified, initialized and joined");
        new Summary(rows, Summary.kubernetes(Optional.of(controlPlane), layout.kubeconfig(), kubeconfig))
                .render().forEach(summaryOut);
        summaryOut.accept("Console logs: " + layout.dir() + "/<node>/console.log; state: " + layout.stateFile());
        summaryOut.accept("Status: sextant mini status    Stop: sextant mini down");
    }
}
