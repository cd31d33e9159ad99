package dev.sextant.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A cluster's life on loopback: three nodes, each its own swtpm and bootstrapper process; `sextant init` on
 * node A; the KMS and join service as processes; node B joins, node C (one pinned PCR extended)
 * is refused in the aTLS handshake and keeps backing off; node B, power-cycled, rejoins, and node A,
 * power-cycled, is recovered by `sextant recover`. The
 * nodes verify the join service, which quotes with a TPM of its own. The methods are phases of one scenario
 * and run in order; every process's output is in target/cluster-TIMESTAMP/NAME.log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("A cluster on loopback: init on node A, a measured node B joins, a mis-measured node C is refused, node B reboots and rejoins, node A reboots and is recovered")
class ClusterLoopbackTest {
    private static final Duration JOIN_WAIT = Duration.ofSeconds(60);
    /** PCR 16 (debug) is zero on a fresh swtpm, and no bootstrapper touches it: node C's one difference. */
    private static final int SPOILED_PCR = 16;
    private static final String ZERO = "0".repeat(64);
    private static final Pattern ROUND = Pattern.compile("No join ticket in round (\\d+); next round in (\\d+) ms");

    private Repo repo;
    private Path dir;
    private byte[] clusterId = new byte[0];
    private Procs procs;
    private KubeApiDouble kube;
    private ControlPlaneServices services;
    private ClusterNode nodeA;
    private ClusterNode nodeB;
    private ClusterNode nodeC;
    /**
     * The join service's own TPM. On a real control plane the service quotes with the node's TPM;
     * here node A's bootstrapper holds its swtpm (one connection at a time), so the service gets a
     * TPM of its own from the same CA, PCR 15 marked with node A's cluster ID once init returned it,
     * as on a bootstrapped control plane of that cluster.
     */
    private ClusterNode serviceTpm;
    private long phaseStart;

    @BeforeAll
    void prerequisites() throws IOException {
        repo = Repo.locate();
        repo.missing().ifPresent(why -> Assumptions.abort(skip(why)));
        for (String tool : List.of("swtpm", "swtpm_setup", "tpm2_pcrextend", "openssl")) {
            if (!onPath(tool)) {
                Assumptions.abort(skip(tool + " is not installed (scripts/setup.sh)"));
            }
        }
        EtcdInstalled.require(); // the join service's bindings need etcd: missing, the test fails rather than skips
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        dir = Files.createDirectories(repo.root().resolve("e2e/target/cluster-" + stamp));
        procs = new Procs(dir);
        kube = new KubeApiDouble();
        boolean disks = onPath("cryptsetup");
        if (!disks) {
            System.out.println("cluster test: cryptsetup is missing; the nodes run without a state disk");
        }
        LoopbackPorts ports = new LoopbackPorts();
        nodeA = new ClusterNode("node-a", dir, procs, repo, ports, disks);
        nodeB = new ClusterNode("node-b", dir, procs, repo, ports, disks);
        nodeC = new ClusterNode("node-c", dir, procs, repo, ports, disks);
        serviceTpm = new ClusterNode("join-service-tpm", dir, procs, repo, ports, false);
        services = new ControlPlaneServices(procs, repo, ports, dir);
        System.out.println("cluster test: logs in " + dir);
    }

    @AfterAll
    void stopEverything() throws Exception {
        if (procs != null) {
            procs.close();
        }
        for (ClusterNode node : new ClusterNode[] {nodeA, nodeB, nodeC}) {
            if (node != null) {
                node.stopEtcd();
            }
        }
        if (services != null) {
            services.close();
        }
        if (kube != null) {
            kube.close();
        }
    }

    @Test
    @Order(1)
    @DisplayName("three nodes and the join service get their own swtpm with an EK certificate from one local CA and a provisioned AK")
    void manufactureNodes() throws Exception {
        begin();
        procs.ok("tpm-ca", ClusterNode.CLI_TIMEOUT, repo.sextant("tpm", "ca", "--dir", ca().toString()));
        List<ClusterNode> nodes = List.of(nodeA, nodeB, nodeC, serviceTpm);
        inParallel(nodes.stream().<Callable<Void>>map(n -> () -> {
            n.manufacture(ca());
            n.startTpm();
            n.provision(ca());
            return null;
        }).toList());
        nodeC.extendPcr(SPOILED_PCR, new byte[32]);
        Files.writeString(dir.resolve("pcr15-zero.json"), measurements(15));
        nodeA.startBootstrapper(null, kube.kubeconfig(), ekCa());
        end("manufacture 4 TPMs, start node A");
    }

