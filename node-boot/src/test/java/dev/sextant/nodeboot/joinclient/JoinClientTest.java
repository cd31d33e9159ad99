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
import dev.sextant.nodeboot.bringup.TestNode;
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
        StandInK3s k3s = StandInK3s.create(Files.createDirectories(dir.resolve("k3s-" + boots.size())), 0);
        TestNode boot = new TestNode(Files.createDirectories(dir.resolve("node-" + boots.size())), new FakeLuks(),
                new TpmPcrMarker(swtpm.client()), new K3sDriver(k3s.settings()));
        boots.add(boot);
        List<Duration> sleeps = new ArrayList<>();
        JoinClient[] self = new JoinClient[1];
        Sleeper recording = d -> {
            sleeps.add(d);
            if (sleeps.size() >= maxRounds) {
                self[0].stop();
            }
        };
        self[0] = new JoinClient(JoinClient.Node.worker("node-b", true, boot.disk::prepareFresh),
                new StaticDiscovery(List.of(service.endpoint())),
                new AtlsJoinTransport(attester, joinService, Duration.ofSeconds(10)), boot.lock, boot.bringUp,
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), () -> 0.5), recording);
        return new Node(self[0], boot.lock, sleeps, k3s, boot);
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
    @DisplayName("a good node gets its ticket, takes the lock (PCR 15 = cluster ID event), re-keys its disk, records its state on it and joins with k3s agent")
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
            assertEquals(List.of("agent --server https://127.0.0.1:6443 --token K10cafe::abcdef.0123456789abcdef --config "
                    + node.k3s().settings().configFile()), node.k3s().invocations());
            assertTrue(node.boot().luks.opensWith(TestJoinService.STATE_DISK_KEY), "slot 0 holds the ticket's disk key");
            assertTrue(node.boot().luks.initialized());
            var state = node.boot().stateFile.read();
            assertEquals("worker", state.role());
            assertEquals("agent", state.kubernetes().mode());
            assertEquals(HexFormat.of().formatHex(clusterId), state.clusterIdHex());
            assertEquals("node-b", service.requests.get(0).getNodeName());
            assertEquals(FakeLuks.UUID, service.requests.get(0).getDiskUuid());
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
    @DisplayName("the join path stops without calling anyone once init holds the lock")
    void stopsWhenInitHasTheLock() throws Exception {
        try (var service = new TestJoinService(null, policy((byte) 0))) {
            Node node = node(service, ServerVerification.insecureAcceptAnyServer(), 3);
            node.lock().tryLockOnce(LockHolder.INIT, new byte[32]);
            var outcome = node.client().run();
            assertEquals(new JoinOutcome.Stopped("node is already locked by init"), outcome);
            assertEquals(List.of(), service.requests);
        }
    }
}
