package dev.sextant.nodeboot.unlock;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.nodeboot.bringup.BringUpOutcome;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.KubernetesPlan;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.joinservices.StaticDiscovery;
import dev.sextant.nodeboot.initserver.InitFlow;
import dev.sextant.nodeboot.initserver.InitSettings;
import dev.sextant.nodeboot.initserver.NodeIdentity;
import dev.sextant.nodeboot.joinclient.AtlsJoinTransport;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.nodeboot.start.BootUnlock;
import dev.sextant.nodeboot.joinclient.TestJoinService;
import dev.sextant.nodeboot.initserver.ClusterKeys;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.RestartSettings;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.deploy.EtcdStanding;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.RecoverRequest;
import dev.sextant.proto.v1.RecoveryServiceGrpc;
import dev.sextant.proto.v1.RecoveryStatusRequest;
import dev.sextant.proto.v1.RecoveryStatusResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Unlock at boot over real gRPC and aTLS on loopback (software TPMs), with the real pipeline over a
 * simulated LUKS disk that survives the reboot (the host has no device-mapper).
 */
class UnlockAtBootTest {
    @TempDir
    Path dir;

    private final SoftwareTpmAttester nodeTpm = new SoftwareTpmAttester();
    private final SoftwareTpmAttester serviceTpm = new SoftwareTpmAttester();
    private final List<byte[]> pcr15 = new CopyOnWriteArrayList<>();
    private final AtomicInteger rounds = new AtomicInteger();
    private TestNode node;

    @AfterEach
    void close() throws Exception {
        node.close();
    }

    private static DocumentVerifier verifierOf(SoftwareTpmAttester tpm) {
        return new DocumentVerifier(new VerifierPolicy(tpm.measurements(), AkTrust.ekCa(tpm.anchors())));
    }

    /** The worker's discovery member credentials, as its join ticket certified them. */
    private static final MemberCredentials MEMBER = TestMembers.random().worker("worker-0");

    /** A worker that joined with the test service's ticket; its disk now holds the ticket's key and its state. */
    private BringUpOutcome.Bootstrapped joinedWorker() throws Exception {
        node = new TestNode(dir, new FakeLuks(), pcr15::add, new FakeKubernetes(new DriverResult.Started(new byte[0])));
        byte[] clusterId = ClusterKeys.clusterId(TestJoinService.MEASUREMENT_SECRET, TestJoinService.MEASUREMENT_SALT);
        node.disk.prepareFresh();
        var membership = Membership.join(BootstrapStatus.Role.WORKER, "worker-0", clusterId,
                TestJoinService.STATE_DISK_KEY, TestJoinService.DISCOVERY_KEY,
                new KubernetesPlan.Join(new JoinSettings("worker-0", "https://10.0.2.2:6443", "K10cafe::abcdef.0123", false)),
                MEMBER);
        return (BringUpOutcome.Bootstrapped) node.bringUp.run(membership, (step, detail) -> { });
    }

    private BootUnlock unlock(List<dev.sextant.housekeeping.discovery.Endpoint> services, int recoveryPort) throws Exception {
        return new BootUnlock(new DiskUnlocker(node.disk, node.stateFile), new StaticDiscovery(services),
                new AtlsJoinTransport(nodeTpm, ServerVerification.by(verifierOf(serviceTpm)), Duration.ofSeconds(5)), nodeTpm,
                new RecoverySettings(recoveryPort), new Backoff(Duration.ofMillis(20), Duration.ofMillis(100), () -> 1.0),
                d -> {
                    rounds.incrementAndGet();
                    Thread.sleep(d.toMillis());
                });
    }