    @Test
    @Order(2)
    @DisplayName("sextant init on node A succeeds, applies the cluster services through the Kubernetes API, writes the kubeconfig, returns the cluster ID and marks PCR 15")
    void initNodeA() throws Exception {
        begin();
        Assumptions.assumeTrue(Files.exists(nodeA.log()), "node A was not started by the previous phase");
        // Signed, so that init can hand them to the join service it deploys.
        procs.ok("measurements-keygen", ClusterNode.CLI_TIMEOUT, repo.sextant("measurements", "keygen", "--dir", keys().toString()));
        procs.ok("measurements-sign-init", ClusterNode.CLI_TIMEOUT, repo.sextant("measurements", "sign",
                "--file", dir.resolve("pcr15-zero.json").toString(), "--key", keys().resolve("measurements-key.pem").toString()));
        String out = procs.ok("sextant-init", Duration.ofSeconds(120), repo.sextant("init",
                "--endpoint", nodeA.endpoint(), "--measurements", dir.resolve("pcr15-zero.json").toString(),
                "--measurements-key", keys().resolve("measurements-pub.pem").toString(),
                "--ek-ca", ekCa().toString(), "--init-secret", nodeA.initSecret().toString(),
                "--master-secret", masterSecret().toString(), "--cluster-record", dir.resolve("cluster-record.json").toString(),
                "--kubeconfig-out", dir.resolve("admin.conf").toString(),
                "--api-server-san", "api.e2e.test"));
        Matcher id = Pattern.compile("cluster ID: ([0-9a-f]{64})").matcher(out);
        assertTrue(id.find(), "no cluster ID in the init output; see " + procs.log("sextant-init"));
        assertTrue(Files.size(dir.resolve("admin.conf")) > 0, "no kubeconfig written; see " + procs.log("sextant-init"));
        System.out.println("cluster test: cluster ID " + id.group(1));
        clusterId = HexFormat.of().parseHex(id.group(1));
        String daemonSets = kube.daemonSets();
        assertTrue(daemonSets.contains("\"sextant-join-service\"") && daemonSets.contains("sextant/kms@sha256:"),
                "init did not apply the join service's DaemonSet (the KMS in its pod) through the Kubernetes API; see " + nodeA.log());

        Procs.Result verify = procs.run("sextant-verify-a", Duration.ofSeconds(60), repo.sextant("verify",
                "--endpoint", nodeA.endpoint(), "--measurements", dir.resolve("pcr15-zero.json").toString(),
                "--ek-ca", ekCa().toString()));
        assertEquals(1, verify.exit(), "measurements requiring PCR 15 = 0 still accept node A; see " + verify.log());
        assertTrue(verify.output().contains("REJECTED") && verify.output().contains("PCR 15 "),
                "the rejection does not name PCR 15; see " + verify.log());
        end("sextant init on node A + verify");
    }

    @Test
    @Order(3)
    @DisplayName("the KMS and the join service run as processes (no kubelet runs the DaemonSets here) with the CLI's master secret and signed measurements, the join service's bindings in an etcd member")
    void startControlPlaneServices() throws Exception {
        begin();
        Assumptions.assumeTrue(Files.exists(masterSecret()), "init did not run: the CLI wrote no master secret");
        Path keys = keys();
        Path joinMeasurements = dir.resolve("join-measurements.json");
        Files.writeString(joinMeasurements, measurements(15, SPOILED_PCR));
        procs.ok("measurements-sign", ClusterNode.CLI_TIMEOUT, repo.sextant("measurements", "sign",
                "--file", joinMeasurements.toString(), "--key", keys.resolve("measurements-key.pem").toString()));
        // The join service's TPM carries what a control plane of node A's cluster carries: PCR 15 marked
        // with its cluster ID (in the SHA-256 bank PCR_Event extends SHA-256(ID)); a rejoining node demands it.
        serviceTpm.extendPcr(15, MessageDigest.getInstance("SHA-256").digest(clusterId));
        services.startEtcd();
        services.startKms(masterSecret());
        services.startJoinApi(kube.url(), joinMeasurements, keys.resolve("measurements-pub.pem"), ekCa(),
                serviceTpm.tpmAddress());
        services.awaitReady();
        end("start KMS + join service");
    }

