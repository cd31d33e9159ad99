package dev.sextant.localcluster.mini;

import dev.sextant.attestation.policy.MeasurementSet;
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
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.localcluster.mini.files.PreviousCluster;
import dev.sextant.localcluster.mini.files.PrivateFiles;
import dev.sextant.localcluster.mini.node.EtcdMemberState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeSettings;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.node.PortPlan;
import dev.sextant.localcluster.mini.operator.ClusterEtcd;
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
import dev.sextant.operatorfiles.ClusterRecordFile;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * {@code sextant mini up}: builds (or reuses) the image, gives every node a factory TPM whose EK
 * certificate the mini CA signs, boots the first control plane (QEMU user networking, ports forwarded
 * on 127.0.0.1 only), verifies it over attested TLS, boots the workers while it runs init and the
 * other control planes once it is initialized, waits for them to join, verifies every node again, records each control plane
 * in the cluster record (what {@code sextant recover} sends keys to) and waits until every control
 * plane's etcd member votes. The QEMU and swtpm processes outlive the command; mini.json records them
 * for status and down. Every wait has a timeout naming what it waited for and the node's console log.
 */
final class MiniUp {
    /** The control plane the operator initializes; the others join it. */
    private static final String INIT_NODE = NodeRole.CONTROL_PLANE.nodeName(0);

    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final NodeWaits waits;

    MiniUp(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
        this.waits = new NodeWaits(progress);
    }

