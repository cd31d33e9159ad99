package dev.sextant.e2e.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.localcluster.image.UkiCmdlinePatch;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.measuredboot.predict.PcrPredictor;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.qemu.ConsoleLog;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.HostTools;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Nodes and control planes that survive reboots and each other, proved in real boots as an operator runs them
 * (bin/sextant, a separate process per command): {@code mini up --control-planes 3 --workers 1} (two control
 * planes join the initialized one, each etcd member voting), {@code mini stop control-plane-0}, then
 * {@code mini reboot worker-0} (the worker back with the same disk and "since", via rejoin through another
 * control plane), {@code mini reboot control-plane-0} (powered on again: rejoined through another control plane with no operator, its etcd member a voting
 * member again), {@code mini down}, {@code mini start} (a quorum of control planes via recovery, the third and
 * the worker via rejoin, the same disks and "since"), then the image upgrade (docs/image-upgrades.md): image B built
 * here from the cluster's image A with another version, {@code mini upgrade --image B} (every node proves B with
 * its disk and "since", A retired), a copy of a further build whose UKI boots into emergency mode rolled back on the
 * first node (the cluster stays on B), worker-0 booted from A again by the host and refused naming the retired
 * version, and {@code mini down --purge} leaving no process. Every node
 * is verified independently here by {@code sextant verify} against the image's measurements with PCR 15
 * computed from the cluster ID init printed; the join services' ticket counters are read through the
 * forwarded /prometheus. Prints the figures: mini up to summary, peak memory, the worker's rejoin while a
 * control plane is off, power-on to rejoined/recovered and verified, mini start to summary, and each node's
 * power-off to verified on image B beside its reboot earlier in the run (the goal: one control plane and
 * one worker in at most 2.5 times their two reboots).
 */
@Tag("boot")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("sextant mini: three control planes up, one stopped, a worker rebooted, the control plane back, down, start,"
        + " an image upgrade, a broken image rolled back, the retired image refused")