    private CompletableFuture<Membership> awaitInBackground(BootUnlock unlock, boolean controlPlane) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return unlock.await(FakeLuks.UUID, controlPlane);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    @DisplayName("a worker that reboots while the control plane is down waits, never formats, and rejoins when the join service is back, its discovery member key and certificate read back from the disk")
    void workerWaitsThenRejoins() throws Exception {
        BringUpOutcome.Bootstrapped joined = joinedWorker();
        var kubernetes = new FakeKubernetes(new DriverResult.Started(new byte[0]));
        node = node.reboot(pcr15::add, kubernetes);
        assertTrue(node.disk.holdsInitializedCluster());
        int port = FreePorts.loopback();
        var waiting = awaitInBackground(unlock(List.of(new dev.sextant.housekeeping.discovery.Endpoint("127.0.0.1", port)), 0), false);
        while (rounds.get() < 5) {
            Thread.sleep(20);
        }
        assertFalse(waiting.isDone(), "no join service: the node keeps waiting");
        assertTrue(node.luks.initialized());
        assertFalse(node.luks.commands().contains("luksFormat"), "a member's disk is never formatted");
        assertFalse(node.luks.mapped());

        try (var service = new TestJoinService(serviceTpm, verifierOf(nodeTpm), port)) {
            service.rejoinKey = TestJoinService.STATE_DISK_KEY;
            Membership membership = waiting.get(30, TimeUnit.SECONDS);
            assertEquals(Via.REJOIN, membership.via());
            assertArrayEquals(MEMBER.privateKey(), membership.member().privateKey(),
                    "the member key comes back from the encrypted state disk");
            assertArrayEquals(MEMBER.certificate(), membership.member().certificate(), "and its certificate with it");
            assertEquals(FakeLuks.UUID, service.rejoinRequests.get(0).getDiskUuid());
            var outcome = (BringUpOutcome.Bootstrapped) node.bringUp.run(membership, (step, detail) -> { });
            assertEquals(Via.REJOIN, outcome.via());
            assertEquals(joined.since(), outcome.since(), "since is read back from the disk");
            assertEquals(BootstrapStatus.Role.WORKER, outcome.role());
            assertEquals(LockHolder.REJOIN, node.lock.holder().orElseThrow());
            assertArrayEquals(ClusterKeys.clusterId(TestJoinService.MEASUREMENT_SECRET, TestJoinService.MEASUREMENT_SALT),
                    pcr15.get(pcr15.size() - 1), "PCR 15 is marked again with the cluster ID from the disk");
            assertTrue(node.luks.mapped());
            assertEquals(List.of(new RestartSettings("worker-0", false, false, "https://10.0.2.2:6443", "K10cafe::abcdef.0123")),
                    kubernetes.calls, "k3s agent starts again against the server it joined");
        }
    }

    @Test
    @DisplayName("a node that rebooted before it ever joined (disk formatted, never initialized) is not unlocked: it formats afresh")
    void neverJoinedFormatsAfresh() throws Exception {
        node = new TestNode(dir, new FakeLuks(), pcr15::add, FakeKubernetes.absent());
        node.disk.prepareFresh();
        node = node.reboot(pcr15::add, FakeKubernetes.absent());
        assertFalse(node.disk.holdsInitializedCluster(), "no unlock at this boot");
        node.disk.prepareFresh();
        assertEquals(List.of("luksFormat"), node.luks.commands().stream().filter("luksFormat"::equals).toList(),
                "formatted afresh with a new boot passphrase");
        assertTrue(node.disk.formattedThisBoot(), "so a failure of this boot may reset it");
    }

    @Test
    @DisplayName("a node whose PCRs differ from what the join service expects gets no rejoin ticket: its disk stays locked")
    void wrongPcrsGetNoKey() throws Exception {
        joinedWorker();
        node = node.reboot(pcr15::add, FakeKubernetes.absent());
        var strict = new SoftwareTpmAttester();
        try (var service = new TestJoinService(serviceTpm, verifierOf(strict))) {
            service.rejoinKey = TestJoinService.STATE_DISK_KEY;
            var waiting = awaitInBackground(unlock(List.of(service.endpoint()), 0), false);
            while (service.refusedHandshakes.get() < 3) {
                Thread.sleep(20);
            }
            assertFalse(waiting.isDone());
            assertEquals(List.of(), service.rejoinRequests, "refused in the handshake, before the method");
            assertFalse(node.luks.mapped());
            assertTrue(node.lock.holder().isEmpty());
            waiting.cancel(true);
        }
    }