    @Test
    @Order(4)
    @DisplayName("node B, measured as the join service expects, joins node A's cluster: k3s agent with a K10 token, token Secret, disk binding in etcd, PCR 15 marked with A's cluster ID")
    void nodeBJoins() throws Exception {
        begin();
        Assumptions.assumeTrue(Files.exists(services.joinLog()), "the join service was not started by the previous phase");
        nodeB.startBootstrapper(services.joinEndpoint(), kube.kubeconfig(), ekCa());
        nodeC.startBootstrapper(services.joinEndpoint(), kube.kubeconfig(), ekCa());
        Waits.logMatches(JOIN_WAIT, "node B's join path to end with Joined", nodeB.log(), "Join path ended: Joined");
        String agent = Waits.logMatches(JOIN_WAIT, "node B's stand-in k3s to run as agent with a token file",
                nodeB.k3sRecord(), "^agent --server https://127\\.0\\.0\\.1:6443 --token-file ").get(0);
        Matcher tokenFile = Pattern.compile("--token-file (\\S+)").matcher(agent);
        assertTrue(tokenFile.find(), agent);
        String k10 = Files.readString(Path.of(tokenFile.group(1)));
        // K10<CA hash>::<token id>.<secret>: the id names the bootstrap-token Secret the join service created.
        Matcher token = Pattern.compile("^K10[0-9a-f]+::([a-z0-9]{6})\\.[a-z0-9]{16}$").matcher(k10);
        assertTrue(token.find(), "k3s got no well-formed K10 token in " + tokenFile.group(1) + "; see " + nodeB.k3sRecord());
        String secrets = kube.secrets();
        assertTrue(secrets.contains("\"bootstrap-token-" + token.group(1) + "\"") && secrets.contains("bootstrap.kubernetes.io/token"),
                "no bootstrap-token Secret for token id " + token.group(1) + " in the Kubernetes API double; see "
                        + services.joinLog());
        if (nodeB.withDisk) {
            String uuid = nodeB.diskUuid();
            assertTrue(services.binding("bindings/disk/" + uuid).isPresent(),
                    "no disk binding in etcd for node B's disk " + uuid + "; see " + services.joinLog());
        }
        assertSameClusterAsNodeA(nodeB);
        end("node B joins");
    }

    @Test
    @Order(5)
    @DisplayName("node C, with a pinned PCR extended, is refused in the handshake and retries with growing back-off")
    void nodeCIsRefused() throws Exception {
        begin();
        Assumptions.assumeTrue(Files.exists(nodeC.log()), "node C was not started by the previous phase");
        Waits.logMatches(JOIN_WAIT, "node C's third refused join round", nodeC.log(), "No join ticket in round 3;");
        List<String> rounds = Waits.lines(nodeC.log(), ROUND);
        assertBackingOff(rounds);
        assertTrue(rounds.size() >= 3, "fewer than 3 join rounds; see " + nodeC.log());
        List<String> refusals = Waits.lines(nodeC.log(), Pattern.compile("refused or unreachable: .*UNAVAILABLE"));
        assertTrue(refusals.size() >= 3, "node C was not refused in the handshake 3 times; see " + nodeC.log());
        assertFalse(Waits.lines(services.joinLog(), Pattern.compile("aTLS: rejected .*PCR " + SPOILED_PCR + " ")).isEmpty(),
                "the join service did not log a rejection naming PCR " + SPOILED_PCR + "; see " + services.joinLog());
        assertNoTicketFor(nodeC);
        System.out.println("cluster test: node C " + rounds.stream()
                .map(l -> l.replaceAll(".*(round \\d+); next round in", "$1 then")).toList());
        end("node C refused (3 rounds)");
    }

