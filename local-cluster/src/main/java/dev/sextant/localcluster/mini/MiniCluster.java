package dev.sextant.localcluster.mini;

import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.imagebuilder.build.BuildException;
import dev.sextant.localcluster.qemu.Accel;
import dev.sextant.localcluster.qemu.ConsoleLog;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.FreePort;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.Lifetime;
import dev.sextant.localcluster.qemu.NodeConfig;
import dev.sextant.localcluster.qemu.ProcessRef;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.localcluster.verify.AtlsProbe;
import dev.sextant.tpm.swtpm.LocalCa;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code sextant mini up|status|down}: a local confidential cluster of QEMU nodes on this machine.
 * Up builds (or reuses) the image, gives every node a factory TPM whose EK certificate the mini
 * CA signs, boots one control plane and N workers (QEMU user networking, ports forwarded on
 * 127.0.0.1 only), verifies the control plane over attested TLS, runs init, waits for the workers
 * to join and verifies every node again. The QEMU and swtpm processes outlive the command; mini.json
 * records them for status and down. Every wait has a timeout naming what it waited for and the
 * node's console log.
 */
public final class MiniCluster {
    /** platform.md: 62–119 s from QEMU to a verified handshake for one node; several share 2 cores here. */
    public static final Duration DEFAULT_BOOT_TIMEOUT = Duration.ofMinutes(15);
    public static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofMinutes(15);
    static final long STATE_DISK_BYTES = 256L << 20;
    private static final Duration POLL = Duration.ofSeconds(2);
    private static final Duration HEARTBEAT = Duration.ofSeconds(20);
    /** After "bootstrapped" the bootstrapper restarts in verify-only mode: a short gap without an answer. */
    private static final Duration REVERIFY_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration STATUS_VERIFY_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern ANSI_ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]");
    private static final Pattern CLUSTER_ID = Pattern.compile("cluster ID: ([0-9a-f]{64})");

    private final MiniLayout layout;
    private final Consumer<String> progress;

    public MiniCluster(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
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

    /**
     * Runs {@code sextant init} with these arguments, its output lines going to the consumer;
     * returns its exit code. The CLI passes its own init command, so mini inits exactly as an operator does.
     */
    @FunctionalInterface
    public interface ClusterInit {
        int run(List<String> args, Consumer<String> output) throws Exception;
    }

    /** Thrown when the cluster cannot come up; the message names the node and its console log. */
    public static final class MiniFailure extends Exception {
        public MiniFailure(String message) {
            super(message);
        }

        public MiniFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    // ---------------------------------------------------------------------------------------- up

    /** Returns 0 with the summary printed, 1 when a cluster is already running here. */
    public int up(UpOptions options, ClusterInit init, Consumer<String> summaryOut) throws Exception {
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
        Files.createDirectories(layout.dir());
        LocalCa ca = HostIdentities.ca(layout, progress);
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
            Map<String, String> credentials = node.getValue() == NodeRole.CONTROL_PLANE
                    ? NodeCredentials.controlPlane(name, initSecret, HostIdentities.salt())
                    : NodeCredentials.worker(name, joinHostPort);
            configs.put(name, NodeConfig.of(tools, image.image(), layout.nodeDir(name), node.getValue().guestPorts())
                    .withTpmState(tpm.stateDir()).withMemoryMiB(node.getValue().memoryMiB())
                    .withHostPorts(ports.ports(name)).withStateDisk(disk).withCredentials(credentials)
                    .withAccel(options.accel()).withLifetime(Lifetime.DETACHED));
        }

        Booted booted = new Booted(new MiniState(MiniState.VERSION, MiniState.STARTING, Instant.now().toString(),
                image.image().toString(), null, List.of()));
        Thread stopOnInterrupt = new Thread(() -> booted.stopAll("mini up was interrupted"), "mini-up-interrupted");
        Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
        boolean success = false;
        try {
            for (var config : configs.entrySet()) {
                booted.boot(config.getKey(), nodes.get(config.getKey()), config.getValue());
            }
            QemuNode cp = booted.node(controlPlane);
            NodeAttestation imagePolicy = new NodeAttestation(imageMeasurements, ca.certificate());
            awaitVerified(controlPlane, cp, imagePolicy, options.bootTimeout(), "its bootstrapper's aTLS port (guest 7443)");

            byte[] clusterId = runInit(init, cp, controlPlane);
            booted.update(booted.state.withClusterId(HexFormat.of().formatHex(clusterId)));
            Measurements cluster = ClusterMeasurements.forCluster(imageMeasurements, clusterId);
            Files.write(layout.clusterMeasurements(), cluster.toJson());
            MeasurementsFile.sign(layout.clusterMeasurements(), Files.readString(layout.measurementsKey()));

            Map<String, NodeStatusLine> statuses = new LinkedHashMap<>();
            for (String name : nodes.keySet()) {
                String what = name.equals(controlPlane) ? "the end of its bootstrapping after init"
                        : "it to join " + controlPlane + " (join service at " + NodeCredentials.HOST_FROM_GUEST + ":"
                        + joinHostPort + " from the guest)";
                statuses.put(name, awaitStatus(name, booted.node(name),
                        name.equals(controlPlane) ? options.bootTimeout() : options.joinTimeout(), what));
            }

            NodeAttestation clusterPolicy = new NodeAttestation(cluster, ca.certificate());
            List<Summary.Row> rows = new ArrayList<>();
            for (String name : nodes.keySet()) {
                QemuNode node = booted.node(name);
                AtlsProbe.Outcome outcome = awaitVerified(name, node, clusterPolicy, REVERIFY_TIMEOUT,
                        "its aTLS port after bootstrapping (verify-only mode)");
                NodeStatusLine status = statuses.get(name);
                rows.add(new Summary.Row(name, nodes.get(name).label(), clusterPolicy.describe(Optional.of(outcome)),
                        status.diskSummary(), name.equals(controlPlane) ? "yes (initialized the cluster)"
                        : status.role().equals(NodeRole.WORKER.label()) ? "yes" : "no (reported role " + status.role() + ")"));
            }
            boolean kubeconfig = Files.isRegularFile(layout.kubeconfig());
            if (kubeconfig) {
                pointKubeconfigAtForward(ports.hostPort(controlPlane, NodeRole.KUBERNETES_API_PORT));
            }
            booted.update(booted.state.withPhase(MiniState.UP));
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
                    booted.update(booted.state.withPhase(MiniState.FAILED));
                    progress.accept("--keep-on-failure: the nodes keep running; stop them with 'sextant mini down'");
                } else {
                    booted.stopAll("mini up failed");
                }
            }
        }
    }

    /** The QEMU nodes this run started, and the state file kept in step with them. */
    private final class Booted {
        private final Map<String, QemuNode> nodes = new LinkedHashMap<>();
        private volatile MiniState state;

        Booted(MiniState state) throws IOException {
            this.state = state;
            state.write(layout.stateFile());
        }

        void boot(String name, NodeRole role, NodeConfig config) throws IOException {
            QemuNode node = QemuNode.boot(config);
            synchronized (this) {
                nodes.put(name, node);
            }
            update(state.withNode(new MiniState.Node(name, role, node.hostPorts(), node.consoleLog().toString(),
                    node.qemuRef(), node.swtpm().ref())));
            progress.accept(name + ": booting (QEMU pid " + node.qemuRef().pid() + ", " + config.memoryMiB() + " MiB, "
                    + config.accel().name().toLowerCase() + "; " + forwards(node.hostPorts()) + "; console "
                    + node.consoleLog() + ")");
        }

        QemuNode node(String name) {
            return nodes.get(name);
        }

        void update(MiniState next) throws IOException {
            state = next;
            state.write(layout.stateFile());
        }

        synchronized void stopAll(String why) {
            if (nodes.isEmpty()) {
                return;
            }
            progress.accept(why + ": stopping the nodes it started (logs stay in " + layout.dir() + ")");
            nodes.values().forEach(QemuNode::close);
            nodes.clear();
            try {
                update(state.withPhase(MiniState.FAILED));
            } catch (IOException e) {
                progress.accept("cannot update " + layout.stateFile() + ": " + e.getMessage());
            }
        }
    }

    private static String forwards(Map<Integer, Integer> guestToHost) {
        return guestToHost.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "127.0.0.1:" + e.getValue() + "->" + e.getKey()).collect(Collectors.joining(" "));
    }

    /** A new cluster replaces a stopped one's node states; the CA and signing key stay. */
    private void clearPreviousCluster(MiniState previous) {
        try {
            for (MiniState.Node node : previous.nodes()) {
                deleteTree(layout.nodeDir(node.name()));
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

    private AtlsProbe.Outcome awaitVerified(String name, QemuNode node, NodeAttestation attestation, Duration timeout,
                                            String what) throws IOException, MiniFailure {
        Instant start = Instant.now();
        Instant deadline = start.plus(timeout);
        Instant nextHeartbeat = start.plus(HEARTBEAT);
        progress.accept(name + ": waiting for " + what + " (up to " + timeout.toMinutes() + " min)");
        while (true) {
            failIfDown(name, node);
            Optional<AtlsProbe.Outcome> outcome = attestation.once(node.hostPort(NodeRole.BOOTSTRAPPER_PORT));
            if (outcome.isPresent()) {
                if (outcome.get().rejected().isPresent()) {
                    throw new MiniFailure(name + " was REJECTED over attested TLS: " + outcome.get().rejected().get()
                            + "; console log: " + node.consoleLog());
                }
                progress.accept(name + ": verified over attested TLS after " + seconds(start) + ": "
                        + attestation.verifiedPcrs() + " as expected, EK/AK chain to " + layout.caCert().getFileName());
                return outcome.get();
            }
            if (Instant.now().isAfter(deadline)) {
                throw new MiniFailure("timed out after " + timeout.toMinutes() + " min waiting for " + name + ": " + what
                        + "; last console line: \"" + lastLine(node) + "\"; console log: " + node.consoleLog());
            }
            if (Instant.now().isAfter(nextHeartbeat)) {
                progress.accept(name + ": still waiting (" + seconds(start) + "); console: " + lastLine(node));
                nextHeartbeat = Instant.now().plus(HEARTBEAT);
            }
            sleep(POLL);
        }
    }

    private NodeStatusLine awaitStatus(String name, QemuNode node, Duration timeout, String what)
            throws IOException, MiniFailure {
        Instant start = Instant.now();
        Instant deadline = start.plus(timeout);
        Instant nextHeartbeat = start.plus(HEARTBEAT);
        progress.accept(name + ": waiting for " + what + " (up to " + timeout.toMinutes() + " min)");
        while (true) {
            Optional<NodeStatusLine> status = NodeStatusLine.last(node.console().lines());
            if (status.isPresent()) {
                if (!status.get().bootstrapped()) {
                    throw new MiniFailure(name + " failed: " + status.get().reason() + "; console log: " + node.consoleLog());
                }
                progress.accept(name + ": bootstrapped after " + seconds(start) + " (" + status.get().line() + ")");
                return status.get();
            }
            failIfDown(name, node);
            if (Instant.now().isAfter(deadline)) {
                throw new MiniFailure("timed out after " + timeout.toMinutes() + " min waiting for " + name + ": " + what
                        + " (no SEXTANT-STATUS line); last console line: \"" + lastLine(node) + "\"; console log: "
                        + node.consoleLog());
            }
            if (Instant.now().isAfter(nextHeartbeat)) {
                progress.accept(name + ": still waiting (" + seconds(start) + "); console: " + lastLine(node));
                nextHeartbeat = Instant.now().plus(HEARTBEAT);
            }
            sleep(POLL);
        }
    }

    private void failIfDown(String name, QemuNode node) throws IOException, MiniFailure {
        Optional<String> stopped = node.whyNotRunning();
        if (stopped.isPresent()) {
            throw new MiniFailure(name + " stopped: " + stopped.get() + "; console log: " + node.consoleLog());
        }
        Optional<NodeStatusLine> status = NodeStatusLine.last(node.console().lines());
        if (status.isPresent() && !status.get().bootstrapped()) {
            throw new MiniFailure(name + " failed: " + status.get().reason() + "; console log: " + node.consoleLog());
        }
    }

    private byte[] runInit(ClusterInit init, QemuNode cp, String name) throws Exception {
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

    private static String lastLine(QemuNode node) throws IOException {
        return lastLine(node.console().lines(), 160);
    }

    /** The last console line with text, without terminal colour codes (systemd colours its status lines). */
    static String lastLine(List<String> lines, int max) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String text = ANSI_ESCAPE.matcher(lines.get(i)).replaceAll("").strip();
            if (!text.isEmpty()) {
                return abbreviate(text, max);
            }
        }
        return "(nothing yet)";
    }

    // ------------------------------------------------------------------------------------ status

    /** One node as {@code status} reports it. */
    public record NodeReport(String name, String role, boolean qemuAlive, boolean swtpmAlive, String ports,
                             String lastStatus, String verify) {
    }

    /** Reads mini.json and looks at every node; empty when there is no cluster here. */
    public Optional<List<NodeReport>> status() throws Exception {
        Optional<MiniState> read = MiniState.read(layout.stateFile());
        if (read.isEmpty()) {
            return Optional.empty();
        }
        MiniState state = read.get();
        Optional<NodeAttestation> attestation = statusPolicy(state);
        List<NodeReport> reports = new ArrayList<>();
        for (MiniState.Node node : state.nodes()) {
            boolean qemu = node.qemu() != null && node.qemu().alive();
            boolean swtpm = node.swtpm() != null && node.swtpm().alive();
            List<String> lines = new ConsoleLog(Path.of(node.consoleLog())).lines();
            String last = NodeStatusLine.last(lines).map(NodeStatusLine::line)
                    .orElse("no status line yet; last line: " + lastLine(lines, 100));
            String verify;
            if (!qemu) {
                verify = "not running";
            } else if (attestation.isEmpty()) {
                verify = "not checked (no measurements in " + layout.dir() + ")";
            } else {
                verify = verifyForStatus(attestation.get(), node);
            }
            reports.add(new NodeReport(node.name(), node.role().label(), qemu, swtpm, forwards(node.ports()), last, verify));
        }
        return Optional.of(reports);
    }

    /**
     * Retries for a while: after bootstrapping the bootstrapper exits and its verify-only successor
     * needs some 20–40 s under TCG before it answers again.
     */
    private static String verifyForStatus(NodeAttestation attestation, MiniState.Node node) throws IOException {
        Instant deadline = Instant.now().plus(STATUS_VERIFY_TIMEOUT);
        while (true) {
            Optional<AtlsProbe.Outcome> outcome = attestation.once(node.hostPort(NodeRole.BOOTSTRAPPER_PORT));
            if (outcome.isPresent() || Instant.now().isAfter(deadline) || node.qemu() == null || !node.qemu().alive()) {
                return outcome.isPresent() ? attestation.describe(outcome)
                        : "no answer on the aTLS port within " + STATUS_VERIFY_TIMEOUT.toSeconds()
                        + " s (a bootstrapper restarts after bootstrapping; see the console log " + node.consoleLog() + ")";
            }
            sleep(POLL);
        }
    }

    public Optional<MiniState> state() throws IOException {
        return MiniState.read(layout.stateFile());
    }

    /** Bootstrapped nodes carry the cluster's PCR 15; before init they carry the image's zero. */
    private Optional<NodeAttestation> statusPolicy(MiniState state) throws Exception {
        Path measurements = state.clusterIdIfKnown().isPresent() ? layout.clusterMeasurements() : layout.measurements();
        if (!Files.isRegularFile(measurements) || !Files.isRegularFile(layout.caCert())) {
            return Optional.empty();
        }
        Measurements policy = MeasurementsFile.verify(measurements, Files.readString(layout.measurementsPublicKey()));
        return Optional.of(new NodeAttestation(policy, LocalCa.load(layout.caDir()).certificate()));
    }

    // -------------------------------------------------------------------------------------- down

    /**
     * Stops every process mini.json names (QEMU first, then its swtpm). Files stay unless
     * {@code purge}. Returns 0 when nothing of the cluster runs any more.
     */
    public int down(boolean purge) throws IOException {
        Optional<MiniState> read = MiniState.read(layout.stateFile());
        if (read.isEmpty()) {
            progress.accept("no mini cluster in " + layout.dir() + " (no " + layout.stateFile().getFileName() + ")");
            if (purge && Files.isDirectory(layout.dir())) {
                deleteTree(layout.dir());
                progress.accept("removed " + layout.dir());
            }
            return 0;
        }
        MiniState state = read.get();
        boolean allStopped = true;
        for (MiniState.Node node : state.nodes()) {
            allStopped &= stop(node.name(), "QEMU", node.qemu(), Duration.ofSeconds(10));
            allStopped &= stop(node.name(), "swtpm", node.swtpm(), Duration.ofSeconds(5));
        }
        if (!allStopped) {
            state.write(layout.stateFile());
            progress.accept("some processes survived SIGKILL; mini.json is kept so 'sextant mini down' can retry");
            return 1;
        }
        state.withPhase(MiniState.STOPPED).write(layout.stateFile());
        if (purge) {
            deleteTree(layout.dir());
            progress.accept("removed " + layout.dir() + " (CA, keys, secrets, node states, logs)");
        } else {
            progress.accept("stopped; files stay in " + layout.dir() + " (console logs, TPM states, disks);"
                    + " 'sextant mini down --purge' removes them");
        }
        return 0;
    }

    private boolean stop(String node, String what, ProcessRef process, Duration grace) {
        if (process == null || !process.alive()) {
            return true;
        }
        boolean stopped = process.stop(grace);
        progress.accept(node + ": " + (stopped ? "stopped " : "could not stop ") + what + " (pid " + process.pid() + ")");
        return stopped;
    }

    // ----------------------------------------------------------------------------------- helpers

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    private static String seconds(Instant since) {
        return Duration.between(since, Instant.now()).toSeconds() + " s";
    }

    static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    private static void sleep(Duration pause) throws IOException {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
