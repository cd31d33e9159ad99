package dev.sextant.nodeboot.attacks;

import com.google.protobuf.ByteString;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestEvent;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.KubernetesPlan;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.nodeboot.joinservices.StaticDiscovery;
import dev.sextant.nodeboot.initserver.InitEndpoint;
import dev.sextant.nodeboot.initserver.InitFlow;
import dev.sextant.nodeboot.initserver.InitSettings;
import dev.sextant.nodeboot.initserver.JournalSource;
import dev.sextant.nodeboot.initserver.NodeIdentity;
import dev.sextant.nodeboot.joinclient.AtlsJoinTransport;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.nodeboot.joinclient.JoinClient;
import dev.sextant.nodeboot.joinclient.JoinOutcome;
import dev.sextant.nodeboot.joinclient.JoinTransport;
import dev.sextant.nodeboot.joinclient.RejoinTransport;
import dev.sextant.nodeboot.joinclient.TestJoinService;
import dev.sextant.nodeboot.initserver.ClusterKeys;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.image.OsRelease;
import dev.sextant.nodeboot.initserver.InitResponses;
import dev.sextant.nodeboot.lifecycle.LifecycleSettings;
import dev.sextant.nodeboot.lifecycle.ProcessExit;
import dev.sextant.nodeboot.start.BootUnlock;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.nodeboot.unlock.RecoverySettings;
import dev.sextant.nodeboot.unlock.UnlockRefused;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.K3sJoin;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The node's side of trust: one row per attack on a node, each named with the refusal it gets. */
@DisplayName("Attacks on a node")
class NodeAttacksTest {
    @TempDir
    Path dir;