    @Test
    @DisplayName("a control plane recovers with the operator's key over server-attested aTLS: a wrong key is refused and changes nothing, the right one opens the disk and the node-local services start again")
    void recovery() throws Exception {
        node = new TestNode(dir, new FakeLuks(), pcr15::add, FakeKubernetes.absent());
        var init = new InitFlow(node.bringUp, node.disk,
                new NodeIdentity(new InitSettings(dir.resolve("hash"), dir.resolve("log"), false, "control-plane-0", null)));
        var initialized = init.run(InitRequest.newBuilder().setMasterSecret(ByteString.copyFrom(new byte[32]))
                .setMasterSalt(ByteString.copyFrom(new byte[32])).setMeasurementSalt(ByteString.copyFrom(new byte[32])).build(),
                (step, detail) -> { });
        String since = initialized.bootstrapped().since();

        node = node.reboot(pcr15::add, FakeKubernetes.absent());
        int port = FreePorts.loopback();
        var waiting = awaitInBackground(unlock(List.of(), port), true);
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(verifierOf(nodeTpm)))).build();
        try {
            var stub = RecoveryServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
            RecoveryStatusResponse status = awaitStatus(channel);
            assertTrue(status.getWaiting());
            assertEquals(FakeLuks.UUID, status.getDiskUuid());

            var wrong = assertThrows(StatusRuntimeException.class, () -> stub.recover(RecoverRequest.newBuilder()
                    .setDiskUuid(FakeLuks.UUID).setStateDiskKey(ByteString.copyFrom(new byte[32])).build()));
            assertEquals(Status.Code.PERMISSION_DENIED, wrong.getStatus().getCode());
            assertTrue(wrong.getStatus().getDescription().contains("does not open state disk"), wrong.getMessage());
            assertFalse(node.luks.mapped(), "the disk is untouched");
            assertFalse(node.luks.commands().stream().anyMatch(c -> c.equals("luksChangeKey") || c.equals("token")
                    || c.equals("luksFormat") || c.equals("open")), node.luks.commands().toString());
            assertFalse(waiting.isDone(), "the node keeps waiting");

            var otherDisk = assertThrows(StatusRuntimeException.class, () -> stub.recover(RecoverRequest.newBuilder()
                    .setDiskUuid("00000000-0000-4000-8000-000000000000").setStateDiskKey(ByteString.copyFrom(new byte[32])).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, otherDisk.getStatus().getCode());

            byte[] key = new ClusterKeys(new byte[32], new byte[32]).diskKey(FakeLuks.UUID);
            var recovered = stub.recover(RecoverRequest.newBuilder().setDiskUuid(FakeLuks.UUID)
                    .setStateDiskKey(ByteString.copyFrom(key)).build());
            assertEquals(since, recovered.getSince());
            Membership membership = waiting.get(30, TimeUnit.SECONDS);
            assertEquals(Via.RECOVERY, membership.via());
            assertEquals(BootstrapStatus.Role.CONTROL_PLANE, membership.role(), "the role comes from the disk");

            node.systemctl.clear();
            var outcome = (BringUpOutcome.Bootstrapped) node.bringUp.run(membership, (step, detail) -> { });
            assertEquals(Via.RECOVERY, outcome.via());
            assertEquals(since, outcome.since());
            assertEquals(List.of(List.of("systemctl", "start", "sextant-etcd.service"), List.of("systemctl", "start", "sextant-kms.service")),
                    node.systemctl, "etcd, then the KMS, start again from their files on the state disk");
            assertEquals(EtcdStanding.MEMBER, outcome.etcd(), "the status line says etcd=member");
            assertEquals(LockHolder.RECOVERY, node.lock.holder().orElseThrow());
            var gone = assertThrows(StatusRuntimeException.class,
                    () -> RecoveryServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                            .status(RecoveryStatusRequest.getDefaultInstance()));
            assertEquals(Status.Code.UNAVAILABLE, gone.getStatus().getCode(), "recovery is served only while the disk waits");
        } finally {
            channel.shutdownNow();
        }
    }

    private static RecoveryStatusResponse awaitStatus(ManagedChannel channel) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return RecoveryServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                        .status(RecoveryStatusRequest.getDefaultInstance());
            } catch (StatusRuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
