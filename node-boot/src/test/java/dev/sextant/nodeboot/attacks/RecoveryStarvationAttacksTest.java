package dev.sextant.nodeboot.attacks;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateMount;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.nodeboot.initserver.ClusterKeys;
import dev.sextant.nodeboot.initserver.InitFlow;
import dev.sextant.nodeboot.initserver.InitSettings;
import dev.sextant.nodeboot.initserver.NodeIdentity;
import dev.sextant.nodeboot.joinclient.AtlsJoinTransport;
import dev.sextant.nodeboot.joinclient.TestJoinService;
import dev.sextant.nodeboot.joinservices.StaticDiscovery;
import dev.sextant.nodeboot.start.BootUnlock;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.nodeboot.unlock.RecoveryServer;
import dev.sextant.nodeboot.unlock.RecoverySettings;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.RecoverRequest;
import dev.sextant.proto.v1.RecoverResponse;
import dev.sextant.proto.v1.RecoveryServiceGrpc;
import dev.sextant.proto.v1.RecoveryStatusRequest;
import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stranger who reaches a rebooted control plane's recovery port and tries to keep its disk
 * locked by keeping wrong keys in flight. Real gRPC and aTLS on loopback; the disk is FakeLuks
 * with each argon2id derivation (a key test, an open) taking {@link #ARGON2ID}, scaled down from
 * a node's seconds so that the right key's own derivations fit the 1 s goal. The stranger
 * connects from 127.0.0.2, the operator and the node's rejoin from 127.0.0.1.
 */
@DisplayName("Attacks on a waiting disk: starving the unlock slot")
class RecoveryStarvationAttacksTest {
    private static final Duration ARGON2ID = Duration.ofMillis(200);
    private static final int WRONG_KEY_STREAMS = 64;
    private static final byte[] RIGHT_KEY = new ClusterKeys(new byte[32], new byte[32]).diskKey(FakeLuks.UUID);
    private static final String STRANGER = "127.0.0.2";
    private static final String OPERATOR = "127.0.0.1";

    @TempDir
    Path dir;

    private final SoftwareTpmAttester nodeTpm = new SoftwareTpmAttester();
    private final SoftwareTpmAttester serviceTpm = new SoftwareTpmAttester();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final SlowCryptsetup cryptsetup = new SlowCryptsetup();
    private final int recoveryPort = FreePorts.loopback();
    private TestNode node;

    @AfterEach
    void close() throws Exception {
        cryptsetup.release();
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        node.close();
    }

    @Test
    @DisplayName("64 wrong-key streams on one connection do not keep the right key out: opened within 1 s")
    void wrongKeyStreamsDoNotStarveTheRightKey() throws Exception {
        var waiting = rebootedControlPlaneWaits(List.of(), true);
        WrongKeyStreams stranger = strangerFloods();
        ManagedChannel operator = channelFrom(OPERATOR);
        awaitServing(RecoveryServiceGrpc.newBlockingStub(operator));
        Offer offer = offerLikeTheCli(operator, Duration.ofSeconds(5));
        String strangerSaw = stranger.answers.toString();
        assertTrue(offer.opened() && offer.millis() <= 1000, "the right key, offered again after each BUSY: " + offer
                + "; the stranger's answers: " + strangerSaw);
        System.out.printf("right key opened the disk %d ms after it was offered, with %d wrong-key streams in flight%n",
                offer.millis(), WRONG_KEY_STREAMS);
        System.out.printf("(each argon2id derivation takes %d ms here; the stranger's answers meanwhile: %s)%n",
                ARGON2ID.toMillis(), strangerSaw);
        assertEquals(Via.RECOVERY, waiting.get(10, TimeUnit.SECONDS).via());
    }

    @Test
    @DisplayName("a wrong key is refused by the check value without an argon2id try (PERMISSION_DENIED) and costs no slot: refused at once while the right key holds it")
    void wrongKeyRefusedByTheCheckValue() throws Exception {
        rebootedControlPlaneWaits(List.of(), true);
        var stranger = RecoveryServiceGrpc.newBlockingStub(channelFrom(STRANGER));
        awaitServing(stranger);

        var refused = refusal(() -> stranger.withDeadlineAfter(10, TimeUnit.SECONDS).recover(request(wrongKey())));
        assertEquals(Status.Code.PERMISSION_DENIED, refused.getCode(), refused.toString());
        assertTrue(refused.getDescription().contains("does not open state disk " + FakeLuks.UUID), refused.getDescription());
        assertEquals(0, keyTests(), "no argon2id try for a wrong key: " + node.luks.commands());

        CountDownLatch held = cryptsetup.holdNextTry();
        var operator = offerAsync(channelFrom(OPERATOR));
        assertTrue(held.await(10, TimeUnit.SECONDS), "the right key reached its argon2id try");
        var meanwhile = refusal(() -> stranger.withDeadlineAfter(10, TimeUnit.SECONDS).recover(request(wrongKey())));
        assertEquals(Status.Code.PERMISSION_DENIED, meanwhile.getCode(),
                "a wrong key offered while the right one holds the slot: " + meanwhile);
        cryptsetup.release();
        assertEquals(FakeLuks.UUID, operator.get(10, TimeUnit.SECONDS).getDiskUuid(), "the right key opened the disk");
        assertEquals(1, keyTests(), "one argon2id key test in all, the right key's");
    }

    @Test
    @DisplayName("a valid rejoin key offered while the slot is busy is not thrown away: on a disk without a check value, under 64 wrong-key streams, the one key the join service handed out opens the disk")
    void rejoinKeyIsNotThrownAwayWhileBusy() throws Exception {
        int servicePort = FreePorts.loopback();
        var waiting = rebootedControlPlaneWaits(List.of(new Endpoint("127.0.0.1", servicePort)), false);
        WrongKeyStreams stranger = strangerFloods();
        try (var service = new TestJoinService(serviceTpm, verifierOf(nodeTpm), servicePort)) {
            service.rejoinKey = RIGHT_KEY;
            Membership membership = waiting.get(20, TimeUnit.SECONDS);
            assertEquals(Via.REJOIN, membership.via());
            assertEquals(1, service.rejoinRequests.size(), "the node asked once: the key it got was kept, not dropped on"
                    + " BUSY to ask again; the stranger's answers: " + stranger.answers);
        }
    }

    @Test
    @DisplayName("more than 4 concurrent calls from one source are refused RESOURCE_EXHAUSTED, naming the limit, over any number of connections")
    void callsPerSourceAreCapped() throws Exception {
        assertEquals(4, RecoveryServer.CALLS_PER_SOURCE, "the row's sentence names the limit");
        rebootedControlPlaneWaits(List.of(), true);
        ManagedChannel first = channelFrom(OPERATOR);
        ManagedChannel second = channelFrom(OPERATOR);
        awaitServing(RecoveryServiceGrpc.newBlockingStub(first));
        CountDownLatch held = cryptsetup.holdNextTry();
        List<CompletableFuture<RecoverResponse>> inFlight = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            inFlight.add(offerAsync(i % 2 == 0 ? first : second));
        }
        assertTrue(held.await(10, TimeUnit.SECONDS));
        Thread.sleep(300);
        assertTrue(inFlight.stream().noneMatch(CompletableFuture::isDone), "4 calls wait, one in its key test");
        var refused = refusal(() -> RecoveryServiceGrpc.newBlockingStub(second).withDeadlineAfter(10, TimeUnit.SECONDS)
                .status(RecoveryStatusRequest.getDefaultInstance()));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode(), refused.toString());
        assertTrue(refused.getDescription().contains("4 concurrent recovery calls"), refused.getDescription());
        cryptsetup.release();
        int opened = 0;
        for (var call : inFlight) {
            opened += call.handle((answer, error) -> answer == null ? 0 : 1).get(10, TimeUnit.SECONDS);
        }
        assertEquals(1, opened, "the 4 calls let in were answered: one opened the disk, the others found it open");
    }

    // --- the node, its disk and its callers ---

    /**
     * A control plane initialized with the operator's master secret, rebooted and waiting for its
     * key; without {@code checkValue} its disk is one formatted before check values were written.
     */
    private CompletableFuture<Membership> rebootedControlPlaneWaits(List<Endpoint> joinServices, boolean checkValue)
            throws Exception {
        node = new TestNode(dir, new FakeLuks(), id -> { }, FakeKubernetes.absent());
        new InitFlow(node.bringUp, node.disk, new NodeIdentity(new InitSettings(dir.resolve("hash"), dir.resolve("log"), false,
                "control-plane-0", null)))
                .run(InitRequest.newBuilder().setMasterSecret(ByteString.copyFrom(new byte[32]))
                        .setMasterSalt(ByteString.copyFrom(new byte[32])).setMeasurementSalt(ByteString.copyFrom(new byte[32]))
                        .build(), (step, detail) -> { });
        node = node.reboot(id -> { }, FakeKubernetes.absent());
        if (!checkValue) {
            node.luks.dropCheckValue();
        }
        StateDisk slowDisk = new StateDisk(node.diskSettings, new StateMount("sextant-state", dir.resolve("state"), true),
                cryptsetup);
        var unlock = new BootUnlock(new DiskUnlocker(slowDisk, node.stateFile), new StaticDiscovery(joinServices),
                new AtlsJoinTransport(nodeTpm, ServerVerification.by(verifierOf(serviceTpm)), Duration.ofSeconds(5)), nodeTpm,
                new RecoverySettings(recoveryPort), new Backoff(Duration.ofMillis(20), Duration.ofMillis(100), () -> 1.0),
                d -> Thread.sleep(d.toMillis()));
        return CompletableFuture.supplyAsync(() -> {
            try {
                return unlock.await(FakeLuks.UUID, true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The node's cryptsetup: FakeLuks, with each derivation as slow as {@link #ARGON2ID}; a test may hold one try. */
    private final class SlowCryptsetup implements CommandRunner {
        private volatile CountDownLatch started = new CountDownLatch(1);
        private volatile CountDownLatch release = new CountDownLatch(0);

        /** The next key derivation waits for {@link #release()}; the latch opens when it has begun. */
        CountDownLatch holdNextTry() {
            started = new CountDownLatch(1);
            release = new CountDownLatch(1);
            return started;
        }

        void release() {
            release.countDown();
        }

        @Override
        public Result run(List<String> argv, byte[] stdin) throws java.io.IOException, InterruptedException {
            if (argv.get(0).equals("cryptsetup") && argv.get(1).equals("open")) {
                started.countDown();
                release.await();
                Thread.sleep(ARGON2ID.toMillis());
            }
            return node.luks.run(argv, stdin);
        }
    }

    private long keyTests() {
        return node.luks.commands().stream().filter("open --test-passphrase"::equals).count();
    }

    /** A connection to the recovery port from {@code source}, verifying the node as the operator's CLI does. */
    private ManagedChannel channelFrom(String source) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", recoveryPort)
                .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
                    @Override
                    public SocketAddress createSocketAddress(SocketAddress remote, Attributes attrs) {
                        return new InetSocketAddress(source, 0);
                    }
                })
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(verifierOf(nodeTpm)))).build();
        open.add(channel::shutdownNow);
        return channel;
    }

    private WrongKeyStreams strangerFloods() throws Exception {
        ManagedChannel channel = channelFrom(STRANGER);
        awaitServing(RecoveryServiceGrpc.newBlockingStub(channel));
        WrongKeyStreams streams = new WrongKeyStreams(channel, WRONG_KEY_STREAMS);
        open.add(streams);
        streams.awaitAnswers(2 * WRONG_KEY_STREAMS);
        return streams;
    }

    /** Wrong-key Recover calls on one connection, each sent again the moment it is answered, until closed. */
    private static final class WrongKeyStreams implements AutoCloseable {
        final Map<Status.Code, AtomicInteger> answers = new ConcurrentHashMap<>();
        private final AtomicInteger answered = new AtomicInteger();
        private final RecoveryServiceGrpc.RecoveryServiceStub stub;
        private volatile boolean closed;

        WrongKeyStreams(ManagedChannel channel, int streams) {
            stub = RecoveryServiceGrpc.newStub(channel);
            for (int i = 0; i < streams; i++) {
                send();
            }
        }

        private void send() {
            stub.recover(request(wrongKey()), new StreamObserver<>() {
                @Override
                public void onNext(RecoverResponse value) {
                }

                @Override
                public void onError(Throwable t) {
                    answered(Status.fromThrowable(t).getCode());
                }

                @Override
                public void onCompleted() {
                    answered(Status.Code.OK);
                }
            });
        }

        private void answered(Status.Code code) {
            answers.computeIfAbsent(code, c -> new AtomicInteger()).incrementAndGet();
            answered.incrementAndGet();
            if (!closed) {
                send();
            }
        }

        void awaitAnswers(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (answered.get() < count && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** What the operator's CLI saw: BUSY answers, and whether and how soon after the first offer the disk opened. */
    private record Offer(boolean opened, long millis, int busy) {
        @Override
        public String toString() {
            return "BUSY " + busy + ", opened " + (opened ? 1 : 0) + " after " + millis + " ms";
        }
    }

    /**
     * Offers the right key as the CLI does, again after each UNAVAILABLE (BUSY), until it opens or
     * {@code patience} passes; it pauses 100 ms between offers (the CLI pauses a second and more).
     */
    private Offer offerLikeTheCli(ManagedChannel channel, Duration patience) throws InterruptedException {
        var stub = RecoveryServiceGrpc.newBlockingStub(channel);
        long start = System.nanoTime();
        int busy = 0;
        while (System.nanoTime() - start < patience.toNanos()) {
            try {
                stub.withDeadlineAfter(patience.toMillis(), TimeUnit.MILLISECONDS).recover(request(RIGHT_KEY));
                return new Offer(true, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), busy);
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
                    throw e;
                }
                busy++;
                Thread.sleep(100);
            }
        }
        return new Offer(false, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), busy);
    }

    private CompletableFuture<RecoverResponse> offerAsync(ManagedChannel channel) {
        return CompletableFuture.supplyAsync(() -> RecoveryServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS).recover(request(RIGHT_KEY)));
    }

    private static void awaitServing(RecoveryServiceGrpc.RecoveryServiceBlockingStub stub) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                stub.withDeadlineAfter(5, TimeUnit.SECONDS).status(RecoveryStatusRequest.getDefaultInstance());
                return;
            } catch (StatusRuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static Status refusal(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
        throw new AssertionError("the call was answered, not refused");
    }

    private static RecoverRequest request(byte[] key) {
        return RecoverRequest.newBuilder().setDiskUuid(FakeLuks.UUID).setStateDiskKey(ByteString.copyFrom(key)).build();
    }

    private static byte[] wrongKey() {
        byte[] key = new byte[32];
        ThreadLocalRandom.current().nextBytes(key);
        return key;
    }

    private static DocumentVerifier verifierOf(SoftwareTpmAttester tpm) {
        return new DocumentVerifier(new VerifierPolicy(tpm.measurements(), AkTrust.ekCa(tpm.anchors())));
    }
}