class MiniClusterTest {
    private static final Duration UP_TIMEOUT = Duration.ofMinutes(50);
    private static final Duration COMEBACK_TIMEOUT = Duration.ofMinutes(30);
    private static final Duration SHORT = Duration.ofMinutes(2);
    /** How long a node may take to serve again after its bootstrapper's post-bootstrap restart. */
    private static final Duration VERIFY_RESTART_GAP = Duration.ofMinutes(3);
    private static final Pattern CLUSTER_ID = Pattern.compile("cluster ID: ([0-9a-f]{64})");
    private static final Pattern UP_SECONDS = Pattern.compile("mini up: ([0-9.]+) s from start to summary");
    private static final Pattern FIGURE = Pattern.compile("(?m)^\\S+: power-on -> \\w+ and verified: \\d+ s$");
    private static final Pattern START_SECONDS = Pattern.compile("(?m)^mini start -> summary: [0-9.]+ s$");
    private static final String CP = "control-plane-0";
    private static final String CP1 = "control-plane-1";
    private static final String CP2 = "control-plane-2";
    private static final List<String> CONTROL_PLANES = List.of(CP, CP1, CP2);
    private static final String WORKER = "worker-0";
    private static final Pattern ETCD_LINE = Pattern.compile("(?m)^  etcd:\\s+(.*)$");
    private static final Pattern VOLUME_LINE = Pattern.compile("(?m)^  volume:\\s+(.*)$");
    /** Four nodes, each power-off to verified on the new image, plus a rollback: under TCG several minutes each. */
    private static final Duration UPGRADE_TIMEOUT = Duration.ofMinutes(45);
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);
    private static final Pattern MOVED = Pattern.compile("(?m)^(\\S+): (\\S+) -> (\\S+), power-off -> verified: (\\d+) s$");
    private static final Pattern REBOOT_SECONDS = Pattern.compile("(?m)^(\\S+): power-on -> \\w+ and verified: (\\d+) s$");

    private Path repo;
    /** -Dsextant.image.dir: boot that image as built (--no-build); else mini up builds or reuses out/image. */
    private final String imageDir = System.getProperty("sextant.image.dir", "");
    /**
     * -Dsextant.image.ek-ca-dir: the EK CA (ca-cert.pem, ca-key.pem) that image was built with
     * ({@code --ek-ca}), made this cluster's CA, so its workers can verify their join service.
     */
    private final String imageEkCaDir = System.getProperty("sextant.image.ek-ca-dir", "");
    private Path dir;
    private Path logs;
    private Path clusterPolicy;
    private final List<String> figures = new ArrayList<>();
    /** Each node's status line after mini up: the disk and "since" every later boot must show again. */
    private final Map<String, NodeStatusLine> firstStatus = new LinkedHashMap<>();
    /** Power-on to verified of each node's reboot in this run: the baseline of the upgrade's figure. */
    private final Map<String, Long> rebootSeconds = new LinkedHashMap<>();
    private byte[] clusterId;
    /** The version of the image the cluster came up on (A); B and C are built from it in the run. */
    private String versionA;
    private Path imageB;
    /** The scenario is one story: a step runs only when every step before it passed. */
    private boolean story = true;

    @BeforeAll
    void hostAndRepo() throws IOException {
        List<String> missing = new ArrayList<>(HostTools.missing());
        missing.addAll(FactoryTpm.missingTools());
        for (Path d = Path.of("").toAbsolutePath(); d != null && repo == null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("mkosi/mkosi.conf")) && Files.isExecutable(d.resolve("bin/sextant"))) {
                repo = d;
            }
        }
        if (repo == null) {
            missing.add("no source tree with mkosi/mkosi.conf and bin/sextant above " + Path.of("").toAbsolutePath());
        }
        if (!missing.isEmpty()) {
            System.out.println("SKIP MiniClusterTest: " + missing);
        }
        assumeTrue(missing.isEmpty(), () -> "missing: " + missing);
        dir = repo.resolve("e2e/target/mini-" + ProcessHandle.current().pid());
        logs = Files.createDirectories(repo.resolve("e2e/target/mini-logs"));
        if (!imageDir.isBlank() && !imageEkCaDir.isBlank()) {
            adoptImageEkCa(Path.of(imageEkCaDir));
        }
    }

    /** mini up keeps a CA it finds in its directory: the given image's, in mini's layout and modes. */
    private void adoptImageEkCa(Path from) throws IOException {
        Path ca = Files.createDirectories(dir.resolve("ca"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(ca, PosixFilePermissions.fromString("rwx------"));
        for (String file : List.of("ca-key.pem", "ca-cert.pem")) {
            Files.copy(from.resolve(file), ca.resolve(file));
        }
        Files.setPosixFilePermissions(ca.resolve("ca-key.pem"), PosixFilePermissions.fromString("rw-------"));
    }

    @BeforeEach
    void earlierStepsPassed() {
        assumeTrue(story, "an earlier step of the scenario failed");
        story = false;
    }

    /** The last statement of a step: the next one may run. */
    private void passed() {
        story = true;
    }

    @AfterAll
    void downAndFigures() throws Exception {
        if (dir != null && Files.exists(dir.resolve("mini.json"))) {
            sextant("down-after-all", SHORT, "mini", "down", "--dir", dir.toString());
        }
        figures.forEach(f -> System.out.println("MiniClusterTest: " + f));
    }

    @Test
    @Order(1)
    @DisplayName("up --control-planes 3 --workers 1 brings up a verified, initialized cluster, every control plane's etcd"
            + " member voting on its own data volume, whose summary holds up to independent checks")
    void upVerified() throws Exception {
        Run up = up("up");
        assertEquals(0, up.exit, "mini up failed; see " + up.log + ":\n" + up.output);
        assertSummaryRow(up.output, CP, "control-plane", "init");
        assertSummaryRow(up.output, CP1, "control-plane", "join");
        assertSummaryRow(up.output, CP2, "control-plane", "join");
        assertSummaryRow(up.output, WORKER, "worker", "join");
        for (String cp : CONTROL_PLANES) {
            assertTrue(Pattern.compile("(?m)^" + cp + "\\s.*\\s(leader|follower), healthy\\s").matcher(up.output).find(),
                    cp + "'s etcd member is no healthy voting member in the summary:\n" + up.output);
        }
        for (String cp : CONTROL_PLANES) {
            assertEtcdOnDataVolume(cp);
        }
        assertTrue(up.output.contains("Kubernetes: not installed") || up.output.contains("Kubernetes: started"),
                "the summary does not say what became of Kubernetes; see " + up.log);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)), "out/mini must be 0700");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("ca/ca-key.pem"))));

        Matcher id = CLUSTER_ID.matcher(up.output);
        assertTrue(id.find(), "init printed no cluster ID; see " + up.log);
        clusterId = HexFormat.of().parseHex(id.group(1));
        clusterPolicy = clusterPolicy(clusterId);
        versionA = Files.readString(imageDirA().resolve("image-version")).trim();
        verifyEveryNode("after-up");
        for (String node : List.of(CP, CP1, CP2, WORKER)) {
            firstStatus.put(node, status(node));
        }
        double tickets = 0;
        for (String cp : CONTROL_PLANES) {
            tickets += joinTickets(node(cp).hostPort(9091));
        }
        System.out.println("MiniClusterTest: the join services report sextant_join_tickets_issued_total " + tickets);
        assertTrue(tickets >= 3, "the join services issued fewer than 3 tickets, yet the summary says two control planes"
                + " and worker-0 joined");
        Run status = sextant("status", SHORT, "mini", "status", "--dir", dir.toString());
        assertEquals(0, status.exit, "mini status after up; see " + status.log + ":\n" + status.output);
        assertEquals(3, fieldLines(status, ETCD_LINE).size(), "mini status shows no etcd line per control plane:\n"
                + status.output);
        List<String> volumes = fieldLines(status, VOLUME_LINE);
        assertTrue(volumes.size() == 3 && volumes.stream().allMatch(v -> v.contains("etcd-volume.raw: member m")
                && v.contains(" mounted on ")), "mini status does not show each control plane's volume mounted:\n"
                + status.output);
        passed();
    }

    @Test
    @Order(2)
    @DisplayName("stop control-plane-0, then reboot worker-0: the worker rejoins through another control plane with the"
            + " same disk and since, verified; the first boot's console is kept")
    void rebootWorkerWhileAControlPlaneIsOff() throws Exception {
        Run stop = sextant("stop-cp0", SHORT, "mini", "stop", CP, "--dir", dir.toString());
        assertEquals(0, stop.exit, "mini stop control-plane-0; see " + stop.log + ":\n" + stop.output);
        Run reboot = sextant("reboot-worker", COMEBACK_TIMEOUT, "mini", "reboot", WORKER, "--dir", dir.toString());
        assertEquals(0, reboot.exit, "mini reboot worker-0 failed; see " + reboot.log + ":\n" + reboot.output);
        Matcher figure = FIGURE.matcher(reboot.output);
        assertTrue(figure.find(), "no figure; see " + reboot.log);
        figures.add("control-plane-0 off: " + figure.group());
        rebootSeconds(reboot);
        assertCameBack(WORKER, "rejoin");
        assertTrue(Files.readString(dir.resolve(WORKER + "/console.1.log")).contains(firstStatus.get(WORKER).line()),
                "the first boot's console (console.1.log) was not kept");
        passed();
    }

    @Test
    @Order(3)
    @DisplayName("reboot control-plane-0 powers it on: rejoined through another control plane with no operator, with its disk"
            + " and since, its etcd member votes again")
    void controlPlaneBack() throws Exception {
        Run reboot = sextant("reboot-cp0", COMEBACK_TIMEOUT, "mini", "reboot", CP, "--dir", dir.toString());
        assertEquals(0, reboot.exit, "mini reboot control-plane-0 failed; see " + reboot.log + ":\n" + reboot.output);
        figures(reboot);
        rebootSeconds(reboot);
        NodeStatusLine now = status(CP);
        assertEquals("rejoin", now.via(), "control-plane-0 came back by the operator's recovery, not through a peer: "
                + now.line());
        assertFalse(reboot.output.contains("sextant recover"), "mini reboot ran the operator's recovery; see " + reboot.log);
        assertEquals("member", now.etcd(), "control-plane-0's status line: " + now.line());
        assertEquals(firstStatus.get(CP).disk(), now.disk(), "control-plane-0 came back with another state disk");
        assertEquals(firstStatus.get(CP).since(), now.since(), "control-plane-0 came back with another 'since'");
        Run status = sextant("status-after-cp0", SHORT, "mini", "status", "--dir", dir.toString());
        assertEquals(0, status.exit, "mini status after control-plane-0 came back; see " + status.log + ":\n"
                + status.output);
        String cp0 = status.output.substring(status.output.indexOf(CP + " (control-plane)"));
        Matcher etcd = ETCD_LINE.matcher(cp0);
        assertTrue(etcd.find() && etcd.group(1).matches("(leader|follower), healthy"),
                "mini status does not show control-plane-0 as a healthy voting member:\n" + status.output);
        verifyEveryNode("after-reboots");
        passed();
    }

    @Test
    @Order(4)
    @DisplayName("down stops every process and keeps the files")
    void down() throws Exception {
        Run down = sextant("down", SHORT, "mini", "down", "--dir", dir.toString());
        assertEquals(0, down.exit, "mini down; see " + down.log);
        assertEquals(List.of(), clusterProcesses(), "processes of the cluster left after mini down");
        assertTrue(Files.exists(dir.resolve(CP + "/state-disk.raw")), "down removed the state disk");
        passed();
    }

    @Test
    @Order(5)
    @DisplayName("start recovers a quorum of control planes; the third and the worker rejoin, all with their disks and"
            + " since (each control plane's etcd on its data volume again), verified")
    void start() throws Exception {
        Run start = sextant("start", COMEBACK_TIMEOUT, "mini", "start", "--dir", dir.toString());
        assertEquals(0, start.exit, "mini start failed; see " + start.log + ":\n" + start.output);
        figures(start);
        Matcher toSummary = START_SECONDS.matcher(start.output);
        assertTrue(toSummary.find(), "mini start printed no time to its summary; see " + start.log);
        figures.add(toSummary.group());
        assertSummaryRow(start.output, CP, "control-plane", "recovery");
        assertSummaryRow(start.output, CP1, "control-plane", "recovery");
        assertSummaryRow(start.output, CP2, "control-plane", "rejoin");
        assertSummaryRow(start.output, WORKER, "worker", "rejoin");
        assertCameBack(CP, "recovery");
        assertCameBack(CP1, "recovery");
        assertCameBack(CP2, "rejoin");
        assertCameBack(WORKER, "rejoin");
        for (String cp : CONTROL_PLANES) {
            assertEtcdOnDataVolume(cp);
        }
        verifyEveryNode("after-start");
        passed();
    }

    @Test
    @Order(6)
    @DisplayName("upgrade to image B (another version, so other PCRs) moves every node, control planes first: each"
            + " proves B with the same disk and since, and A is retired")
    void upgradeToImageB() throws Exception {
        imageB = buildImage("image-b", versionA + "-b", imageDirA());
        Run upgrade = sextant("upgrade-b", UPGRADE_TIMEOUT, "mini", "upgrade", "--image", imageB.toString(), "--dir",
                dir.toString());
        assertEquals(0, upgrade.exit, "mini upgrade to image B failed; see " + upgrade.log + ":\n" + upgrade.output);
        String versionB = versionB();
        Map<String, Long> moved = new LinkedHashMap<>();
        Matcher line = MOVED.matcher(upgrade.output);
        while (line.find()) {
            assertEquals(versionA, line.group(2), line.group());
            assertEquals(versionB, line.group(3), line.group());
            moved.put(line.group(1), Long.parseLong(line.group(4)));
        }
        assertEquals(List.of(CP, CP1, CP2, WORKER), List.copyOf(moved.keySet()),
                "mini upgrade did not move every node once, control planes first:\n" + upgrade.output);
        assertTrue(upgrade.output.contains("retired: " + versionA), "mini upgrade did not say A is retired:\n" + upgrade.output);
        for (String node : moved.keySet()) {
            NodeStatusLine now = status(node);
            assertEquals(versionB, now.image(), node + " does not report image B: " + now.line());
            assertEquals(firstStatus.get(node).disk(), now.disk(), node + " came back from the upgrade with another state disk");
            assertEquals(firstStatus.get(node).since(), now.since(), node + " came back from the upgrade with another 'since'");
        }
        MeasurementSet inForce = MeasurementSet.parse(Files.readAllBytes(dir.resolve("measurements.json")));
        assertEquals(List.of(versionB), inForce.images().stream().map(ImageMeasurements::imageVersion).toList(),
                "mini's set in force after the upgrade");
        assertTrue(inForce.retired().stream().anyMatch(i -> i.imageVersion().equals(versionA)), "A is not retired");
        clusterPolicy = clusterPolicy(clusterId);
        verifyEveryNode("after-upgrade");
        long upgraded = moved.get(CP) + moved.get(WORKER);
        long rebooted = rebootSeconds.getOrDefault(CP, 0L) + rebootSeconds.getOrDefault(WORKER, 0L);
        figures.add(String.format("upgrade A -> B: control-plane-0 + worker-0 power-off -> verified %d s, their reboots"
                + " earlier in this run power-on -> verified %s: %s (goal <= 2.5 x); every node: %s", upgraded,
                rebootSeconds.keySet().containsAll(List.of(CP, WORKER)) ? rebooted + " s" : "n/a " + rebootSeconds,
                rebooted > 0 ? String.format("%.2f x", (double) upgraded / rebooted) : "n/a", moved));
        passed();
    }

    @Test
    @Order(7)
    @DisplayName("an image C whose bootstrapper never starts (booted into emergency mode) is rolled back on the first"
            + " node, which comes back on B; the upgrade stops naming it and its console log and retires nothing")
    void brokenImageRolledBack() throws Exception {
        Path base = buildImage("image-c-base", versionA + "-c", imageB);
        Path imageC = brokenCopy(base, dir.resolve("build/image-c"));
        Run upgrade = sextant("upgrade-c", UPGRADE_TIMEOUT, "mini", "upgrade", "--image", imageC.toString(), "--timeout",
                "2", "--dir", dir.toString());
        assertEquals(1, upgrade.exit, "mini upgrade to the broken image C did not stop; see " + upgrade.log + ":\n"
                + upgrade.output);
        assertTrue(upgrade.output.contains(CP + ": not back and verified within 120 s"), "the rollout did not stop at "
                + CP + " for its timeout:\n" + upgrade.output);
        assertTrue(upgrade.output.contains("it is back and verified on image " + versionB()), CP
                + " did not come back on image B:\n" + upgrade.output);
        assertTrue(upgrade.output.contains(dir.resolve(CP + "/console.log").toString()), "the refusal does not name "
                + CP + "'s console log:\n" + upgrade.output);
        for (String node : List.of(CP, CP1, CP2, WORKER)) {
            NodeStatusLine now = status(node);
            assertEquals(versionB(), now.image(), node + " does not run image B after the rollback: " + now.line());
            assertEquals(firstStatus.get(node).disk(), now.disk(), node + " has another state disk after the rollback");
        }
        String versionB = versionB();
        MeasurementSet inForce = MeasurementSet.parse(Files.readAllBytes(dir.resolve("measurements.json")));
        assertTrue(inForce.images().stream().anyMatch(i -> i.imageVersion().equals(versionB)),
                "B is no longer admitted after a rollout that stopped: " + inForce.images());
        verifyEveryNode("after-rollback");
        passed();
    }

    @Test
    @Order(8)
    @DisplayName("the host boots worker-0 from image A again: its join service refuses its rejoin, sextant verify"
            + " rejects it and re-attestation revokes it, each naming retired image A")
    void retiredImageRefused() throws Exception {
        Run stop = sextant("stop-worker", SHORT, "mini", "stop", WORKER, "--dir", dir.toString());
        assertEquals(0, stop.exit, "mini stop worker-0; see " + stop.log + ":\n" + stop.output);
        Path launch = dir.resolve(WORKER + "/launch.json");
        NodeLaunch.read(launch).withImage(imageDirA().resolve("image.raw")).write(launch);
        // mini reboot waits for a bootstrap that never comes (the node stays locked, serving only its quote): its
        // exit says nothing here, and verifyOnce waits on for the node's port.
        sextant("reboot-worker-on-a", COMEBACK_TIMEOUT, "mini", "reboot", WORKER, "--timeout", "2", "--dir", dir.toString());
        Run verify = verifyOnce("verify-worker-on-a", dir.resolve("measurements.json"), node(WORKER));
        assertEquals(1, verify.exit, "sextant verify did not reject worker-0 on retired image A; see " + verify.log
                + ":\n" + verify.output);
        assertTrue(verify.output.contains("IMAGE_RETIRED") && verify.output.contains(versionA),
                "sextant verify's rejection does not name retired image " + versionA + ":\n" + verify.output);
        Path log = dir.resolve(WORKER + "/console.log");
        long deadline = System.nanoTime() + SHORT.toNanos();
        String console = Files.readString(log);
        while (!console.contains("IMAGE_RETIRED") && System.nanoTime() < deadline && sleep(Duration.ofSeconds(5))) {
            console = Files.readString(log);
        }
        // A's record of the disk was kept beside B's (the two NV slots), so A reads it and asks for a rejoin ticket.
        assertTrue(console.contains("IMAGE_RETIRED"), "worker-0's console shows no rejoin refused naming the retired image;"
                + " see " + log);
        // Re-attestation asks it at the endpoint of its last rejoin and gets A's quote: revoked, naming why.
        Pattern revoked = Pattern.compile("(?m)^\\s+" + WORKER + "\\s+worker\\s.*\\srevoked\\s+IMAGE_RETIRED");
        Run status;
        long until = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        do {
            status = sextant("status-worker-on-a", SHORT, "mini", "status", "--dir", dir.toString());
        } while (!revoked.matcher(status.output).find() && System.nanoTime() < until && sleep(Duration.ofSeconds(15)));
        assertTrue(revoked.matcher(status.output).find(), "re-attestation did not revoke worker-0 on retired image A"
                + " (IMAGE_RETIRED) within 3 min; mini status:\n" + status.output);
        passed();
    }

    @Test
    @Order(9)
    @DisplayName("down --purge leaves no process and no files")
    void purge() throws Exception {
        Run down = sextant("down-purge", SHORT, "mini", "down", "--purge", "--dir", dir.toString());
        assertEquals(0, down.exit, "mini down --purge; see " + down.log);
        assertEquals(List.of(), clusterProcesses(), "processes of the cluster left after mini down --purge");
        assertFalse(Files.exists(dir), "down --purge left " + dir);
        passed();
    }

    /** The node's status line of its current boot says bootstrapped {@code via}, with its first disk and since. */
    private void assertCameBack(String node, String via) throws IOException {
        NodeStatusLine now = status(node);
        NodeStatusLine first = firstStatus.get(node);
        assertEquals(via, now.via(), node + " came back another way than expected: " + now.line());
        assertEquals(first.disk(), now.disk(), node + " came back with another state disk");
        assertEquals(first.since(), now.since(), node + " came back with another 'since' (its disk was formatted anew?)");
    }

    /**
     * The console of the control plane's current boot says its own data volume (mini's disk tagged
     * {@code sx1:sextant:cp:z1:m<index>}, housekeeping's DataVolumeMounter) was mounted on etcd's data dir.
     */
    private void assertEtcdOnDataVolume(String controlPlane) throws IOException {
        Path console = dir.resolve(controlPlane + "/console.log");
        String member = "m" + controlPlane.substring(controlPlane.lastIndexOf('-') + 1);
        assertTrue(Pattern.compile("Data volume: member " + member + " \\(/dev/\\S+, GPT name\\) mounted on \\S*/etcd/data")
                .matcher(Files.readString(console)).find(), controlPlane + "'s console (" + console
                + ") does not say its etcd data volume (" + member + ") was mounted on etcd's data dir");
    }

    private NodeStatusLine status(String node) throws IOException {
        Path console = dir.resolve(node + "/console.log");
        return NodeStatusLine.last(new ConsoleLog(console).lines())
                .orElseThrow(() -> new AssertionError("no SEXTANT-STATUS line in " + console));
    }

    private MiniState.Node node(String name) throws IOException {
        return MiniState.read(dir.resolve("mini.json")).orElseThrow().nodes().stream()
                .filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * sextant verify, run here, of every node against the image's measurements with this cluster's PCR 15.
     * A node's bootstrapper exits after bootstrapping and systemd starts it again in verify-only mode
     * (tens of seconds under TCG): in that gap QEMU's port forward accepts and closes the connection, so
     * "unavailable" (exit 2) is asked again for a while, and so is a handshake that timed out (the
     * verify-only bootstrapper may have just started and still be cold, the more so on a slow host);
     * a rejection (exit 1) fails at once.
     */
    /** All at once, as independent operators would: each verify waits mostly on its node's TPM quote. */
    private void verifyEveryNode(String when) throws Exception {
        List<MiniState.Node> nodes = MiniState.read(dir.resolve("mini.json")).orElseThrow().nodes();
        ExecutorService operators = Executors.newFixedThreadPool(nodes.size());
        try {
            Map<MiniState.Node, Future<Run>> verifies = new LinkedHashMap<>();
            for (MiniState.Node node : nodes) {
                verifies.put(node, operators.submit(() -> verifyOnce("verify-" + node.name() + "-" + when, clusterPolicy,
                        node)));
            }
            for (var entry : verifies.entrySet()) {
                Run verify = entry.getValue().get();
                assertEquals(0, verify.exit, "sextant verify rejects " + entry.getKey().name() + " " + when
                        + " against the image's measurements with this cluster's PCR 15; see " + verify.log + ":\n"
                        + verify.output);
            }
        } finally {
            operators.shutdownNow();
        }
    }

    /** sextant verify of {@code node} against {@code measurements}, asked again while the node is not serving yet. */
    private Run verifyOnce(String name, Path measurements, MiniState.Node node) throws Exception {
        long deadline = System.nanoTime() + VERIFY_RESTART_GAP.toNanos();
        Run verify;
        do {
            verify = sextant(name, SHORT, "verify", "--endpoint", "127.0.0.1:" + node.hostPort(7443), "--measurements",
                    measurements.toString(), "--ek-ca", dir.resolve("ca/ca-cert.pem").toString());
        } while (verify.exit == 2 && (verify.output.contains("unavailable") || verify.output.contains("timed out"))
                && System.nanoTime() < deadline
                && sleep(Duration.ofSeconds(5)));
        return verify;
    }

    private static boolean sleep(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
        return true;
    }

    private void rebootSeconds(Run reboot) {
        Matcher figure = REBOOT_SECONDS.matcher(reboot.output);
        while (figure.find()) {
            rebootSeconds.put(figure.group(1), Long.parseLong(figure.group(2)));
        }
    }

    /** The build the cluster came up on: the image given to the test, else the one mini up built or reused. */
    private Path imageDirA() {
        return imageDir.isBlank() ? repo.resolve("out/image") : Path.of(imageDir).toAbsolutePath();
    }

    private String versionB() throws IOException {
        return Files.readString(imageB.resolve("image-version")).trim();
    }

    /** sextant image build of another version that upgrades from {@code from}, with the cluster's EK CA. */
    private Path buildImage(String name, String version, Path from) throws Exception {
        Path out = dir.resolve("build/" + name);
        Run build = sextant("build-" + name, BUILD_TIMEOUT, "image", "build", "--out", out.toString(), "--image-version",
                version, "--upgrades-from", from.toString(), "--ek-ca", dir.resolve("ca/ca-cert.pem").toString());
        assertEquals(0, build.exit, "sextant image build of " + name + " failed; see " + build.log + ":\n" + build.output);
        assertEquals(version, Files.readString(out.resolve("image-version")).trim());
        return out;
    }

    /**
     * A copy of the build in {@code base} whose UKI boots into emergency mode (its kernel command line patched,
     * the root and everything else the same): it never starts its bootstrapper. Its measurements are predicted
     * from the patched image itself, so the rollout admits it and only its boot fails.
     */
    private Path brokenCopy(Path base, Path target) throws Exception {
        Files.createDirectories(target);
        for (String file : List.of("image-version", "ek-ca.pem", "upgrades-from")) {
            Files.copy(base.resolve(file), target.resolve(file));
        }
        UkiCmdlinePatch.copyWithCmdline(base.resolve("image.raw"), target.resolve("image.raw"), "systemd.show_status=true",
                "emergency");
        MeasurementSet built = MeasurementSet.parse(Files.readAllBytes(base.resolve("measurements.json")));
        Measurements predicted = new PcrPredictor().predictImage(target.resolve("image.raw")).measurements();
        assertFalse(Arrays.equals(built.images().get(0).measurements().toJson(), predicted.toJson()),
                "the patched command line did not change the predicted PCRs");
        Files.write(target.resolve("measurements.json"),
                MeasurementSet.of(built.version(), predicted, built.images().get(0).imageVersion()).toJson());
        return target;
    }

    private void figures(Run run) {
        Matcher figure = FIGURE.matcher(run.output);
        boolean any = false;
        while (figure.find()) {
            figures.add(figure.group());
            any = true;
        }
        assertTrue(any, "no 'power-on -> ... and verified: N s' figure; see " + run.log);
    }

    private Run up(String name) throws Exception {
        boolean coldImage = !Files.exists(repo.resolve("out/image/.sextant-inputs.sha256"));
        Instant start = Instant.now();
        Run up;
        long[] cliPid = {-1};
        try (PeakRss rss = new PeakRss(pid -> pid == cliPid[0] || isClusterProcess(pid))) {
            List<String> args = new ArrayList<>(List.of("mini", "up", "--control-planes", "3", "--workers", "1", "--dir",
                    dir.toString()));
            if (!imageDir.isBlank()) {
                args.addAll(List.of("--no-build", "--image", Path.of(imageDir).toAbsolutePath().toString()));
            }
            up = sextant(name, UP_TIMEOUT, pid -> cliPid[0] = pid, args.toArray(String[]::new));
            Matcher seconds = UP_SECONDS.matcher(up.output);
            String toSummary = seconds.find() ? seconds.group(1) + " s" : "n/a";
            figures.add(String.format("%s: mini up to summary %s (wall %d s; image %s), peak RSS of CLI + QEMU + swtpm %d MiB",
                    name, toSummary, Duration.between(start, Instant.now()).toSeconds(),
                    !imageDir.isBlank() ? "given, not built" : up.output.contains("reusing it") ? "reused"
                            : coldImage ? "built cold" : "built", rss.peakMiB()));
        }
        System.out.println("MiniClusterTest: " + figures.get(figures.size() - 1));
        return up;
    }

    /** The values of one field ({@code etcd:}, {@code volume:}) of mini status, one per node that has it. */
    private static List<String> fieldLines(Run status, Pattern field) {
        List<String> lines = new ArrayList<>();
        Matcher line = field.matcher(status.output);
        while (line.find()) {
            lines.add(line.group(1));
        }
        return lines;
    }

    /** The row of {@code node}: verified, an encrypted disk, a member via {@code via}, since a time, on a versioned image. */
    private void assertSummaryRow(String output, String node, String role, String via) throws IOException {
        String version = imageDir.isBlank() ? "(?!unknown)\\S+"
                : Pattern.quote(Files.readString(Path.of(imageDir, "image-version")).trim());
        Pattern row = Pattern.compile("(?m)^" + node + "\\s+" + role + "\\s+PCR 4 9 11 12 13 15\\s+yes \\(\\S+\\)\\s+yes"
                + ".*\\s" + via + "\\s+\\S+\\s+" + version + "$");
        assertTrue(row.matcher(output).find(), "no summary row saying " + node + " (" + role + ") is verified, has an"
                + " encrypted state disk, is a member via " + via + " and runs the image's version:\n" + output);
    }

    /** The image's measurements with PCR 15 = SHA-256(0^32 || SHA-256(cluster ID)), computed here. */
    private Path clusterPolicy(byte[] clusterId) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] event = sha.digest(clusterId);
        sha.update(new byte[32]);
        sha.update(event);
        byte[] pcr15 = sha.digest();
        // The image's set (format 2: each image under "images"), every image's PCR 15 the cluster's mark.
        MeasurementSet image = MeasurementSet.parse(Files.readAllBytes(dir.resolve("measurements.json")));
        for (var one : image.images()) {
            assertTrue(Arrays.equals(new byte[32], one.measurements().measurements().get(15).expected()),
                    "the image's measurements do not expect PCR 15 = 0 for image " + one.imageVersion());
        }
        Path policy = logs.resolve("cluster-pcr15.json");
        Files.write(policy, image.enforcing(15, pcr15).toJson());
        return policy;
    }

    private static double joinTickets(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/prometheus")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), "/prometheus of the join service: " + response.body());
        double total = 0;
        Matcher m = Pattern.compile("(?m)^sextant_join_tickets_issued_total(?:\\{[^}]*})?\\s+([0-9.eE+]+)")
                .matcher(response.body());
        boolean found = false;
        while (m.find()) {
            total += Double.parseDouble(m.group(1));
            found = true;
        }
        assertTrue(found, "no sextant_join_tickets_issued_total in /prometheus:\n" + response.body());
        return total;
    }

    private boolean isClusterProcess(long pid) {
        String cmd = PeakRss.cmdline(pid);
        return (cmd.contains("qemu-system") || cmd.contains("swtpm")) && cmd.contains(dir.toString());
    }

    private List<String> clusterProcesses() throws IOException {
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong).filter(this::isClusterProcess)
                    .mapToObj(pid -> pid + " " + PeakRss.cmdline(pid)).toList();
        }
    }

    private record Run(int exit, String output, Path log) {
    }

    private Run sextant(String name, Duration timeout, String... args) throws Exception {
        return sextant(name, timeout, pid -> { }, args);
    }

    /** bin/sextant as the operator runs it; SEXTANT_NO_BUILD: the CLI was built by the Maven run this test is part of. */
    private Run sextant(String name, Duration timeout, java.util.function.LongConsumer pid, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(repo.resolve("bin/sextant").toString()));
        command.addAll(List.of(args));
        Path log = logs.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("SEXTANT_NO_BUILD", "1");
        Process process = builder.start();
        pid.accept(process.pid());
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("sextant " + String.join(" ", args) + " did not finish within " + timeout.toMinutes()
                    + " min; see " + log);
        }
        return new Run(process.exitValue(), Files.readString(log), log);
    }
}