    @Test
    @Order(6)
    @DisplayName("node B power-cycled (TPM reset, /run lost, same disk) rejoins: its disk's key from the join service, the same since, via=rejoin, PCR 15 marked again")
    void nodeBRebootsAndRejoins() throws Exception {
        begin();
        Assumptions.assumeTrue(nodeB.withDisk, "no cryptsetup: node B has no state disk to unlock");
        Assumptions.assumeTrue(Files.exists(nodeB.k3sRecord()), "node B did not join in the previous phase");
        Pattern status = Pattern.compile("SEXTANT-STATUS bootstrapped role=worker disk=encrypted:(\\S+) kubernetes=\\S+ via=(\\w+) since=(\\S+)");
        Matcher first = status.matcher(Waits.logMatches(JOIN_WAIT, "node B's status line", nodeB.log(), status.pattern()).get(0));
        assertTrue(first.find() && first.group(2).equals("join"), "node B's first status line: " + first);
        nodeB.powerCycle();
        nodeB.startBootstrapper(services.joinEndpoint(), kube.kubeconfig(), ekCa());
        Matcher again = status.matcher(Waits.logMatches(JOIN_WAIT, "node B's status line after the reboot", nodeB.log(),
                status.pattern()).get(0));
        assertTrue(again.find(), "no status line; see " + nodeB.log());
        assertEquals("rejoin", again.group(2), "see " + nodeB.log());
        assertEquals(first.group(1), again.group(1), "the same disk");
        assertEquals(first.group(3), again.group(3), "since is read back from the disk");
        assertTrue(Waits.lines(nodeB.log(), Pattern.compile("luksFormat|formatting")).isEmpty(), "the disk was not formatted");
        assertSameClusterAsNodeA(nodeB);
        end("node B reboots and rejoins");
    }

    @Test
    @Order(7)
    @DisplayName("node A power-cycled waits for its key; `sextant recover` with the cluster's master secret opens its disk: via=recovery, the same since, PCR 15 marked with the same cluster ID")
    void nodeARecovers() throws Exception {
        begin();
        Assumptions.assumeTrue(nodeA.withDisk, "no cryptsetup: node A has no state disk to unlock");
        Assumptions.assumeTrue(clusterId.length > 0, "init did not run in an earlier phase");
        Pattern status = Pattern.compile("SEXTANT-STATUS bootstrapped role=control-plane disk=encrypted:(\\S+) kubernetes=\\S+ via=(\\w+) since=(\\S+)");
        Matcher first = status.matcher(Waits.logMatches(JOIN_WAIT, "node A's status line", nodeA.log(), status.pattern()).get(0));
        assertTrue(first.find() && first.group(2).equals("init"), "node A's first status line: " + first);
        nodeA.powerCycle();
        nodeA.startBootstrapper(null, kube.kubeconfig(), ekCa());
        String out = procs.ok("sextant-recover", Duration.ofSeconds(120), repo.sextant("recover",
                "--endpoint", "127.0.0.1:" + nodeA.recoveryPort, "--master-secret", masterSecret().toString(),
                "--measurements", dir.resolve("pcr15-zero.json").toString(), "--ek-ca", ekCa().toString(),
                "--cluster-record", dir.resolve("cluster-record.json").toString()));
        assertTrue(out.contains(first.group(3)), "recover does not report the disk's since; see " + procs.log("sextant-recover"));
        Matcher again = status.matcher(Waits.logMatches(JOIN_WAIT, "node A's status line after recovery", nodeA.log(),
                status.pattern()).get(0));
        assertTrue(again.find(), "no status line; see " + nodeA.log());
        assertEquals("recovery", again.group(2), "see " + nodeA.log());
        assertEquals(first.group(1), again.group(1), "the same disk");
        assertEquals(first.group(3), again.group(3), "since is read back from the disk");
        assertSameClusterAsNodeA(nodeA);
        end("node A reboots and recovers");
    }

    /**
     * Full jitter: each logged wait is uniform below its ceiling (1 s doubling to 30 s), so it is the
     * ceiling that must not shrink; and the next round must come no sooner than the logged wait.
     */
    private void assertBackingOff(List<String> rounds) {
        long previousCeiling = 0;
        long previousWait = 0;
        LocalTime previousRound = null;
        for (String line : rounds) {
            LocalTime at = LocalTime.parse(line.substring(0, 12));
            assertTrue(previousRound == null || sinceMillis(previousRound, at) >= previousWait,
                    "a round came sooner than its logged wait: " + line + "; see " + nodeC.log());
            Matcher m = ROUND.matcher(line);
            assertTrue(m.find(), line);
            int n = Integer.parseInt(m.group(1));
            long ceiling = Math.min(30_000, 1000L << Math.min(n - 1, 30));
            long wait = Long.parseLong(m.group(2));
            assertTrue(wait < ceiling && ceiling >= previousCeiling,
                    "round " + n + " waited " + wait + " ms, outside [0, " + ceiling + "); see " + nodeC.log());
            previousRound = at;
            previousCeiling = ceiling;
            previousWait = wait;
        }
    }

