package dev.sextant.nodeboot.attacks;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.atls.HandshakeProver;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.keys.role.JoinServiceRoleKey;
import dev.sextant.keys.role.JoinServiceRoleProof;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.nodeboot.joinclient.JoinClientSettings;
import dev.sextant.nodeboot.joinclient.RejoinClient;
import dev.sextant.nodeboot.joinservices.StaticDiscovery;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.rememberdisk.Recall;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import dev.sextant.nodeboot.rememberdisk.RememberedDiskSettings;
import dev.sextant.nodeboot.rememberdisk.TpmDiskMemory;
import dev.sextant.nodeboot.start.RecordAfterUnlock;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.command.TpmRc;
import dev.sextant.nodeboot.joinclient.RejoinTransport;
import dev.sextant.nodeboot.joinclient.RejoinTransports;
import dev.sextant.nodeboot.joinclient.TestJoinService;
import dev.sextant.nodeboot.jointrust.JoinServiceTrust;
import dev.sextant.nodeboot.jointrust.JoinServiceTrustSettings;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 38 §2, on rejoin: the node (swtpm as its own TPM, its image's EK CA) asks a real aTLS join
 * service (gRPC on a real port; the service's TPM a software TPM under that EK CA, replaying the node's
 * image PCRs and the cluster's PCR 15 mark) for its disk key through the rejoin transport it builds
 * from its TPM record. The record names the cluster's join service role key (version 2): only a
 * service that signs THIS handshake with that key, which derives from the master secret, gets the
 * node to send its request. A record written before role keys (version 1) learns the key (the TPM's
 * record on the same swtpm, the disk a fake LUKS disk): only from the service whose disk key opened
 * the disk, and never in place of a key the record already names.
 */
@DisplayName("Attacks on a rejoin: who may pose as the join service, and who may tell the node it was revoked")
class RejoinServiceRoleAttacksTest {
    private static final byte[] CLUSTER = bytes("cluster A's ID");
    private static final byte[] DISK_KEY = filled(0x5d);
    private static final String DISK_UUID = "c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4";
    /** What control planes of cluster A derive from their master secret; workers never receive it. */
    private static final JoinServiceRoleKey ROLE_OF_A = JoinServiceRoleKey.of(bytes("master secret of A"), filled(0x41));
    private static final JoinServiceRoleKey ROLE_OF_B = JoinServiceRoleKey.of(bytes("master secret of B"), filled(0x42));
    private static final TestPki IMAGE_EK_CA = new TestPki("the EK CA built into the image");

    @TempDir
    static Path dir;
    private static Swtpm swtpm;
    private static SortedMap<Integer, byte[]> ownPcrs;
    private static RejoinTransports transports;

    private final List<TestJoinService> services = new ArrayList<>();
    private final List<TestNode> nodes = new ArrayList<>();
    private ListAppender<ILoggingEvent> refusals;

    @BeforeAll
    static void bootTheNode() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.start();
        swtpm.client().pcr().extend(4, sha256(bytes("the image's UKI")));
        swtpm.client().pcr().extend(9, sha256(bytes("its initrd")));
        swtpm.client().pcr().extend(11, sha256(bytes("its sections with the verity root hash")));
        ownPcrs = swtpm.client().pcr().readAll(TpmAlg.SHA256);
        Path ekCa = Files.writeString(dir.resolve("ek-ca.pem"), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(IMAGE_EK_CA.caCertificate().getEncoded()) + "\n-----END CERTIFICATE-----\n");
        JoinServiceTrust trust = new JoinServiceTrust(new JoinServiceTrustSettings(ekCa, dir.resolve("no-host-ek-ca"), false,
                false), swtpm.client());
        SoftwareTpmAttester node = new SoftwareTpmAttester(IMAGE_EK_CA, genuineImage(new byte[32]));
        transports = new RejoinTransports(new JoinClientSettings(List.of(), null, false, Duration.ofSeconds(20)),
                node, trust);
    }

    @AfterAll
    static void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @BeforeEach
    void listenForRefusals() {
        refusals = new ListAppender<>();
        refusals.start();
        ((Logger) LoggerFactory.getLogger("dev.sextant.atls.VerifyingTrustManager")).addAppender(refusals);
    }

    @AfterEach
    void stopServices() throws Exception {
        ((Logger) LoggerFactory.getLogger("dev.sextant.atls.VerifyingTrustManager")).detachAppender(refusals);
        services.forEach(TestJoinService::close);
        for (TestNode node : nodes) {
            node.close();
        }
        // Each row starts from a TPM that remembers no disk.
        for (int handle : List.of(NvIndices.REMEMBERED_DISK, NvIndices.REMEMBERED_DISK_NEXT)) {
            try {
                swtpm.client().nv().undefineSpace(handle);
            } catch (TpmException e) {
                if (!e.is(TpmRc.HANDLE)) {
                    throw e;
                }
            }
        }
    }

    @Test
    @DisplayName("a control plane of the node's cluster, signing the handshake with the cluster's role key, hands over the rejoin key")
    void controlPlaneOfTheClusterServes() throws Exception {
        TestJoinService controlPlane = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_A)));

        byte[] key = rejoinTransport().issueRejoinTicket(controlPlane.endpoint(), request()).getStateDiskKey().toByteArray();

        assertArrayEquals(DISK_KEY, key);
    }

    @Test
    @DisplayName("a worker of the same cluster (genuine image, the cluster's PCR 15 mark) posing as the join service on rejoin"
            + " is refused in the handshake: it proves no control-plane role")
    void workerOfTheSameClusterRefused() throws Exception {
        TestJoinService worker = service(OwnAttestation.by(memberOfTheCluster()));

        assertRefusedInHandshake(worker, "proves no control-plane role");
    }

    @Test
    @DisplayName("a control plane's role proof replayed on another handshake (a worker that recorded one) is refused in the handshake")
    void replayedRoleProofRefused() throws Exception {
        List<byte[]> recorded = Collections.synchronizedList(new ArrayList<>());
        HandshakeProver recording = (peerRandom, spkiHash) -> {
            byte[] proof = roleProof(ROLE_OF_A).prove(peerRandom, spkiHash);
            recorded.add(proof);
            return proof;
        };
        TestJoinService controlPlane = service(OwnAttestation.proving(memberOfTheCluster(), recording));
        rejoinTransport().issueRejoinTicket(controlPlane.endpoint(), request());
        assertEquals(1, recorded.size(), "the worker saw one genuine proof go by");

        TestJoinService worker = service(OwnAttestation.proving(memberOfTheCluster(), (peerRandom, spkiHash) -> recorded.get(0)));

        assertRefusedInHandshake(worker, "not made for this handshake");
    }

    @Test
    @DisplayName("a role proof by another cluster's role key (another master secret), from a service with this cluster's mark,"
            + " is refused in the handshake")
    void anotherClustersRoleKeyRefused() throws Exception {
        TestJoinService otherCluster = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_B)));

        assertRefusedInHandshake(otherCluster, "not the one this node's TPM remembers");
    }

    @Test
    @DisplayName("a node whose TPM record predates role keys (version 1) still rejoins through its cluster's mark, warning on every connection")
    void recordWithoutRoleKeyChecksTheMarkOnly() throws Exception {
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        Logger logger = (Logger) LoggerFactory.getLogger(JoinServiceTrust.class);
        logger.addAppender(warnings);
        try {
            TestJoinService worker = service(OwnAttestation.by(memberOfTheCluster()));
            RejoinTransport unrecorded = transports.ofCluster(sha256(CLUSTER), Optional.empty());
            assertArrayEquals(DISK_KEY, unrecorded.issueRejoinTicket(worker.endpoint(), request()).getStateDiskKey().toByteArray());
        } finally {
            logger.detachAppender(warnings);
        }
        assertTrue(warnings.list.stream().anyMatch(e -> e.getFormattedMessage().contains("control-plane role is not checked")));
    }

    @Test
    @DisplayName("a version-1 node learns the cluster's role key at a rejoin whose control plane proved it in the handshake and"
            + " whose disk key opened the disk: its record becomes version 2, and its next rejoin refuses a worker of the cluster")
    void versionOneLearnsTheRoleKey() throws Exception {
        RememberedDisk v1 = recordVersionOne();
        TestJoinService controlPlane = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_A)));

        Membership rejoined = rejoin(v1, controlPlane);
        new RecordAfterUnlock(memory()).rerecord(v1, rejoined);

        RememberedDisk learned = recalled();
        assertArrayEquals(JoinServiceRoleProof.digestOf(ROLE_OF_A.publicKey()), learned.joinServiceRoleDigest().orElseThrow());
        TestJoinService worker = service(OwnAttestation.by(memberOfTheCluster()));
        assertRefusedInHandshake(transportOf(learned), worker, "proves no control-plane role");
        assertArrayEquals(DISK_KEY, transportOf(learned).issueRejoinTicket(controlPlane.endpoint(), request())
                .getStateDiskKey().toByteArray());
    }

    @Test
    @DisplayName("on a version-1 node's rejoin, a service with the cluster's mark proving a role key of its own, whose disk key"
            + " does not open the disk, gets nothing recorded: the control plane whose key opens it next in the round is the one"
            + " the record names")
    void failedRejoinRecordsNothing() throws Exception {
        RememberedDisk v1 = recordVersionOne();
        TestJoinService impostor = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_B)));
        impostor.rejoinKey = filled(0x66);
        TestJoinService controlPlane = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_A)));

        Membership rejoined = rejoin(v1, impostor, controlPlane);
        new RecordAfterUnlock(memory()).rerecord(v1, rejoined);

        assertEquals(1, impostor.rejoinRequests.size(), "the impostor was asked first");
        assertArrayEquals(JoinServiceRoleProof.digestOf(ROLE_OF_A.publicKey()), recalled().joinServiceRoleDigest().orElseThrow(),
                "the key of the service whose disk key opened the disk, not the impostor's");
    }

    @Test
    @DisplayName("on a version-1 node's rejoin abandoned after a service proving a role key of its own handed a key that does"
            + " not open the disk, the record stays version 1")
    void abandonedRejoinRecordsNothing() throws Exception {
        RememberedDisk v1 = recordVersionOne();
        TestJoinService impostor = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_B)));
        impostor.rejoinKey = filled(0x66);
        TestNode node = diskOfTheNode();
        DiskUnlocker unlocker = new DiskUnlocker(node.disk, node.stateFile);
        unlocker.startWaiting(DISK_UUID, v1);

        assertThrows(InterruptedException.class, () -> new RejoinClient(new StaticDiscovery(List.of(impostor.endpoint())),
                transportOf(v1), unlocker, Backoff.standard(), wait -> {
                    throw new InterruptedException("the node gives up after one round");
                }).run(DISK_UUID));

        assertEquals(1, impostor.rejoinRequests.size());
        assertFalse(unlocker.unlocked().isDone(), "the disk did not open");
        assertTrue(recalled().joinServiceRoleDigest().isEmpty(), "still version 1");
        assertEquals(1, swtpm.client().nv().read(NvIndices.REMEMBERED_DISK)[0]);
    }

    @Test
    @DisplayName("a version-2 node's record is not re-keyed by a rejoin that brings another role key with a disk key that opens"
            + " the disk: it keeps the key it names, and its next rejoin still refuses the other key's service")
    void versionTwoIsNotReKeyed() throws Exception {
        memory().remember(DISK_UUID, CLUSTER, DISK_KEY, false, Optional.of(JoinServiceRoleProof.digestOf(ROLE_OF_A.publicKey())));
        RememberedDisk v2 = recalled();
        TestNode node = diskOfTheNode();
        DiskUnlocker unlocker = new DiskUnlocker(node.disk, node.stateFile);
        unlocker.startWaiting(DISK_UUID, v2);
        unlocker.open(DISK_UUID, DISK_KEY, Via.REJOIN, Optional.of(ROLE_OF_B.publicKey()));

        new RecordAfterUnlock(memory()).rerecord(v2, unlocker.unlocked().get());

        assertArrayEquals(JoinServiceRoleProof.digestOf(ROLE_OF_A.publicKey()), recalled().joinServiceRoleDigest().orElseThrow());
        assertFalse(defined(NvIndices.REMEMBERED_DISK_NEXT), "no record naming the other key waits in the second slot for the"
                + " host to delete the first");
        TestJoinService otherKey = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_B)));
        assertRefusedInHandshake(transportOf(recalled()), otherKey, "not the one this node's TPM remembers");
    }

    @Test
    @DisplayName("a control plane of the node's cluster refusing the rejoin REVOKED (reason OPERATOR): the node asks no more,"
            + " prints 'SEXTANT-STATUS revoked reason=OPERATOR' once, and its disk stays closed")
    void revokedNodeStopsAsking() throws Exception {
        TestJoinService controlPlane = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_A)));
        controlPlane.revokedFor = "OPERATOR";
        Rejoin rejoin = rejoinUntil(2, controlPlane);

        assertFalse(rejoin.interrupted(), "the node stopped by itself, before a second round");
        assertEquals(1, controlPlane.rejoinRequests.size(), "asked once");
        assertEquals("SEXTANT-STATUS revoked reason=OPERATOR\n", rejoin.status());
        assertFalse(rejoin.unlocker().unlocked().isDone(), "the disk stays closed");
    }

    @Test
    @DisplayName("a plain PERMISSION_DENIED without the refusal code REVOKED (a disk not bound to this AK): the node asks again"
            + " the next round, and prints no revoked status")
    void plainRefusalIsRetried() throws Exception {
        TestJoinService controlPlane = service(OwnAttestation.proving(memberOfTheCluster(), roleProof(ROLE_OF_A)));
        controlPlane.rejoinKey = null;
        Rejoin rejoin = rejoinUntil(2, controlPlane);

        assertTrue(rejoin.interrupted(), "still asking when the test stopped it");
        assertEquals(3, controlPlane.rejoinRequests.size(), "asked every round");
        assertEquals("", rejoin.status());
    }

    @Test
    @DisplayName("a service the node does not verify (not attested at all, or a worker of the cluster proving no control-plane"
            + " role) answering REVOKED cannot make the node stop asking: refused in the handshake, it never answers, and the"
            + " node asks again the next round")
    void unverifiedServiceCannotRevoke() throws Exception {
        TestJoinService unattested = service(OwnAttestation.none());
        unattested.revokedFor = "OPERATOR";
        TestJoinService worker = service(OwnAttestation.by(memberOfTheCluster()));
        worker.revokedFor = "PCR_MISMATCH";
        Rejoin rejoin = rejoinUntil(2, unattested, worker);

        assertTrue(rejoin.interrupted(), "still asking when the test stopped it");
        assertEquals("", rejoin.status(), "no revoked status");
        assertTrue(unattested.rejoinRequests.isEmpty() && worker.rejoinRequests.isEmpty(), "neither was asked anything");
        assertFalse(rejoin.unlocker().unlocked().isDone());
    }

    /** How a rejoin at boot ended: stopped by the test after its rounds, or by itself; what it printed. */
    private record Rejoin(boolean interrupted, String status, DiskUnlocker unlocker) { }

    /** The node's rejoin at boot (a version-2 record), stopped by the test when it would wait after its {@code rounds}-th round. */
    private Rejoin rejoinUntil(int rounds, TestJoinService... asked) throws Exception {
        memory().remember(DISK_UUID, CLUSTER, DISK_KEY, false, Optional.of(JoinServiceRoleProof.digestOf(ROLE_OF_A.publicKey())));
        RememberedDisk v2 = recalled();
        TestNode node = diskOfTheNode();
        DiskUnlocker unlocker = new DiskUnlocker(node.disk, node.stateFile);
        unlocker.startWaiting(DISK_UUID, v2);
        java.io.ByteArrayOutputStream console = new java.io.ByteArrayOutputStream();
        java.util.concurrent.atomic.AtomicInteger waits = new java.util.concurrent.atomic.AtomicInteger();
        RejoinClient client = new RejoinClient(new StaticDiscovery(java.util.Arrays.stream(asked).map(TestJoinService::endpoint).toList()),
                transportOf(v2), unlocker, Backoff.standard(), wait -> {
                    if (waits.incrementAndGet() > rounds) {
                        throw new InterruptedException("the test stops the node after " + rounds + " rounds");
                    }
                }, "", new dev.sextant.nodeboot.joinclient.RevokedStatus(new java.io.PrintStream(console, true, StandardCharsets.UTF_8)));
        boolean interrupted = false;
        try {
            assertFalse(client.run(DISK_UUID), "no key opened the disk");
        } catch (InterruptedException e) {
            interrupted = true;
        }
        return new Rejoin(interrupted, console.toString(StandardCharsets.UTF_8), unlocker);
    }

    // --- the node's TPM record and disk, for the rows on version-1 records ---

    private static TpmDiskMemory memory() throws java.io.IOException {
        return new TpmDiskMemory(swtpm.client(), new RememberedDiskSettings(false, List.of()));
    }

    /** A first bootstrap on an image before role keys: the TPM remembers the disk as version 1. */
    private static RememberedDisk recordVersionOne() throws Exception {
        memory().remember(DISK_UUID, CLUSTER, DISK_KEY, false);
        RememberedDisk v1 = recalled();
        assertTrue(v1.joinServiceRoleDigest().isEmpty());
        return v1;
    }

    private static RememberedDisk recalled() throws java.io.IOException {
        return assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
    }

    private static boolean defined(int handle) throws Exception {
        return swtpm.client().nv().findPublic(handle).isPresent();
    }

    private static RejoinTransport transportOf(RememberedDisk record) throws Exception {
        return transports.ofCluster(record.clusterIdDigest(), record.joinServiceRoleDigest());
    }

    /** The worker's state disk (a fake LUKS disk under {@link #DISK_UUID}), keyed with {@link #DISK_KEY}, after a reboot. */
    private TestNode diskOfTheNode() throws Exception {
        FakeKubernetes kubernetes = new FakeKubernetes(new DriverResult.Started(new byte[0]));
        TestNode node = new TestNode(Files.createTempDirectory(dir, "node"), new FakeLuks(), id -> { }, kubernetes);
        node.disk.prepareFresh();
        node.disk.changeKey(node.disk.bootPassphrase(), DISK_KEY);
        node.disk.openAndMount(DISK_KEY);
        node.stateFile.write(new NodeState(BootstrapStatus.Role.WORKER.label(), "node-0", HexFormat.of().formatHex(CLUSTER),
                "2026-01-01T00:00:00Z", Base64.getEncoder().encodeToString(new byte[32]), NodeState.KubernetesRole.none(), false,
                Map.of(), null));
        node.disk.markInitialized();
        node = node.reboot(id -> { }, kubernetes);
        nodes.add(node);
        return node;
    }

    /** The node's rejoin at boot, as BootUnlock runs it: round after round over the services until a key opens the disk. */
    private Membership rejoin(RememberedDisk remembered, TestJoinService... asked) throws Exception {
        TestNode node = diskOfTheNode();
        DiskUnlocker unlocker = new DiskUnlocker(node.disk, node.stateFile);
        unlocker.startWaiting(DISK_UUID, remembered);
        List<Endpoint> endpoints = java.util.Arrays.stream(asked).map(TestJoinService::endpoint).toList();
        assertTrue(new RejoinClient(new StaticDiscovery(endpoints), transportOf(remembered), unlocker, Backoff.standard(),
                wait -> { }).run(DISK_UUID));
        return unlocker.unlocked().get();
    }

    // --- the node's rejoin path and the services on the network ---

    /** What BootStarter builds from the TPM's record of the disk. */
    private static RejoinTransport rejoinTransport() throws Exception {
        var record = RememberedDisk.of(DISK_UUID, CLUSTER, DISK_KEY, false, new byte[32])
                .withJoinServiceRole(JoinServiceRoleProof.digestOf(ROLE_OF_A.publicKey()));
        return transports.ofCluster(record.clusterIdDigest(), record.joinServiceRoleDigest());
    }

    private void assertRefusedInHandshake(TestJoinService service, String why) throws Exception {
        assertRefusedInHandshake(rejoinTransport(), service, why);
    }

    private void assertRefusedInHandshake(RejoinTransport transport, TestJoinService service, String why) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> transport.issueRejoinTicket(service.endpoint(), request()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "a handshake failure, not an answer: " + e);
        assertTrue(service.rejoinRequests.isEmpty(), "the node sent nothing");
        assertTrue(refusals.list.stream().anyMatch(l -> l.getFormattedMessage().contains(why)),
                () -> "refused because " + why + "; the log: " + refusals.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
    }

    private TestJoinService service(OwnAttestation own) throws Exception {
        TestJoinService service = TestJoinService.presenting(own, anyNode());
        service.rejoinKey = DISK_KEY;
        services.add(service);
        return service;
    }

    /** The service's side of node verification is not what these rows are about: it admits any quoted node. */
    private static AttestationVerifier anyNode() {
        DocumentVerifier documents = new DocumentVerifier(new VerifierPolicy(new Measurements(Variant.QEMU_VTPM, new TreeMap<>()),
                AkTrust.insecureTrustAnyAk()));
        return documents::verify;
    }

    /** A genuine member of cluster A on the node's image: its TPM under the image's EK CA, PCR 15 marked with A. */
    private static SoftwareTpmAttester memberOfTheCluster() {
        return new SoftwareTpmAttester(IMAGE_EK_CA, genuineImage(JoinServiceTrust.markOf(sha256(CLUSTER))));
    }

    private static SoftwareTpmOptions genuineImage(byte[] pcr15) {
        SoftwareTpmOptions options = SoftwareTpmOptions.defaults().withEvents(List.of());
        for (int pcr : List.of(4, 9, 11, 12, 13)) {
            options = options.withPcr(pcr, ownPcrs.get(pcr));
        }
        return options.withPcr(15, pcr15);
    }

    private static RoleProver roleProof(JoinServiceRoleKey key) {
        return new RoleProver(key);
    }

    /** What join-api's JoinServiceRoleProver does: one signature by the role key per handshake. */
    private record RoleProver(JoinServiceRoleKey key) implements HandshakeProver {
        @Override
        public byte[] prove(byte[] peerRandom, byte[] spkiHash) {
            return key.prove(peerRandom, spkiHash).encode();
        }
    }

    private static IssueRejoinTicketRequest request() {
        return IssueRejoinTicketRequest.newBuilder().setDiskUuid(DISK_UUID).build();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