    /** The cluster up makes: its nodes (the control planes first, then the workers), their ports, and how up runs. */
    record Plan(Map<String, NodeRole> nodes, PortPlan ports, MiniCluster.UpOptions options) {
        List<String> controlPlanes() {
            return nodes.entrySet().stream().filter(n -> n.getValue() == NodeRole.CONTROL_PLANE).map(Map.Entry::getKey)
                    .toList();
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
        MeasurementSet imageMeasurements = verifiedMeasurements(image);
        Plan plan = plan(options, FreePort::pick);
        Map<String, NodeConfig> configs = manufacture(plan, new NewNodes(layout, progress, tools, ca, image.image(),
                options.accel()));

        BootedNodes booted = new BootedNodes(layout, progress, new MiniState(MiniState.VERSION, MiniState.STARTING,
                Instant.now().toString(), image.image().toString(), null, List.of()));
        try (BootedNodes.Guard guard = booted.guard("mini up", options.keepOnFailure())) {
            QemuNode initNode = bootInitNode(booted, configs, new NodeAttestation(imageMeasurements,
                    ca.certificate()), options);
            boot(booted, plan, configs, NodeRole.WORKER);
            InitResult initialized = new ControlPlaneInit(layout, progress).run(init, initNode, INIT_NODE,
                    options.controlPlanes());
            tellInitNodeOfJoinServices(plan);
            boot(booted, plan, configs, NodeRole.CONTROL_PLANE);
            MeasurementSet cluster = recordCluster(booted, imageMeasurements, initialized);
            Map<String, NodeStatusLine> statuses = awaitBootstrapped(booted, plan);
            NodeAttestation clusterPolicy = new NodeAttestation(cluster, ca.certificate());
            Map<String, AtlsProbe.Outcome> verified = verifyAll(booted, plan, clusterPolicy);
            recordControlPlanes(plan, initialized.clusterIdHex(), verified, statuses);
            Map<String, EtcdMemberState> etcd = awaitVotingMembers(plan);
            if (initialized.kubeconfig().isPresent()) {
                pointKubeconfigAtForward(plan.ports().hostPort(INIT_NODE, NodeRole.KUBERNETES_API_PORT));
            }
            booted.update(booted.state().withPhase(MiniState.UP));
            guard.succeeded();
            List<Summary.Row> rows = plan.nodes().keySet().stream().map(name -> Summary.Row.of(name,
                    plan.nodes().get(name), clusterPolicy.describe(Optional.of(verified.get(name))), statuses.get(name),
                    etcd.getOrDefault(name, EtcdMemberState.NONE))).toList();
            printSummary(rows, statuses.get(INIT_NODE), initialized.kubeconfig().isPresent(), summaryOut);
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
    private MeasurementSet verifiedMeasurements(MiniImage.Prepared image) throws Exception {
        return MeasurementsFile.verifySet(image.measurements(), Files.readString(layout.measurementsPublicKey()));
    }

    /** The control planes first (the first one is initialized), then the workers, each with its forwards. */
    static Plan plan(MiniCluster.UpOptions options, IntSupplier freePort) {
        Map<String, NodeRole> nodes = new LinkedHashMap<>();
        for (int i = 0; i < options.controlPlanes(); i++) {
            nodes.put(NodeRole.CONTROL_PLANE.nodeName(i), NodeRole.CONTROL_PLANE);
        }
        for (int i = 0; i < options.workers(); i++) {
            nodes.put(NodeRole.WORKER.nodeName(i), NodeRole.WORKER);
        }
        return new Plan(nodes, PortPlan.pick(nodes, freePort), options);
    }

    /** Each node's settings: the init node's with a new init secret's hash, the others' naming the join services. */
    static Map<String, Map<String, String>> settings(Plan plan, byte[] initSecret, byte[] salt, String ekCaPem) {
        Map<String, Map<String, String>> settings = new LinkedHashMap<>();
        plan.nodes().forEach((name, role) -> settings.put(name, name.equals(INIT_NODE)
                ? NodeSettings.initNode(name, initSecret, salt, ekCaPem, plan.ports())
                : role == NodeRole.CONTROL_PLANE ? NodeSettings.joiningControlPlane(name, ekCaPem, plan.ports())
                : NodeSettings.worker(name, ekCaPem, plan.ports())));
        return settings;
    }

    /** Every node's TPM and disk, and its settings. */
    private Map<String, NodeConfig> manufacture(Plan plan, NewNodes newNodes) throws Exception {
        Map<String, Map<String, String>> settings = settings(plan, HostIdentities.newInitSecret(layout),
                HostIdentities.salt(), Files.readString(layout.caCert()));
        Map<String, NodeConfig> configs = new LinkedHashMap<>();
        for (var node : plan.nodes().entrySet()) {
            String name = node.getKey();
            configs.put(name, newNodes.make(name, node.getValue(), plan.ports().ports(name), settings.get(name)));
        }
        return configs;
    }

    private QemuNode bootInitNode(BootedNodes booted, Map<String, NodeConfig> configs, NodeAttestation imagePolicy,
                                  MiniCluster.UpOptions options) throws Exception {
        QemuNode node = booted.boot(INIT_NODE, NodeRole.CONTROL_PLANE, configs.get(INIT_NODE));
        waits.verified(INIT_NODE, node, imagePolicy, options.bootTimeout(), "its bootstrapper's aTLS port (guest 7443)");
        return node;
    }

    /**
     * The nodes of {@code role} not yet booted. Workers boot while init runs: guests booting at once
     * share the host's cores (under TCG a control plane booting beside a worker verifies far later
     * than one booting alone), and a worker has nothing to join before init has started the join
     * service. The other control planes boot only once init is done: two of them booting beside the
     * init node starve it under TCG (its join service's first etcd call misses its deadline at every
     * start, so init fails), and they join one at a time anyway (the join service admits one learner
     * at a time; the node asks again).
     */
    private static void boot(BootedNodes booted, Plan plan, Map<String, NodeConfig> configs, NodeRole role)
            throws IOException {
        for (var config : configs.entrySet()) {
            String name = config.getKey();
            if (!name.equals(INIT_NODE) && plan.nodes().get(name) == role) {
                booted.boot(name, role, config.getValue());
            }
        }
    }

    /**
     * From its next boot on, the init node is told where the control planes' join services are, like
     * the control planes that join it: powered on while a quorum of the others runs, it rejoins through
     * one of them with no operator. Its first boot had to name none (a node told of join services
     * joins instead of waiting for init). The list decides nothing the node trusts: it takes a ticket
     * only from a join service that proves this cluster's PCR 15 with an AK of the image's EK CA.
     */
    private void tellInitNodeOfJoinServices(Plan plan) throws IOException {
        if (plan.controlPlanes().size() < 2) {
            return;
        }
        Path launch = layout.launch(INIT_NODE);
        NodeLaunch.read(launch).withSetting(NodeSettings.JOIN_ENDPOINTS, plan.ports().joinEndpoints()).write(launch);
        progress.accept(INIT_NODE + ": told of the join services at " + plan.ports().joinEndpoints()
                + " for its next boots");
    }

    /** The cluster ID into mini.json; the measurements a node of this cluster must show, signed. */
    private MeasurementSet recordCluster(BootedNodes booted, MeasurementSet image, InitResult initialized) throws Exception {
        booted.update(booted.state().withClusterId(initialized.clusterIdHex()));
        MeasurementSet cluster = ClusterMeasurements.forCluster(image, initialized.clusterId());
        Files.write(layout.clusterMeasurements(), cluster.toJson());
        MeasurementsFile.sign(layout.clusterMeasurements(), Files.readString(layout.measurementsKey()));
        return cluster;
    }

    /** Each node's status line: the init node's after init, each other node's once it joined. */
    private Map<String, NodeStatusLine> awaitBootstrapped(BootedNodes booted, Plan plan) throws Exception {
        Map<String, NodeStatusLine> statuses = new LinkedHashMap<>();
        for (String name : plan.nodes().keySet()) {
            boolean initNode = name.equals(INIT_NODE);
            String what = initNode ? "the end of its bootstrapping after init"
                    : "it to join (join services at " + plan.ports().joinEndpoints() + " from the guest)";
            statuses.put(name, waits.status(name, booted.node(name),
                    initNode ? plan.options().bootTimeout() : plan.options().joinTimeout(), what));
        }
        return statuses;
    }

    /** Every node again, now against this cluster's PCR 15. */
    private Map<String, AtlsProbe.Outcome> verifyAll(BootedNodes booted, Plan plan, NodeAttestation clusterPolicy)
            throws Exception {
        Map<String, AtlsProbe.Outcome> outcomes = new LinkedHashMap<>();
        for (String name : plan.nodes().keySet()) {
            outcomes.put(name, waits.verified(name, booted.node(name), clusterPolicy, NodeWaits.REVERIFY_TIMEOUT,
                    "its aTLS port after bootstrapping (verify-only mode)"));
        }
        return outcomes;
    }

    /**
     * Each control plane's AK, as it proved it just now, and its state disk into the cluster record:
     * {@code sextant recover} sends a disk's key only to the machine recorded for it, and mini start
     * recovers as many control planes as a quorum needs. (Init recorded the init node already; its
     * entry is written again, unchanged.)
     */
    private void recordControlPlanes(Plan plan, String clusterId, Map<String, AtlsProbe.Outcome> verified,
                                     Map<String, NodeStatusLine> statuses) throws Exception {
        for (String name : plan.controlPlanes()) {
            String disk = statuses.get(name).encryptedDisk().orElseThrow(() -> new MiniFailure(name + " reports no"
                    + " encrypted state disk, so it cannot be recorded for recovery; console log: " + layout.consoleLog(name)));
            byte[] ak = verified.get(name).accepted().orElseThrow().akName();
            ClusterRecordFile.record(layout.clusterRecord(), clusterId,
                    new ClusterRecordFile.Machine(HexFormat.of().formatHex(ak), disk));
        }
        progress.accept("cluster record: " + plan.controlPlanes() + " with their AKs and state disks in "
                + layout.clusterRecord());
    }

    /**
     * Until every control plane's member votes: the join service that admitted a control plane
     * promotes its learner once it has caught up, and only voting members make a quorum that
     * survives one control plane stopping.
     */
    private Map<String, EtcdMemberState> awaitVotingMembers(Plan plan) throws Exception {
        Map<String, Integer> clientPorts = new LinkedHashMap<>();
        plan.controlPlanes().forEach(name -> clientPorts.put(name, plan.ports().hostPort(name, NodeRole.ETCD_CLIENT_PORT)));
        Map<String, EtcdMemberState> members = ClusterEtcd.client(layout).awaitVoting(clientPorts,
                plan.options().joinTimeout(), layout.dir() + "/<node>/console.log");
        progress.accept("etcd: every control plane's member votes: " + ClusterEtcd.describe(members));
        return members;
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