    /** Log times carry no date: a run across midnight wraps. */
    private static long sinceMillis(LocalTime from, LocalTime to) {
        long millis = Duration.between(from, to).toMillis();
        return millis < 0 ? millis + Duration.ofDays(1).toMillis() : millis;
    }

    private void assertNoTicketFor(ClusterNode node) throws Exception {
        assertTrue(Waits.lines(services.joinLog(), Pattern.compile("issued join ticket: node=" + node.name + "\\b")).isEmpty(),
                "the join service issued a ticket to " + node.name + "; see " + services.joinLog());
        assertEquals(1, count(kube.secrets(), "bootstrap.kubernetes.io/token"),
                "expected node B's bootstrap token only; see " + services.joinLog());
        if (node.withDisk) {
            assertFalse(services.binding("bindings/disk/" + node.diskUuid()).isPresent(),
                    node.name + "'s disk is bound; see " + services.joinLog());
        }
        assertFalse(Files.exists(node.k3sRecord()), node.name + " started k3s; see " + node.log());
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    /** PCRs a measurement set must cover besides 15; zero on a swtpm no firmware measured into. */
    private static final int[] IMAGE_PCRS = {4, 9, 11, 12, 13};

    /** The image PCRs and {@code zeroPcrs} expected zero. */
    private static String measurements(int... zeroPcrs) {
        java.util.SortedMap<Integer, String> expected = new java.util.TreeMap<>();
        for (int pcr : IMAGE_PCRS) {
            expected.put(pcr, ZERO);
        }
        for (int pcr : zeroPcrs) {
            expected.put(pcr, ZERO);
        }
        return measurementsJson(expected);
    }

    private static String measurementsJson(java.util.SortedMap<Integer, String> expected) {
        StringBuilder json = new StringBuilder("{\"variant\": \"qemu-vtpm\", \"measurements\": {");
        expected.forEach((pcr, hex) -> json.append(json.charAt(json.length() - 1) == '{' ? "" : ", ").append('"').append(pcr)
                .append("\": {\"expected\": \"").append(hex).append("\", \"warnOnly\": false}"));
        return json.append("}}\n").toString();
    }

    private Path ca() {
        return dir.resolve("ca");
    }

    private Path ekCa() {
        return ca().resolve("ca-cert.pem");
    }

    private Path keys() {
        return dir.resolve("measurements-keys");
    }

    private Path masterSecret() {
        return dir.resolve("mastersecret.json");
    }

    /**
     * The node's PCR 15 is marked with node A's cluster ID (TPM2_PCR_Event: SHA-256(0^32 || SHA-256(ID))),
     * i.e. the join service handed out the measurement secret and salt init used.
     */
    private void assertSameClusterAsNodeA(ClusterNode node) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] event = sha.digest(clusterId);
        sha.update(new byte[32]);
        byte[] pcr15 = sha.digest(event);
        Path sameCluster = dir.resolve("same-cluster.json");
        java.util.SortedMap<Integer, String> expected = new java.util.TreeMap<>();
        for (int pcr : IMAGE_PCRS) {
            expected.put(pcr, ZERO);
        }
        expected.put(15, HexFormat.of().formatHex(pcr15));
        Files.writeString(sameCluster, measurementsJson(expected));
        Procs.Result verify = procs.run("sextant-verify-same-cluster", Duration.ofSeconds(60), repo.sextant("verify",
                "--endpoint", node.endpoint(), "--measurements", sameCluster.toString(), "--ek-ca", ekCa().toString()));
        assertEquals(0, verify.exit(), "the joined node's PCR 15 is not marked with node A's cluster ID; see " + verify.log());
    }

    private void begin() {
        phaseStart = System.nanoTime();
    }

    private void end(String phase) {
        System.out.printf("cluster test: %-35s %6d ms%n", phase, (System.nanoTime() - phaseStart) / 1_000_000);
    }

    private static void inParallel(List<Callable<Void>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            for (Future<Void> f : pool.invokeAll(tasks)) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception c ? c : e;
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static String skip(String why) {
        System.out.println("cluster test skipped: " + why);
        return why;
    }
}
