package dev.sextant.localcluster.mini.upgrade;

import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.imagebuilder.EkCaBundle;
import dev.sextant.imagebuilder.ImageBuilder;
import dev.sextant.imagebuilder.Predecessor;
import dev.sextant.imagebuilder.UpgradePath;
import dev.sextant.localcluster.mini.files.MiniImage;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.operator.ClusterMeasurements;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.rollout.ImageRollout;
import dev.sextant.localcluster.rollout.RolloutStopped;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code sextant mini upgrade --image DIR}: rolls the running mini cluster to the image built in DIR
 * (docs/image-upgrades.md). The set in force gains the new image and is published to the join
 * services; {@link ImageRollout} moves the nodes one at a time on {@link MiniMachines}; when every node
 * proves the new version, a set that admits only it retires the old one and is published too. mini's own
 * copies of the set (measurements.json, and cluster-measurements.json with the cluster's PCR 15) follow
 * each step, so {@code mini status}, {@code sextant recover} and a later upgrade see what is in force.
 * A rollout that stops retires nothing; running the command again resumes it.
 */
public final class MiniUpgrade {
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMinutes(15);

    private final MiniLayout layout;
    private final Consumer<String> progress;

    public MiniUpgrade(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /** What the upgrade did, with the version the cluster ran before. */
    public record Done(String from, String to, ImageRollout.Report report) {
        /** The summary table: one row per node moved or skipped. */
        public List<String> render() {
            List<String[]> cells = new ArrayList<>();
            cells.add(new String[] {"NODE", "FROM", "TO", "POWER-OFF -> VERIFIED"});
            report.moved().forEach(m -> cells.add(new String[] {m.node(), m.from(), m.to(), m.offToVerified().toSeconds() + " s"}));
            report.alreadyOnNewImage().forEach(n -> cells.add(new String[] {n, to, to, "already on it"}));
            int[] widths = new int[4];
            cells.forEach(row -> {
                for (int i = 0; i < row.length; i++) {
                    widths[i] = Math.max(widths[i], row[i].length());
                }
            });
            List<String> lines = new ArrayList<>();
            for (String[] row : cells) {
                lines.add(String.format("%-" + widths[0] + "s  %-" + widths[1] + "s  %-" + widths[2] + "s  %s", (Object[]) row)
                        .stripTrailing());
            }
            lines.add("retired: " + from);
            return lines;
        }
    }

    public Done upgrade(Path imageDir, Duration nodeTimeout, OperatorCommand publish, OperatorCommand recover) throws Exception {
        MiniState state = MiniState.read(layout.stateFile()).orElseThrow(() -> new MiniFailure("no mini cluster in "
                + layout.dir() + "; start one with 'sextant mini up'"));
        if (!MiniState.UP.equals(state.phase()) || state.running().isEmpty()) {
            throw new MiniFailure("the mini cluster in " + layout.dir() + " is not up (" + state.phase()
                    + "); an upgrade moves a running cluster ('sextant mini start' boots it)");
        }
        byte[] clusterId = HexFormat.of().parseHex(state.clusterIdIfKnown().orElseThrow(() -> new MiniFailure(
                "the mini cluster in " + layout.dir() + " was never initialized")));
        String publicKey = Files.readString(layout.measurementsPublicKey());
        MeasurementSet inForce = MeasurementsFile.verifySet(layout.measurements(), publicKey);
        ImageMeasurements next = newImage(imageDir);
        String version = next.imageVersion();
        String from = inForce.images().stream().map(ImageMeasurements::imageVersion).filter(v -> !v.equals(version))
                .findFirst().orElseThrow(() -> new MiniFailure("the cluster in " + layout.dir() + " admits only image "
                        + version + " already: there is nothing to upgrade"));
        for (ImageMeasurements running : inForce.images()) {
            Optional<String> refusal = UpgradePath.refusal(imageDir, Predecessor.of(running),
                    "--upgrades-from DIR, DIR the build of image " + running.imageVersion());
            if (refusal.isPresent()) {
                throw new MiniFailure(refusal.get());
            }
        }
        Path image = link(imageDir.resolve("image.raw"), layout.imageOfVersion(version));

        boolean resuming = inForce.images().stream().anyMatch(i -> i.imageVersion().equals(version));
        MeasurementSet rollout = resuming ? inForce : inForce.admitting(next, inForce.version() + 1);
        if (!resuming) {
            publishAndRecord(rollout, clusterId, publish);
            progress.accept("measurement set " + rollout.version() + " admits image " + from + " and " + version);
        } else {
            progress.accept("measurement set " + rollout.version() + " admits image " + version + " already: resuming");
        }

        HostTools tools = HostTools.locate().orElseThrow(() -> new MiniFailure("host tools missing: "
                + String.join("; ", HostTools.missing()) + " (scripts/setup.sh installs them)"));
        MiniMachines machines = new MiniMachines(layout, progress, recover, tools, NodeAttestation.ofCluster(layout));
        List<ImageRollout.Node> nodes = state.nodes().stream()
                .map(n -> new ImageRollout.Node(n.name(), n.role() == NodeRole.CONTROL_PLANE)).toList();
        ImageRollout.Report report;
        try {
            report = new ImageRollout(machines, machines, nodeTimeout,
                    nodeTimeout.compareTo(DEFAULT_NODE_TIMEOUT) > 0 ? nodeTimeout : DEFAULT_NODE_TIMEOUT, Clock.systemUTC(), progress).run(nodes, image, version);
        } catch (RolloutStopped e) {
            throw new MiniFailure(e.getMessage() + "; 'sextant mini upgrade --image " + imageDir + "' resumes", e);
        }

        MeasurementSet retiring = rollout.retiringAllBut(version, rollout.version() + 1);
        publishAndRecord(retiring, clusterId, publish);
        for (ImageRollout.Node node : nodes) {
            machines.forgetPreviousBootDisk(node.name());
        }
        progress.accept("measurement set " + retiring.version() + " admits image " + version + " only; retired: "
                + retiring.retired().stream().map(ImageMeasurements::imageVersion).toList());
        return new Done(from, version, report);
    }

    /** The one image the build in {@code imageDir} predicted, built with this cluster's EK CA. */
    private ImageMeasurements newImage(Path imageDir) throws Exception {
        Path measurements = imageDir.resolve(ImageBuilder.MEASUREMENTS);
        for (Path needed : new Path[] {imageDir.resolve("image.raw"), measurements}) {
            if (!Files.isRegularFile(needed)) {
                throw new MiniFailure("no " + needed + ": build the new image with 'sextant image build --out " + imageDir
                        + " --image-version V --ek-ca " + layout.caCert() + "'");
            }
        }
        new MiniImage(layout, progress).requireEkCa(imageDir, EkCaBundle.read(List.of(layout.caCert())));
        MeasurementSet built = MeasurementSet.parse(Files.readAllBytes(measurements));
        if (built.images().size() != 1) {
            throw new MiniFailure(measurements + " lists " + built.images().size() + " images; an image build lists its own only");
        }
        return built.images().get(0);
    }

    /**
     * Publishes the set, then makes it mini's copy of the set in force (measurements.json, and the cluster's
     * with its PCR 15), each signed with the mini key: a publish that fails leaves mini's copies as the
     * cluster's, so running the upgrade again starts from what is in force.
     */
    private void publishAndRecord(MeasurementSet set, byte[] clusterId, OperatorCommand publish) throws Exception {
        String key = Files.readString(layout.measurementsKey());
        Path next = layout.dir().resolve("measurements.next.json");
        Files.write(next, set.toJson());
        MeasurementsFile.sign(next, key);
        publish(next, set.version(), publish);
        Files.move(MeasurementsFile.signatureFile(next), MeasurementsFile.signatureFile(layout.measurements()),
                StandardCopyOption.REPLACE_EXISTING);
        Files.move(next, layout.measurements(), StandardCopyOption.REPLACE_EXISTING);
        Files.write(layout.clusterMeasurements(), ClusterMeasurements.forCluster(set, clusterId).toJson());
        MeasurementsFile.sign(layout.clusterMeasurements(), key);
    }

    /**
     * Publishes the signed set in {@code file} through the first running control plane's join service, as
     * mini.json says now: a rollout powers control planes off and on, each time under a new process.
     */
    private void publish(Path file, long version, OperatorCommand publish) throws Exception {
        MiniState state = MiniState.read(layout.stateFile()).orElseThrow(() -> new MiniFailure("no mini cluster in " + layout.dir()));
        MiniState.Node controlPlane = state.nodes().stream()
                .filter(n -> n.role() == NodeRole.CONTROL_PLANE && n.qemu() != null && n.qemu().alive()).findFirst()
                .orElseThrow(() -> new MiniFailure("no control plane of the mini cluster runs: nothing to publish the set to"));
        List<String> args = List.of("--measurements", file.toString(),
                "--measurements-key", layout.measurementsPublicKey().toString(),
                "--endpoint", "127.0.0.1:" + controlPlane.hostPort(NodeRole.JOIN_PORT),
                "--ek-ca", layout.caCert().toString());
        progress.accept("publishing measurement set " + version + " through " + controlPlane.name());
        int exit = publish.run(args, line -> progress.accept("publish| " + line));
        if (exit != 0) {
            throw new MiniFailure("publishing measurement set " + version + " failed (exit " + exit + "); mini's copy of the"
                    + " set in force is unchanged, and running the upgrade again retries");
        }
    }

    private Path link(Path image, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        if (!Files.exists(target) || !Files.isSameFile(image, target)) {
            MiniImage.link(image, target, progress);
        }
        return target;
    }
}