    private final SoftwareTpmAttester nodeTpm = new SoftwareTpmAttester();
    /** The EK CA the node trusts for its join service: an impostor may hold a TPM certified by it too. */
    private final TestPki serviceCa = new TestPki("join service's EK CA");
    private final SoftwareTpmAttester serviceTpm = new SoftwareTpmAttester(serviceCa, SoftwareTpmOptions.defaults());
    private final List<TestNode> nodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (TestNode node : nodes) {
            node.close();
        }
    }

    private TestNode node() throws Exception {
        TestNode node = new TestNode(Files.createDirectories(dir.resolve("node-" + nodes.size())), new FakeLuks(),
                id -> { }, new FakeKubernetes(new DriverResult.Started(new byte[0])));
        nodes.add(node);
        return node;
    }

    private static DocumentVerifier verifierOf(SoftwareTpmAttester tpm) {
        return new DocumentVerifier(new VerifierPolicy(tpm.measurements(), AkTrust.ekCa(tpm.anchors())));
    }

    /** The node's transport to join services, verifying them as the genuine join service. */
    private SeenByNode transport() throws Exception {
        return new SeenByNode(new AtlsJoinTransport(nodeTpm, ServerVerification.by(verifierOf(serviceTpm)), Duration.ofSeconds(5)));
    }

    /** Two rounds of the join path against {@code service} over {@code transport}. */
    private JoinOutcome joinTwice(TestNode node, TestJoinService service, SeenByNode transport) throws Exception {
        AtomicInteger rounds = new AtomicInteger();
        JoinClient[] client = new JoinClient[1];
        client[0] = new JoinClient(JoinClient.Node.worker("worker-0", true, node.disk::prepareFresh),
                new StaticDiscovery(List.of(service.endpoint())), transport, node.lock, node.bringUp,
                new Backoff(Duration.ofMillis(1), Duration.ofMillis(1), () -> 0.0), d -> {
                    if (rounds.incrementAndGet() >= 2) {
                        client[0].stop();
                    }
                });
        return client[0].run();
    }

    /** Two rounds of the join path; returns what the node logged about the tickets it refused. */
    private List<String> ticketRefusals(TestNode node, TestJoinService service) throws Exception {
        try (CapturedLog log = new CapturedLog(JoinClient.class)) {
            assertInstanceOf(JoinOutcome.Stopped.class, joinTwice(node, service, transport()));
            return log.lines().stream().filter(line -> line.contains("refused, nothing applied")).toList();
        }
    }

    private static void assertNothingApplied(TestNode node) {
        assertTrue(node.lock.holder().isEmpty(), "the node stays fresh (PCR 15 unmarked)");
        assertFalse(node.luks.initialized(), "the disk was not re-keyed");
        assertFalse(node.luks.commands().contains("luksChangeKey"));
        assertEquals(List.of(), ((FakeKubernetes) node.kubernetes).calls, "Kubernetes was not started");
    }

    /** Every handshake the node refused was refused for {@code reason}, saying {@code words}; at least one was. */
    private static void assertRefusedInHandshake(SeenByNode transport, Reason reason, String words) {
        List<AttestationRejected> rejections = transport.rejections();
        assertFalse(rejections.isEmpty(), () -> "the node refused no handshake: " + transport.failures);
        for (AttestationRejected rejected : rejections) {
            assertEquals(reason, rejected.reason(), rejected::toString);
            assertTrue(rejected.getMessage().contains(words), rejected::toString);
        }
        assertEquals(transport.failures.size(), rejections.size(), () -> "failures other than the handshake's: " + transport.failures);
    }

    @Test
    @DisplayName("an impostor join service with valid TLS but no attestation: the node refuses it in the handshake (MALFORMED: no attestation extension), sends no request and applies nothing")
    void impostorWithoutAttestation() throws Exception {
        TestNode node = node();
        SeenByNode transport = transport();
        try (var impostor = new TestJoinService(null, verifierOf(nodeTpm))) {
            assertInstanceOf(JoinOutcome.Stopped.class, joinTwice(node, impostor, transport));
            assertRefusedInHandshake(transport, Reason.MALFORMED, "carries no qemu-vtpm attestation extension");
            assertEquals(List.of(), impostor.requests, "no request reached the impostor");
            assertNothingApplied(node);
        }
    }

    @Test
    @DisplayName("an impostor join service whose TPM the trusted EK CA certifies but which booted another image: the node refuses it in the handshake (PCR_MISMATCH on PCR 11) and applies nothing")
    void impostorWithWrongMeasurements() throws Exception {
        TestNode node = node();
        SeenByNode transport = transport();
        // Another kernel command line: PCR 11 differs, and the event log still replays to it.
        var otherImage = SoftwareTpmOptions.defaults().withEvents(List.of(
                new TestEvent(4, TestEvent.EV_IPL, "uki.efi".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(9, TestEvent.EV_IPL, "initrd".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(11, TestEvent.EV_IPL, ".linux".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(11, TestEvent.EV_IPL, ".cmdline sextant.debug=1".getBytes(StandardCharsets.UTF_8))));
        try (var impostor = new TestJoinService(new SoftwareTpmAttester(serviceCa, otherImage), verifierOf(nodeTpm))) {
            assertInstanceOf(JoinOutcome.Stopped.class, joinTwice(node, impostor, transport));
            assertRefusedInHandshake(transport, Reason.PCR_MISMATCH, "PCR 11 (sha256) is ");
            assertEquals(List.of(), impostor.requests, "no request reached the impostor");
            assertNothingApplied(node);
        }
    }

    @Test
    @DisplayName("a join service handing out a malformed ticket (16-byte disk key, plain-http server URL): the node refuses it before the lock, naming both fields, and applies nothing")
    void malformedTicket() throws Exception {
        TestNode node = node();
        try (var service = new TestJoinService(serviceTpm, verifierOf(nodeTpm))) {
            service.ticket = TestJoinService.ticket().toBuilder().setStateDiskKey(ByteString.copyFrom(new byte[16]))
                    .setK3S(K3sJoin.newBuilder().setServerUrl("http://evil.example:80/x").setToken("K10x::y.z")).build();
            List<String> refusals = ticketRefusals(node, service);
            assertEquals(2, service.requests.size(), "asked, refused, asked again");
            assertEquals(2, refusals.size(), refusals::toString);
            for (String refusal : refusals) {
                assertTrue(refusal.contains("state_disk_key has 16 bytes, not 32"), refusal);
                assertTrue(refusal.contains("k3s.server_url is not of the form https://HOST:PORT"), refusal);
            }
            assertNothingApplied(node);
        }
    }

    @Test
    @DisplayName("a join ticket whose member certificate, by the cluster's discovery CA, is for another key: the node refuses it before the lock and applies nothing")
    void ticketWithAnotherKeysCertificate() throws Exception {
        TestNode node = node();
        try (var service = new TestJoinService(serviceTpm, verifierOf(nodeTpm))) {
            var ca = new dev.sextant.keys.member.DiscoveryCa(TestJoinService.DISCOVERY_CA_SEED);
            byte[] otherKey = dev.sextant.keys.member.MemberKey.generate(new java.security.SecureRandom()).publicKey();
            service.ticket = TestJoinService.ticket().toBuilder()
                    .setDiscoveryCaPublicKey(ByteString.copyFrom(ca.publicKey()))
                    .setMemberCertificate(ByteString.copyFrom(ca.certifyMember(otherKey, "worker-0", MemberRole.WORKER,
                            ClusterKeys.clusterId(TestJoinService.MEASUREMENT_SECRET, TestJoinService.MEASUREMENT_SALT),
                            java.time.Instant.now(), Duration.ofDays(1)))).build();
            List<String> refusals = ticketRefusals(node, service);
            assertEquals(2, service.requests.size(), "asked, refused, asked again");
            assertEquals(2, refusals.size(), refusals::toString);
            refusals.forEach(refusal -> assertTrue(refusal.contains(
                    "member_certificate: the member certificate certifies another key than this member's"), refusal));
            assertNothingApplied(node);
        }
    }

    @Test
    @DisplayName("a join ticket whose member certificate is for this node's key but names another node and role (a control plane's): the node refuses it before the lock and applies nothing")
    void ticketCertifyingAnotherMember() throws Exception {
        TestNode node = node();
        try (var service = new TestJoinService(serviceTpm, verifierOf(nodeTpm))) {
            service.certifyAs("control-plane-0", MemberRole.CONTROL_PLANE);
            List<String> refusals = ticketRefusals(node, service);
            assertEquals(2, service.requests.size(), "asked, refused, asked again");
            assertEquals(2, refusals.size(), refusals::toString);
            refusals.forEach(refusal -> assertTrue(refusal.contains(
                    "member_certificate names control-plane-0 as CONTROL_PLANE (or another cluster); this node is worker-0 as WORKER"),
                    refusal));
            assertNothingApplied(node);
        }
    }

    @Test
    @DisplayName("an impostor join service offering a rebooted node its key: the node refuses it in the handshake (MALFORMED: no attestation extension) and its disk stays locked")
    void impostorRejoin() throws Exception {
        TestNode node = joinedWorker();
        TestNode rebooted = node.reboot(id -> { }, FakeKubernetes.absent());
        nodes.add(rebooted);
        SeenByNode transport = transport();
        try (var impostor = new TestJoinService(null, verifierOf(nodeTpm))) {
            impostor.rejoinKey = TestJoinService.STATE_DISK_KEY;
            AtomicInteger rounds = new AtomicInteger();
            var unlock = new BootUnlock(new DiskUnlocker(rebooted.disk, rebooted.stateFile), new StaticDiscovery(List.of(impostor.endpoint())),
                    transport, nodeTpm, new RecoverySettings(0),
                    new Backoff(Duration.ofMillis(10), Duration.ofMillis(10), () -> 1.0), d -> {
                        rounds.incrementAndGet();
                        Thread.sleep(d.toMillis());
                    });
            var waiting = CompletableFuture.runAsync(() -> {
                try {
                    unlock.await(FakeLuks.UUID, false);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            while (rounds.get() < 3 && !waiting.isDone()) {
                Thread.sleep(10);
            }
            assertFalse(waiting.isDone(), "the node stopped waiting for its disk key");
            waiting.cancel(true);
            assertRefusedInHandshake(transport, Reason.MALFORMED, "carries no qemu-vtpm attestation extension");
            assertEquals(List.of(), impostor.rejoinRequests, "the impostor never saw the disk UUID");
            assertFalse(rebooted.luks.mapped(), "the disk stays locked");
        }
    }

    @Test
    @DisplayName("a caller guessing a rebooted control plane's disk key, on a disk without a check value: cryptsetup's key test refuses it, PERMISSION_DENIED, the disk untouched, the node keeps waiting")
    void recoveryGuess() throws Exception {
        TestNode rebooted = joinedWorker().reboot(id -> { }, FakeKubernetes.absent());
        nodes.add(rebooted);
        rebooted.luks.dropCheckValue();
        DiskUnlocker unlocker = new DiskUnlocker(rebooted.disk, rebooted.stateFile);
        unlocker.startWaiting(FakeLuks.UUID);
        var refused = assertThrows(UnlockRefused.class, () -> unlocker.open(FakeLuks.UUID, new byte[32], Via.RECOVERY));
        assertEquals(UnlockRefused.Kind.WRONG_KEY, refused.kind());
        assertFalse(rebooted.luks.mapped());
        assertEquals(FakeLuks.UUID, unlocker.waitingFor(), "still waiting");
    }

    @Test
    @DisplayName("a flood of recovery guesses at a disk without a check value: a guess made while another key is being tried is turned away at once (BUSY), never queued ahead of the operator")
    void recoveryFlood() throws Exception {
        TestNode rebooted = joinedWorker().reboot(id -> { }, FakeKubernetes.absent());
        nodes.add(rebooted);
        rebooted.luks.dropCheckValue();
        java.util.concurrent.CountDownLatch trying = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        // The first key test takes as long as the test says (argon2id takes seconds on a node).
        var slowDisk = new dev.sextant.diskcrypt.StateDisk(rebooted.diskSettings,
                new dev.sextant.diskcrypt.StateMount("sextant-state", rebooted.dir.resolve("state"), true), (argv, stdin) -> {
                    if (argv.contains("--test-passphrase")) {
                        trying.countDown();
                        release.await();
                    }
                    return rebooted.luks.run(argv, stdin);
                });
        DiskUnlocker unlocker = new DiskUnlocker(slowDisk, rebooted.stateFile);
        unlocker.startWaiting(FakeLuks.UUID);
        ExecutorService guessers = Executors.newFixedThreadPool(2);
        try {
            Future<UnlockRefused.Kind> first = guessers.submit(() -> guess(unlocker));
            trying.await();
            Future<UnlockRefused.Kind> second = guessers.submit(() -> guess(unlocker));
            try {
                // Turned away, the second guess returns at once; queued, it would wait for the first try to end.
                assertEquals(UnlockRefused.Kind.BUSY, second.get(60, TimeUnit.SECONDS));
            } catch (TimeoutException queued) {
                fail("a guess made while another key is being tried waited for it instead of being turned away");
            } finally {
                release.countDown();
            }
            assertEquals(UnlockRefused.Kind.WRONG_KEY, first.get(60, TimeUnit.SECONDS));
        } finally {
            guessers.shutdownNow();
        }
        assertEquals(FakeLuks.UUID, unlocker.waitingFor(), "still waiting for the right key");
    }

    /** A recovery guess with an all-zero key: the kind of its refusal. */
    private static UnlockRefused.Kind guess(DiskUnlocker unlocker) throws InterruptedException {
        try {
            unlocker.open(FakeLuks.UUID, new byte[32], Via.RECOVERY);
        } catch (UnlockRefused refused) {
            return refused.kind();
        }
        throw new AssertionError("an all-zero key opened the disk");
    }

    @Test
    @DisplayName("init on a node whose disk holds an initialized cluster: FAILED_PRECONDITION, nothing changed")
    void initOnInitializedNode() throws Exception {
        TestNode node = joinedWorker();
        Path hash = dir.resolve("init-secret.hash");
        byte[] salt = new byte[16];
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(salt);
        byte[] digest = sha.digest("the init secret".getBytes(StandardCharsets.UTF_8));
        Files.writeString(hash, "sha256:" + HexFormat.of().formatHex(salt) + ":" + HexFormat.of().formatHex(digest) + "\n");
        InitSettings settings = new InitSettings(hash, dir.resolve("log"), false, "node-x", null);
        var status = new BootstrapStatus(new LifecycleSettings(false, Duration.ZERO), node.disk, node.diskSettings, new ProcessExit(),
                    new OsRelease(java.nio.file.Path.of("/usr/lib/os-release")));
        var endpoint = new InitEndpoint(settings, new InitFlow(node.bringUp, node.disk, new NodeIdentity(settings)),
                new JournalSource(settings), status, node.disk);
        List<String> before = node.luks.commands();
        var answer = new InitResponses();
        endpoint.init(InitRequest.newBuilder().setInitSecret(ByteString.copyFromUtf8("the init secret"))
                .setMasterSecret(ByteString.copyFrom(new byte[32])).setMasterSalt(ByteString.copyFrom(new byte[32]))
                .setMeasurementSalt(ByteString.copyFrom(new byte[32])).build(), answer);
        assertNotNull(answer.error, () -> "init ran: " + answer.values);
        assertEquals(Status.Code.FAILED_PRECONDITION, Status.fromThrowable(answer.error).getCode());
        assertTrue(answer.error.getMessage().contains("already holds an initialized cluster disk"), answer.error.getMessage());
        assertEquals(List.of(), answer.values, "no progress: nothing ran");
        assertTrue(node.luks.opensWith(TestJoinService.STATE_DISK_KEY), "the disk keeps its key");
        assertFalse(node.luks.commands().subList(before.size(), node.luks.commands().size()).stream()
                .anyMatch(c -> c.equals("luksChangeKey") || c.equals("token") || c.equals("luksFormat")), "the disk is untouched");
    }

    /** A worker that joined: its disk holds the ticket's key and its node state. */
    private TestNode joinedWorker() throws Exception {
        TestNode node = node();
        node.disk.prepareFresh();
        node.bringUp.run(Membership.join(BootstrapStatus.Role.WORKER, "worker-0",
                ClusterKeys.clusterId(TestJoinService.MEASUREMENT_SECRET, TestJoinService.MEASUREMENT_SALT),
                TestJoinService.STATE_DISK_KEY, TestJoinService.DISCOVERY_KEY, new KubernetesPlan.None(), null),
                (step, detail) -> { });
        assertTrue(node.luks.initialized());
        return node;
    }

    /**
     * The node's aTLS transport, remembering every call that failed: gRPC reports a refused handshake
     * as UNAVAILABLE, and the rejection the node's verifier gave is among the causes.
     */
    private static final class SeenByNode implements JoinTransport, RejoinTransport {
        private final AtlsJoinTransport atls;
        final List<StatusRuntimeException> failures = new CopyOnWriteArrayList<>();

        SeenByNode(AtlsJoinTransport atls) {
            this.atls = atls;
        }

        @Override
        public IssueJoinTicketResponse issueJoinTicket(Endpoint endpoint, IssueJoinTicketRequest request) {
            try {
                return atls.issueJoinTicket(endpoint, request);
            } catch (StatusRuntimeException e) {
                failures.add(e);
                throw e;
            }
        }

        @Override
        public IssueRejoinTicketResponse issueRejoinTicket(Endpoint endpoint, IssueRejoinTicketRequest request) {
            try {
                return atls.issueRejoinTicket(endpoint, request);
            } catch (StatusRuntimeException e) {
                failures.add(e);
                throw e;
            }
        }

        /** The verifier's rejections behind the failed calls (a failure without one is not in the list). */
        List<AttestationRejected> rejections() {
            List<AttestationRejected> rejections = new ArrayList<>();
            for (Throwable failure : failures) {
                for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                    if (cause instanceof AttestationRejected rejected) {
                        rejections.add(rejected);
                        break;
                    }
                }
            }
            return rejections;
        }
    }
}
