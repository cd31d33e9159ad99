package dev.sextant.localcluster.mini;

import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.imagebuilder.BuildException;
import dev.sextant.localcluster.qemu.Accel;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.FreePort;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.Lifetime;
import dev.sextant.localcluster.qemu.NodeConfig;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.localcluster.verify.AtlsProbe;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sextant mini up} (and the entry to {@code status} and {@code down}): a local confidential
 * cluster of QEMU nodes on this machine.
 * Up builds (or reuses) the image, gives every node a factory TPM whose EK certificate the mini
 * CA signs, boots one control plane (QEMU user networking, ports forwarded on 127.0.0.1 only),
 * verifies it over attested TLS, boots N workers while it runs init, waits for the workers to join
 * and verifies every node again. The QEMU and swtpm processes outlive the command; mini.json
 * records them for status and down. Every wait has a timeout naming what it waited for and the
 * node's console log.
 */
public final class MiniCluster {
    /** Under TCG one node takes minutes from QEMU to a verified handshake on a busy machine, and several share its cores. */
    public static final Duration DEFAULT_BOOT_TIMEOUT = Duration.ofMinutes(15);
    public static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofMinutes(15);
    static final long STATE_DISK_BYTES = 256L << 20;
    /** After "bootstrapped" the bootstrapper restarts in verify-only mode: a short gap without an answer. */
    static final Duration REVERIFY_TIMEOUT = Duration.ofMinutes(3);
    private static final Pattern CLUSTER_ID = Pattern.compile("cluster ID: ([0-9a-f]{64})");

    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final NodeWaits waits;

    public MiniCluster(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
        this.waits = new NodeWaits(progress);
    }

    /** How {@code up} runs. {@code repo} empty: boot {@code imageDir} as it is, without building. */
    public record UpOptions(int workers, Path imageDir, Optional<Path> repo, Accel accel, boolean keepOnFailure,
                            Duration bootTimeout, Duration joinTimeout) {
        public UpOptions {
            if (workers < 0 || workers > 16) {
                throw new IllegalArgumentException("--workers must be between 0 and 16, got " + workers);
            }
        }
    }

    // ---------------------------------------------------------------------------------------- up

