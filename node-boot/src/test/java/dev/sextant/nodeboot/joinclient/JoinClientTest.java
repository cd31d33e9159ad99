package dev.sextant.nodeboot.joinclient;

import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.housekeeping.retry.Sleeper;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.ServicesPlan;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.deploy.DeployInputs;
import dev.sextant.nodeboot.deploy.EtcdAdvertisedUrls;
import dev.sextant.nodeboot.deploy.EtcdStanding;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.proto.v1.ControlPlaneJoin;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.joinservices.StaticDiscovery;
import dev.sextant.nodeboot.initserver.ClusterKeys;
import dev.sextant.nodeboot.kubernetes.K3sDriver;
import dev.sextant.nodeboot.kubernetes.StandInK3s;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.nodelock.TpmPcrMarker;
import dev.sextant.tpm.attest.TpmAttester;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The join path against in-test join services over real client-attested (and mutual) aTLS with a real swtpm. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JoinClientTest {
    private static final byte[] MASTER_SECRET = filled(0x6d);
    private static final byte[] MASTER_SALT = filled(0x73);

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private Swtpm swtpm;
    private TpmAttester attester;
    @TempDir
    Path dir;

    @BeforeAll
    void startTpm() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.provisioned();
        attester = new TpmAttester(swtpm.client(), Path.of("/nonexistent"));
    }

    /** A join marks PCR 15, and a marked TPM keeps a new node lock closed: each test gets a "rebooted" TPM. */
    @BeforeEach
    void rebootTpm() throws Exception {
        attester.close();
        swtpm.restart();
        attester = new TpmAttester(swtpm.client(), Path.of("/nonexistent"));
    }

    @AfterAll
    void stopTpm() throws Exception {
        if (attester != null) {
            attester.close();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    /** PCR 16 (debug) is zero on this TPM: a policy demanding 0x11.. stands for "wrong measurement". */
    private DocumentVerifier policy(byte fill) throws Exception {
        byte[] pcr16 = new byte[32];
        Arrays.fill(pcr16, fill);
        return new DocumentVerifier(new VerifierPolicy(new Measurements(Variant.QEMU_VTPM,
                new TreeMap<>(Map.of(16, new ExpectedValue(pcr16, false)))), AkTrust.ekCa(List.of(swtpm.ca().certificate()))));
    }

    private record Node(JoinClient client, NodeLock lock, List<Duration> sleeps, StandInK3s k3s, TestNode boot) {
    }

    private final List<TestNode> boots = new ArrayList<>();

    @AfterEach
    void closeBoots() throws Exception {
        for (TestNode boot : boots) {
            boot.close();
        }
    }

    private Node node(TestJoinService service, ServerVerification joinService, int maxRounds) throws Exception {
        return node(service, joinService, maxRounds, new java.io.ByteArrayOutputStream());
    }

    /** A worker whose status lines go to {@code console}. */
    private Node node(TestJoinService service, ServerVerification joinService, int maxRounds, java.io.OutputStream console)
            throws Exception {
        StandInK3s k3s = StandInK3s.create(Files.createDirectories(dir.resolve("k3s-" + boots.size())), 0);
        TestNode boot = boot(new K3sDriver(k3s.settings()));
        return start(boot, JoinClient.Node.worker("node-b", true, boot.disk::prepareFresh).withVerifyEndpoint("10.0.0.7:7443"),
                service, joinService, maxRounds, k3s, console);
    }

    /** The control plane cp-1 on an image without k3s, or with it ({@code kubernetes} installed). */
    private Node controlPlane(TestJoinService service, KubernetesDriver kubernetes, int maxRounds) throws Exception {
        TestNode boot = boot(kubernetes);
        JoinClient.Node self = JoinClient.Node.controlPlane("cp-1", kubernetes.installed(), boot.disk::prepareFresh,
                EtcdAdvertisedUrls.of(boot.nodeLocalSettings, "cp-1", "sextant"));
        return start(boot, self, service, ServerVerification.insecureAcceptAnyServer(), maxRounds, null);
    }

    private TestNode boot(KubernetesDriver kubernetes) throws Exception {
        TestNode boot = new TestNode(Files.createDirectories(dir.resolve("node-" + boots.size())), new FakeLuks(),
                new TpmPcrMarker(swtpm.client()), kubernetes);
        boots.add(boot);
        return boot;
    }

    private Node start(TestNode boot, JoinClient.Node self, TestJoinService service, ServerVerification joinService,
                       int maxRounds, StandInK3s k3s) throws Exception {
        return start(boot, self, service, joinService, maxRounds, k3s, new java.io.ByteArrayOutputStream());
    }

    private Node start(TestNode boot, JoinClient.Node self, TestJoinService service, ServerVerification joinService,
                       int maxRounds, StandInK3s k3s, java.io.OutputStream console) throws Exception {
        List<Duration> sleeps = new ArrayList<>();
        JoinClient[] client = new JoinClient[1];
        Sleeper recording = d -> {
            sleeps.add(d);
            if (sleeps.size() >= maxRounds) {
                client[0].stop();
            }
        };
        client[0] = new JoinClient(self, new StaticDiscovery(List.of(service.endpoint())),
                new AtlsJoinTransport(attester, joinService, Duration.ofSeconds(10)), boot.lock, boot.bringUp,
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), () -> 0.5), recording,
                new RevokedStatus(new java.io.PrintStream(console, true, java.nio.charset.StandardCharsets.UTF_8)));
        return new Node(client[0], boot.lock, sleeps, k3s, boot);
    }

    /** What a join service holding the master secret answers cp-1: the cluster's etcd with cp-1 just added, no Kubernetes. */
    private IssueJoinTicketResponse controlPlaneTicket(EtcdAdvertisedUrls self) throws Exception {
        return TestJoinService.ticket().toBuilder().clearK3S().setControlPlane(ControlPlaneJoin.newBuilder()
                .setMasterSecret(ByteString.copyFrom(MASTER_SECRET)).setMasterSalt(ByteString.copyFrom(MASTER_SALT))
                .addEtcdMembers(EtcdPeer.newBuilder().setName("cp-0").setPeerUrl("https://etcd-cp-0.internal.sextant:2380")
                        .setClientUrl("https://etcd-cp-0.internal.sextant:2379"))
                .addEtcdMembers(EtcdPeer.newBuilder().setName("cp-1").setPeerUrl(self.peerUrl()))
                .setJoinMeasurements(DeployInputs.signed(dir.resolve("measurements"), DeployInputs.MEASUREMENTS))
                .setEkCaPem(DeployInputs.EK_CA)).build();
    }

    @Test
    @DisplayName("a node with a wrong measurement is refused in the handshake, round after round, with growing waits")
    void wrongMeasurementKeepsBeingRefused() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0x11))) {
            Node node = node(service, ServerVerification.insecureAcceptAnyServer(), 7);
            var outcome = node.client().run();
            assertInstanceOf(JoinOutcome.Stopped.class, outcome);
            assertEquals(7, service.refusedHandshakes.get(), "every round's handshake was refused by the service");
            assertEquals(List.of(), service.requests, "the method never ran");
            assertEquals(List.of(500L, 1000L, 2000L, 4000L, 8000L, 15000L, 15000L),
                    node.sleeps().stream().map(Duration::toMillis).toList(), "full jitter at 0.5: half of 1,2,4,8,16,30,30 s");
            assertTrue(node.lock().holder().isEmpty(), "the node stays fresh");
        }
    }

    @Test
    @DisplayName("a good node gets its ticket (reporting its VerifyService endpoint), takes the lock (PCR 15 = cluster ID event), re-keys its disk, records its state on it and joins with k3s agent")
    void goodNodeJoins() throws Exception {
        byte[] before = swtpm.client().pcr().readAll(TpmAlg.SHA256).get(15);
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            Node node = node(service, ServerVerification.insecureAcceptAnyServer(), 3);
            var outcome = node.client().run();
            assertInstanceOf(JoinOutcome.Joined.class, outcome, outcome.toString());
            assertEquals(LockHolder.JOIN, node.lock().holder().orElseThrow());
            byte[] clusterId = ClusterKeys.clusterId(TestJoinService.MEASUREMENT_SECRET, TestJoinService.MEASUREMENT_SALT);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(before);
            assertArrayEquals(sha.digest(MessageDigest.getInstance("SHA-256").digest(clusterId)),
                    swtpm.client().pcr().readAll(TpmAlg.SHA256).get(15));
            java.nio.file.Path tokenFile = node.k3s().settings().configFile().resolveSibling("token");
            assertEquals(List.of("agent --server https://127.0.0.1:6443 --token-file " + tokenFile + " --config "
                    + node.k3s().settings().configFile()), node.k3s().invocations());
            assertEquals("K10cafe::abcdef.0123456789abcdef", java.nio.file.Files.readString(tokenFile));
            assertTrue(node.boot().luks.opensWith(TestJoinService.STATE_DISK_KEY), "slot 0 holds the ticket's disk key");
            assertTrue(node.boot().luks.initialized());
            var state = node.boot().stateFile.read();
            assertEquals("worker", state.role());
            assertEquals("agent", state.kubernetes().mode());
            assertEquals(HexFormat.of().formatHex(clusterId), state.clusterIdHex());
            assertEquals("node-b", service.requests.get(0).getNodeName());
            assertEquals(FakeLuks.UUID, service.requests.get(0).getDiskUuid());
            assertEquals("10.0.0.7:7443", service.requests.get(0).getVerifyEndpoint(), "where its VerifyService answers, for re-attestation");
            assertTrue(service.requests.get(0).getKubeletCsr().isEmpty(), "k3s makes its own kubelet credentials");
            var member = state.member().credentials();
            var certificate = member.check(java.time.Instant.now());
            assertArrayEquals(service.requests.get(0).getDiscoveryPublicKey().toByteArray(), certificate.publicKey(),
                    "the key sent in the request is certified, and kept with its private half on the state disk");
            assertEquals("node-b", certificate.nodeName());
            assertEquals(dev.sextant.keys.member.MemberRole.WORKER, certificate.role());
            var joined = (JoinOutcome.Joined) outcome;
            assertEquals(Via.JOIN, joined.bootstrapped().via());
            assertEquals(List.of(), node.sleeps(), "no retry was needed");
            assertArrayEquals(TestJoinService.ROLE_KEY.publicKey(), node.boot().recorded.get(0).joinServiceRoleKey().orElseThrow(),
                    "the TPM records the ticket's join service role key, which its rejoins demand");
        }
    }

    @Test
    @DisplayName("mutual: a node that verifies the join service refuses one whose attestation fails its policy")
    void nodeRefusesUnverifiedService() throws Exception {
        try (var service = new TestJoinService(attester, policy((byte) 0))) {
            Node node = node(service, ServerVerification.by(policy((byte) 0x22)), 2);
            assertInstanceOf(JoinOutcome.Stopped.class, node.client().run());
            assertEquals(List.of(), service.requests, "the node sent no CSR to an unverified service");
            Node trusting = node(service, ServerVerification.by(policy((byte) 0)), 2);
            assertInstanceOf(JoinOutcome.Joined.class, trusting.client().run(), "the same service passes the right policy");
        }
    }

    @Test
    @DisplayName("a verified join service refusing the join REVOKED (a machine revoked, its disk reset since): the join path asks"
            + " once, prints 'SEXTANT-STATUS revoked reason=PCR_MISMATCH' and stops; the node stays fresh. A service the node"
            + " does not verify answering the same is refused in the handshake and never stops it")
    void revokedMachineStopsJoining() throws Exception {
        try (var service = new TestJoinService(attester, policy((byte) 0))) {
            service.revokedFor = "PCR_MISMATCH";
            java.io.ByteArrayOutputStream console = new java.io.ByteArrayOutputStream();
            Node verifying = node(service, ServerVerification.by(policy((byte) 0)), 3, console);
            assertEquals(new JoinOutcome.Stopped("this machine was revoked (PCR_MISMATCH)"), verifying.client().run());
            assertEquals(1, service.requests.size(), "asked once");
            assertEquals(List.of(), verifying.sleeps(), "no second round");
            assertEquals("SEXTANT-STATUS revoked reason=PCR_MISMATCH\n", console.toString(java.nio.charset.StandardCharsets.UTF_8));
            assertTrue(verifying.lock().holder().isEmpty(), "the node stays fresh");

            java.io.ByteArrayOutputStream unmoved = new java.io.ByteArrayOutputStream();
            Node other = node(service, ServerVerification.by(policy((byte) 0x22)), 3, unmoved);
            assertEquals(new JoinOutcome.Stopped("stop requested"), other.client().run(), "asked round after round until stopped");
            assertEquals(3, other.sleeps().size());
            assertEquals(1, service.requests.size(), "the unverified service heard nothing");
            assertEquals("", unmoved.toString(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    @DisplayName("a ticket with a short disk key or without the k3s plan is refused before the lock: the node stays fresh and asks again")
    void malformedTicketIsRefusedBeforeTheLock() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            service.ticket = TestJoinService.ticket().toBuilder().setStateDiskKey(com.google.protobuf.ByteString.copyFrom(new byte[16]))
                    .clearK3S().build();
            Node node = node(service, ServerVerification.insecureAcceptAnyServer(), 2);
            assertInstanceOf(JoinOutcome.Stopped.class, node.client().run());
            assertEquals(2, service.requests.size(), "asked again each round");
            assertTrue(node.lock().holder().isEmpty(), "the node stays fresh");
            assertFalse(node.boot().luks.initialized(), "the disk was not re-keyed");
            assertEquals(List.of(), node.k3s().invocations());
        }
    }

    @Test
    @DisplayName("a control plane without Kubernetes names its etcd member as it will advertise it, and with its ticket's control-plane part starts etcd joining the ticket's cluster, the KMS and its join service as units of the node; its node state says so, so a reboot starts them again")
    void controlPlaneJoinsWithoutKubernetes() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            Node node = controlPlane(service, FakeKubernetes.absent(), 2);
            EtcdAdvertisedUrls self = EtcdAdvertisedUrls.of(node.boot().nodeLocalSettings, "cp-1", "sextant");
            service.ticket = controlPlaneTicket(self);

            var outcome = node.client().run();

            var joined = assertInstanceOf(JoinOutcome.Joined.class, outcome, outcome.toString());
            IssueJoinTicketRequest request = service.requests.get(0);
            assertTrue(request.getControlPlane());
            assertEquals(EtcdPeer.newBuilder().setName("cp-1").setPeerUrl("https://etcd-cp-1.internal.sextant:2380")
                    .setClientUrl("https://etcd-cp-1.internal.sextant:2379").build(), request.getEtcdMember());
            assertEquals(List.of(List.of("systemctl", "start", "sextant-etcd.service"),
                    List.of("systemctl", "start", "sextant-kms.service", "sextant-join.service")), node.boot().systemctl);
            assertEquals(EtcdStanding.MEMBER, joined.bootstrapped().etcd(), "what its member answered");
            Path services = node.boot().nodeLocalSettings.dir();
            String etcdEnv = Files.readString(services.resolve("etcd.env"));
            assertTrue(etcdEnv.contains(" --initial-cluster=cp-0=https://etcd-cp-0.internal.sextant:2380,cp-1=" + self.peerUrl() + " ")
                    && etcdEnv.contains(" --initial-cluster-state=existing ")
                    && etcdEnv.contains(" --initial-advertise-peer-urls=" + request.getEtcdMember().getPeerUrl() + " ")
                    && etcdEnv.contains(" --advertise-client-urls=" + request.getEtcdMember().getClientUrl() + " "),
                    "etcd says what the request named: " + etcdEnv);
            assertArrayEquals(MASTER_SECRET, Files.readAllBytes(services.resolve("kms/mastersecret")));
            assertArrayEquals(dev.sextant.keys.role.JoinServiceRoleKey.of(MASTER_SECRET, MASTER_SALT).publicKey(),
                    node.boot().recorded.get(0).joinServiceRoleKey().orElseThrow(),
                    "a control plane derives the role key from the master secret, whatever the ticket says");
            var state = node.boot().stateFile.read();
            assertEquals("control-plane", state.role());
            assertEquals(NodeState.KubernetesRole.NONE, state.kubernetes().mode());
            assertTrue(state.nodeLocalServices(), "recorded on the state disk");
            assertInstanceOf(ServicesPlan.RestartNodeLocal.class, Membership.rejoin(state, TestJoinService.STATE_DISK_KEY).services(),
                    "a reboot starts them again");
        }
    }

    @Test
    @DisplayName("a worker's ticket that carries the master secret is refused before the lock: the disk is not re-keyed, nothing of the ticket is written")
    void workerRefusesTheMasterSecret() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            Node node = node(service, ServerVerification.insecureAcceptAnyServer(), 2);
            service.ticket = TestJoinService.ticket().toBuilder()
                    .setControlPlane(controlPlaneTicket(EtcdAdvertisedUrls.of(node.boot().nodeLocalSettings, "cp-1", "sextant"))
                            .getControlPlane()).build();
            assertInstanceOf(JoinOutcome.Stopped.class, node.client().run());
            assertEquals(2, service.requests.size(), "asked again each round");
            assertTrue(node.lock().holder().isEmpty(), "the node stays fresh");
            assertFalse(node.boot().luks.initialized(), "the disk was not re-keyed");
            assertFalse(Files.exists(node.boot().nodeLocalSettings.dir()), "no master secret, no services' files");
            assertEquals(List.of(), node.k3s().invocations());
        }
    }

    @Test
    @DisplayName("a control plane with Kubernetes installed asks for no ticket: joining a cluster with Kubernetes is not supported yet")
    void controlPlaneWithKubernetesDoesNotAsk() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            Node node = controlPlane(service, new FakeKubernetes(new DriverResult.Started(new byte[0])), 2);
            assertEquals(new JoinOutcome.Stopped("a control plane joining a cluster with Kubernetes is not supported yet"), node.client().run());
            assertEquals(List.of(), service.requests, "nothing bound, no etcd learner added for it");
            assertTrue(node.lock().holder().isEmpty());
        }
    }

    @Test
    @DisplayName("the join path stops without calling anyone once init holds the lock")
    void stopsWhenInitHasTheLock() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            Node node = node(service, ServerVerification.insecureAcceptAnyServer(), 3);
            node.lock().tryLockOnce(LockHolder.INIT, new byte[32], new dev.sextant.nodeboot.nodelock.FirstBootstrap(new byte[32], new byte[32], true));
            var outcome = node.client().run();
            assertEquals(new JoinOutcome.Stopped("node is already locked by init"), outcome);
            assertEquals(List.of(), service.requests);
        }
    }
}
