package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.binding.BindingKey;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.binding.EtcdBindingStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.measurements.MeasurementsFloor;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.io.StringWriter;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Whoever can write the join service's ConfigMaps (or its files) can put any set there together with the
 * public key that verifies it. The key the cluster trusts is pinned in etcd ({@code measurements/key}) when
 * the init node's join service starts (else at the first ticket), and moves only by a set signed by the
 * pinned key that names the next one.
 */
@DisplayName("Attacks on the measurement signing key: a swapped key, a self-signed rotation, the old key after a rotation")
class MeasurementSigningKeyAttacksTest {
    private static final String PIN = "/sextant/v1/measurements/key";
    private static final String FLOOR = "/sextant/v1/measurements/floor";

    private TestCluster cluster;
    private TestClusterStore etcd;
    private KeyPair pinned;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
        pinned = cluster.signingKey;
        cluster.publishMeasurements(5, pinned, null, pinned.getPublic());
    }

    /** The first join service to serve pins the key of the set it holds. */
    private void firstTicket() throws Exception {
        assertEquals(Status.Code.OK, withService(join("pin-first")).getCode());
        assertEquals(Optional.of(fingerprint(pinned.getPublic())), etcd.admin().get(PIN), "the first ticket pins the signing key");
    }

    @Test
    @DisplayName("a swap of both the set and its key after init, before any node joined, is refused: the init node's "
            + "join service pinned the key when it started, before serving")
    void swapBeforeTheFirstJoin() throws Exception {
        Map<String, Object> initNode = Map.of(
                JoinServiceConfig.INIT_NODE_AK_NAME, HexFormat.of().formatHex(TestCaller.ak("key-cp-0")),
                JoinServiceConfig.INIT_NODE_NODE_NAME, "key-cp-0",
                JoinServiceConfig.INIT_NODE_DISK_UUIDS, UUID.randomUUID().toString());
        try (Service init = new Service(initNode)) {
            assertEquals(Optional.of(fingerprint(pinned.getPublic())), etcd.admin().get(PIN), "pinned at start-up, before any ticket");
            assertEquals(Optional.of("5"), etcd.admin().get(FLOOR));
        }
        KeyPair attacker = ed25519();
        cluster.publishMeasurements(6, attacker, null, attacker.getPublic());
        try (Service restarted = new Service(initNode)) {
            assertNotPinned(restarted.call(join("first-joiner")), attacker.getPublic(), pinned.getPublic());
        }
        assertEquals(Optional.of(fingerprint(pinned.getPublic())), etcd.admin().get(PIN));
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    @Test
    @DisplayName("a set signed by a key the cluster never pinned is refused, whatever its version (1000 or 1): "
            + "FAILED_PRECONDITION naming both fingerprints and no key, nothing bound, floor and pin unchanged")
    void unpinnedKeyRefusedWhateverItsVersion() throws Exception {
        firstTicket();
        KeyPair stranger = ed25519();
        for (long version : new long[]{1000, 1}) {
            cluster.publishMeasurements(version, stranger, null, stranger.getPublic());
            Status refused = withService(join("stranger-" + version));
            assertEquals(Optional.of("5"), etcd.admin().get(FLOOR), "an unpinned key's set raised the floor");
            assertNotPinned(refused, stranger.getPublic(), pinned.getPublic());
            assertEquals(Optional.empty(), etcd.admin().get("/sextant/v1/bindings/node/stranger-" + version), "the refused join bound its name");
        }
        assertEquals(Optional.of(fingerprint(pinned.getPublic())), etcd.admin().get(PIN));

        cluster.publishMeasurements(6, pinned, null, pinned.getPublic());
        assertEquals(Status.Code.OK, withService(join("pinned-again")).getCode(), "the pinned key's next set serves");
    }

    @Test
    @DisplayName("a ConfigMap swap of both the set and its key under a running join service (reloaded, a higher version) "
            + "is refused at the next ticket; the operator's set put back serves again")
    void swapOfSetAndKeyUnderARunningService() throws Exception {
        KeyPair attacker = ed25519();
        firstTicket();
        try (Service service = new Service()) {
            assertEquals(Status.Code.OK, service.call(join("before-swap")).getCode());

            cluster.publishMeasurements(9, attacker, null, attacker.getPublic());
            service.verifier().reload(); // or its watcher did already
            assertEquals(9, service.verifier().version(), "the swapped files verify with each other, so the service loads them");
            assertNotPinned(service.call(join("after-swap")), attacker.getPublic(), pinned.getPublic());
            assertEquals(Optional.empty(), etcd.admin().get("/sextant/v1/bindings/node/after-swap"));
            assertEquals(Optional.of("5"), etcd.admin().get(FLOOR));

            cluster.publishMeasurements(10, pinned, null, pinned.getPublic());
            service.verifier().reload();
            assertEquals(10, service.verifier().version());
            assertEquals(Status.Code.OK, service.call(join("after-swap")).getCode());
        }
    }

    @Test
    @DisplayName("a rotation signed by the new key alone (a set signed by NEW naming NEW as the next key) is refused; the pin stays")
    void rotationSignedByTheNewKeyAlone() throws Exception {
        firstTicket();
        KeyPair next = ed25519();
        cluster.publishMeasurements(6, next, next.getPublic(), next.getPublic());
        assertNotPinned(withService(join("self-rotated")), next.getPublic(), pinned.getPublic());
        assertEquals(Optional.of(fingerprint(pinned.getPublic())), etcd.admin().get(PIN));
        assertEquals(Optional.of("5"), etcd.admin().get(FLOOR));
    }

    @Test
    @DisplayName("after a rotation (a set signed by the pinned key naming NEW) the old key's sets are refused, "
            + "with or without a next key; NEW's sets serve, and so does the rotating set itself")
    void oldKeyRefusedAfterARotation() throws Exception {
        firstTicket();
        KeyPair next = ed25519();
        cluster.publishMeasurements(6, pinned, next.getPublic(), pinned.getPublic());
        assertEquals(Status.Code.OK, withService(join("rotating")).getCode());
        String pin = etcd.admin().get(PIN).orElseThrow();
        assertTrue(pin.startsWith(fingerprint(next.getPublic()) + " from " + fingerprint(pinned.getPublic()) + " by-set sha256:"),
                pin);
        assertTrue(pin.endsWith(" version 6"), pin);
        assertEquals(Optional.of("6"), etcd.admin().get(FLOOR));
        assertEquals(Status.Code.OK, withService(join("rotating-again")).getCode(), "the rotating set itself, still in force");

        cluster.publishMeasurements(7, pinned, null, pinned.getPublic());
        assertNotPinned(withService(join("old-key")), pinned.getPublic(), next.getPublic());
        cluster.publishMeasurements(7, pinned, next.getPublic(), pinned.getPublic());
        assertNotPinned(withService(join("old-key-naming-next")), pinned.getPublic(), next.getPublic());
        assertEquals(Optional.of("6"), etcd.admin().get(FLOOR));

        cluster.publishMeasurements(7, next, null, next.getPublic());
        assertEquals(Status.Code.OK, withService(join("new-key")).getCode());
        assertEquals(Optional.of("7"), etcd.admin().get(FLOOR));
    }

    @Test
    @DisplayName("two join services admitting at once against the cluster's etcd: a rotation (a set of the floor's version "
            + "signed by the pinned key, naming NEW) lands between another service's read and its write of an old-key set "
            + "(7): that set is refused MEASUREMENTS_KEY_NOT_PINNED and raises no floor; the floor and the pin never disagree")
    void concurrentAdmissionsNeverDisagree() throws Exception {
        firstTicket();
        KeyPair next = ed25519();
        cluster.publishMeasurements(7, pinned, null, pinned.getPublic());
        ReloadingVerifier oldKey = verifier();
        cluster.publishMeasurements(5, pinned, next.getPublic(), pinned.getPublic()); // moves the pin, not the floor
        ReloadingVerifier rotating = verifier();
        try (EtcdConnection a = connection("rotating-join"); EtcdConnection b = connection("old-key-join")) {
            MeasurementsFloor rotatingService = new MeasurementsFloor(new EtcdBindingStore(a), rotating);
            BindingStore interleaved = new AfterFirstMeasurementsRead(new EtcdBindingStore(b), rotatingService::admitSetInForce);
            Refusal r = assertThrows(Refusal.class, () -> new MeasurementsFloor(interleaved, oldKey).admitSetInForce(),
                    "a set of the old key admitted after the pin moved");
            assertEquals(JoinRefusal.MEASUREMENTS_KEY_NOT_PINNED, r.reason());
            assertTrue(r.getMessage().contains("signed by key " + fingerprint(pinned.getPublic()) + ", but the cluster pinned key "
                    + fingerprint(next.getPublic())), r.getMessage());
        }
        assertTrue(etcd.admin().get(PIN).orElseThrow().startsWith(fingerprint(next.getPublic()) + " from "));
        assertEquals(Optional.of("5"), etcd.admin().get(FLOOR), "the floor was raised by a set whose key is not the pin");
    }

    private ReloadingVerifier verifier() throws Exception {
        return new ReloadingVerifier(cluster.measurements, ReloadingVerifier.PublicKeySource.file(cluster.measurementsPublicKey),
                AkTrust.insecureTrustAnyAk(), new BouncyCastleEcdsa(new SecureRandom()));
    }

    private EtcdConnection connection(String client) {
        return new EtcdConnection(new EtcdClientConfig(List.of(etcd.etcd().member("etcd-0").clientEndpoint()),
                etcd.etcd().clientTls(client), Duration.ofSeconds(2)));
    }

    /** The cluster store, with another join service's admission run once right after the first read of the pin and floor. */
    private static final class AfterFirstMeasurementsRead implements BindingStore {
        interface Admission {
            void run() throws Refusal;
        }

        private final BindingStore store;
        private Admission other;

        AfterFirstMeasurementsRead(BindingStore store, Admission other) {
            this.store = store;
            this.other = other;
        }

        @Override
        public MeasurementsRead measurements() throws Refusal {
            MeasurementsRead read = store.measurements();
            if (other != null) {
                Admission now = other;
                other = null;
                now.run();
            }
            return read;
        }

        @Override
        public boolean admitMeasurements(MeasurementsRead read, Optional<String> keyPin, OptionalLong floor) throws Refusal {
            return store.admitMeasurements(read, keyPin, floor);
        }

        @Override
        public CreateOutcome createAll(Map<BindingKey, String> bindings, OptionalLong controlPlanesUnchangedSince) throws Refusal {
            return store.createAll(bindings, controlPlanesUnchangedSince);
        }

        @Override
        public Optional<String> lookup(BindingKey key) throws Refusal {
            return store.lookup(key);
        }

        @Override
        public Admitted controlPlanes() throws Refusal {
            return store.controlPlanes();
        }

        @Override
        public long roundTrips() {
            return store.roundTrips();
        }
    }

    private static void assertNotPinned(Status refused, PublicKey signer, PublicKey pin) throws Exception {
        assertEquals(Status.Code.FAILED_PRECONDITION, refused.getCode(), refused.toString());
        String message = refused.getDescription();
        assertTrue(message.contains("signed by key " + fingerprint(signer) + ", but the cluster pinned key " + fingerprint(pin)), message);
        assertFalse(message.contains("BEGIN") || message.contains(pem(signer).lines().skip(1).findFirst().orElseThrow()),
                "a key in the message: " + message);
    }

    private static String fingerprint(PublicKey key) throws Exception {
        return MeasurementsKey.of(pem(key)).fingerprint();
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }

    private static KeyPair ed25519() throws Exception {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    private interface Call {
        Status run(ManagedChannel channel);
    }

    /** A join service on the files as they are now, kept running. */
    private final class Service implements AutoCloseable {
        private final ApplicationContext context;
        private final ManagedChannel channel;

        Service() {
            this(Map.of());
        }

        Service(Map<String, Object> extra) {
            Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "key-join"));
            p.put("grpc.server.port", "0");
            p.putAll(extra);
            context = ApplicationContext.run(p, "test");
            GrpcEmbeddedServer server = context.getBean(GrpcEmbeddedServer.class);
            server.start();
            channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        }

        Status call(Call call) {
            return call.run(channel);
        }

        ReloadingVerifier verifier() {
            return context.getBean(ReloadingVerifier.class);
        }

        @Override
        public void close() throws Exception {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            context.close();
        }
    }

    /** One lifetime of the join service: started on the files as they are now, stopped after the call. */
    private Status withService(Call call) throws Exception {
        try (Service service = new Service()) {
            return service.call(call);
        }
    }

    private static Call join(String machine) {
        return channel -> {
            try {
                TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(IssueJoinTicketRequest.newBuilder()
                        .setDiskUuid(UUID.randomUUID().toString()).setNodeName(machine).build());
                return Status.OK;
            } catch (StatusRuntimeException e) {
                return e.getStatus();
            }
        };
    }
}