    /** Returns 0 with the summary printed, 1 when a cluster is already running here. */
    public int up(UpOptions options, OperatorCommand init, Consumer<String> summaryOut) throws Exception {
        Optional<MiniState> previous = MiniState.read(layout.stateFile());
        if (previous.isPresent() && !previous.get().running().isEmpty()) {
            progress.accept("a mini cluster is already running in " + layout.dir() + " ("
                    + previous.get().running().size() + " processes); see 'sextant mini status', stop it with"
                    + " 'sextant mini down'");
            return 1;
        }
        List<String> missing = new ArrayList<>(HostTools.missing());
        missing.addAll(FactoryTpm.missingTools());
        if (!missing.isEmpty()) {
            throw new MiniFailure("host tools missing: " + String.join("; ", missing) + " (scripts/setup.sh installs them)");
        }
        HostTools tools = HostTools.locate().orElseThrow();
        PrivateFiles.directory(layout.dir());
        LocalCa ca = HostIdentities.ca(layout, progress);
        String ekCaPem = Files.readString(layout.caCert());
        HostIdentities.measurementsKey(layout, progress);
        previous.ifPresent(this::clearPreviousCluster);

        progress.accept(options.repo().isPresent() ? "image: building " + options.imageDir() + " from "
                + options.repo().get() + " (or reusing it when its inputs did not change)"
                : "image: booting " + options.imageDir() + " as built (--no-build)");
        MiniImage.Prepared image;
        try {
            image = new MiniImage(layout, progress).prepare(options.imageDir(), options.repo());
        } catch (BuildException | MeasurementsException e) {
            throw new MiniFailure("the node image could not be " + (options.repo().isPresent() ? "built" : "used")
                    + ": " + e.getMessage(), e);
        }
        Measurements imageMeasurements = MeasurementsFile.verify(image.measurements(),
                Files.readString(layout.measurementsPublicKey()));

        Map<String, NodeRole> nodes = new LinkedHashMap<>();
        nodes.put(NodeRole.CONTROL_PLANE.nodeName(0), NodeRole.CONTROL_PLANE);
        for (int i = 0; i < options.workers(); i++) {
            nodes.put(NodeRole.WORKER.nodeName(i), NodeRole.WORKER);
        }
        PortPlan ports = PortPlan.pick(nodes, FreePort::pick);
        byte[] initSecret = HostIdentities.newInitSecret(layout);
        String controlPlane = NodeRole.CONTROL_PLANE.nodeName(0);
        int joinHostPort = ports.hostPort(controlPlane, NodeRole.JOIN_PORT);

        Map<String, NodeConfig> configs = new LinkedHashMap<>();
        for (var node : nodes.entrySet()) {
            String name = node.getKey();
            progress.accept(name + ": manufacturing its TPM (EK certificate from " + layout.caCert() + ", AK provisioned)");
            FactoryTpm tpm = FactoryTpm.manufacture(layout.tpmDir(name), ca);
            Path disk = stateDisk(name);
            Map<String, String> settings = node.getValue() == NodeRole.CONTROL_PLANE
                    ? NodeSettings.controlPlane(name, initSecret, HostIdentities.salt(), ekCaPem)
                    : NodeSettings.worker(name, joinHostPort, ekCaPem);
            configs.put(name, NodeConfig.of(tools, image.image(), layout.nodeDir(name), node.getValue().guestPorts())
                    .withTpmState(tpm.stateDir()).withMemoryMiB(node.getValue().memoryMiB())
                    .withHostPorts(ports.ports(name)).withStateDisk(disk).withSettings(settings)
                    .withAccel(options.accel()).withLifetime(Lifetime.DETACHED));
        }

        BootedNodes booted = new BootedNodes(layout, progress, new MiniState(MiniState.VERSION, MiniState.STARTING, Instant.now().toString(),
                image.image().toString(), null, List.of()));
        Thread stopOnInterrupt = new Thread(() -> booted.stopAll("mini up was interrupted"), "mini-up-interrupted");
        Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
        boolean success = false;
        try {
            booted.boot(controlPlane, NodeRole.CONTROL_PLANE, configs.get(controlPlane));
            QemuNode cp = booted.node(controlPlane);
            NodeAttestation imagePolicy = new NodeAttestation(imageMeasurements, ca.certificate());
            waits.verified(controlPlane, cp, imagePolicy, options.bootTimeout(), "its bootstrapper's aTLS port (guest 7443)");
            // The workers only now, to boot while init runs: guests booting at once share the host's cores
            // (under TCG a control plane booting beside a worker verifies far later than one booting alone),
            // and a worker has nothing to join before init has started the join service.
            for (var config : configs.entrySet()) {
                if (!config.getKey().equals(controlPlane)) {
                    booted.boot(config.getKey(), nodes.get(config.getKey()), config.getValue());
                }
            }

            byte[] clusterId = runInit(init, cp, controlPlane);
            booted.update(booted.state().withClusterId(HexFormat.of().formatHex(clusterId)));
            Measurements cluster = ClusterMeasurements.forCluster(imageMeasurements, clusterId);
            Files.write(layout.clusterMeasurements(), cluster.toJson());
            MeasurementsFile.sign(layout.clusterMeasurements(), Files.readString(layout.measurementsKey()));

            Map<String, NodeStatusLine> statuses = new LinkedHashMap<>();
            for (String name : nodes.keySet()) {
                String what = name.equals(controlPlane) ? "the end of its bootstrapping after init"
                        : "it to join " + controlPlane + " (join service at " + NodeSettings.HOST_FROM_GUEST + ":"
                        + joinHostPort + " from the guest)";
                statuses.put(name, waits.status(name, booted.node(name),
                        name.equals(controlPlane) ? options.bootTimeout() : options.joinTimeout(), what));
            }

            NodeAttestation clusterPolicy = new NodeAttestation(cluster, ca.certificate());
            List<Summary.Row> rows = new ArrayList<>();
            for (String name : nodes.keySet()) {
                QemuNode node = booted.node(name);
                AtlsProbe.Outcome outcome = waits.verified(name, node, clusterPolicy, REVERIFY_TIMEOUT,
                        "its aTLS port after bootstrapping (verify-only mode)");
                NodeStatusLine status = statuses.get(name);
                rows.add(Summary.Row.of(name, nodes.get(name), clusterPolicy.describe(Optional.of(outcome)), status));
            }
            boolean kubeconfig = Files.isRegularFile(layout.kubeconfig());
            if (kubeconfig) {
                pointKubeconfigAtForward(ports.hostPort(controlPlane, NodeRole.KUBERNETES_API_PORT));
            }
            booted.update(booted.state().withPhase(MiniState.UP));
            success = true;
            Summary summary = new Summary(rows, Summary.kubernetes(Optional.of(statuses.get(controlPlane)),
                    layout.kubeconfig(), kubeconfig));
            progress.accept("cluster up: " + nodes.size() + " node(s) verified, initialized and joined");
            summary.render().forEach(summaryOut);
            summaryOut.accept("Console logs: " + layout.dir() + "/<node>/console.log; state: " + layout.stateFile());
            summaryOut.accept("Status: sextant mini status    Stop: sextant mini down");
            return 0;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnInterrupt);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it stops the nodes.
            }
            if (!success) {
                if (options.keepOnFailure()) {
                    booted.update(booted.state().withPhase(MiniState.FAILED));
                    progress.accept("--keep-on-failure: the nodes keep running; stop them with 'sextant mini down'");
                } else {
                    booted.stopAll("mini up failed");
                }
            }
        }
    }

    /** A new cluster replaces a stopped one's node states; the CA and signing key stay. */
    private void clearPreviousCluster(MiniState previous) {
        try {
            for (MiniState.Node node : previous.nodes()) {
                FileTrees.delete(layout.nodeDir(node.name()));
            }
            Files.deleteIfExists(layout.kubeconfig());
            Files.deleteIfExists(layout.clusterMeasurements());
            Files.deleteIfExists(MeasurementsFile.signatureFile(layout.clusterMeasurements()));
            if (Files.exists(layout.masterSecret())) {
                // Its disks are gone with the node states, but a master secret is never silently deleted.
                Path kept = layout.masterSecret().resolveSibling("master-secret.previous.json");
                Files.move(layout.masterSecret(), kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                progress.accept("new cluster: the previous (stopped) cluster's master secret is kept as " + kept);
            }
            progress.accept("new cluster: replaced the stopped cluster's node states in " + layout.dir());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("clearing the stopped cluster in " + layout.dir(), e);
        }
    }

    private Path stateDisk(String name) throws IOException {
        Path disk = layout.stateDisk(name);
        Files.createDirectories(disk.getParent());
        Files.deleteIfExists(disk);
        // Sparse: the node LUKS-formats it; only what it writes takes space.
        try (RandomAccessFile file = new RandomAccessFile(disk.toFile(), "rw")) {
            file.setLength(STATE_DISK_BYTES);
        }
        return disk;
    }

    private byte[] runInit(OperatorCommand init, QemuNode cp, String name) throws Exception {
        List<String> args = List.of("--endpoint", "127.0.0.1:" + cp.hostPort(NodeRole.BOOTSTRAPPER_PORT),
                "--measurements", layout.measurements().toString(),
                "--measurements-key", layout.measurementsPublicKey().toString(),
                "--ek-ca", layout.caCert().toString(),
                "--master-secret", layout.masterSecret().toString(),
                "--init-secret", layout.initSecret().toString(),
                "--kubeconfig-out", layout.kubeconfig().toString(),
                "--journal-out", layout.initJournal().toString(),
                "--cluster-name", "sextant-mini");
        progress.accept(name + ": sextant init " + String.join(" ", args));
        StringBuilder clusterId = new StringBuilder();
        int exit = init.run(args, line -> {
            progress.accept("init| " + line);
            Matcher id = CLUSTER_ID.matcher(line);
            if (id.find() && clusterId.length() == 0) {
                clusterId.append(id.group(1));
            }
        });
        if (exit != 0) {
            throw new MiniFailure("init of " + name + " failed (sextant init exit " + exit + "); node journal (if the node"
                    + " sent one): " + layout.initJournal() + "; console log: " + cp.consoleLog());
        }
        if (clusterId.length() == 0) {
            throw new MiniFailure("init of " + name + " succeeded but printed no cluster ID; console log: " + cp.consoleLog());
        }
        return HexFormat.of().parseHex(clusterId);
    }

    /** k3s writes its API server as https://127.0.0.1:6443; from the host it is the forwarded port. */
    private void pointKubeconfigAtForward(int hostPort) throws IOException {
        String kubeconfig = Files.readString(layout.kubeconfig());
        Files.writeString(layout.kubeconfig(), kubeconfig.replace("https://127.0.0.1:" + NodeRole.KUBERNETES_API_PORT,
                "https://127.0.0.1:" + hostPort));
    }

    // ------------------------------------------------------------------------------ status, down

    /** Reads mini.json and looks at every node; empty when there is no cluster here. */
    public Optional<List<NodeReport>> status() throws Exception {
        return new MiniStatus(layout).status();
    }

    public Optional<MiniState> state() throws IOException {
        return MiniState.read(layout.stateFile());
    }

    /** Stops every process mini.json names; files stay unless {@code purge}. 0 when nothing runs any more. */
    public int down(boolean purge) throws IOException {
        return new MiniDown(layout, progress).down(purge);
    }
}
