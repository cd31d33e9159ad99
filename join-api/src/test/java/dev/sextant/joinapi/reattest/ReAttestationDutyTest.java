package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("The re-attestation duty: one join service at a time re-attests every bound machine and writes the results to etcd")
class ReAttestationDutyTest {
    private static final Duration PERIOD = Duration.ofSeconds(1);
    private static final int MISSED_PERIODS = 3;

    private final byte[] clusterId = random();
    private TestClusterStore etcd;
    private SwtpmNode healthy;
    private SwtpmNode changing;
    private SwtpmNode unbound;
    private MeasurementSet set;
    private AkTrust trust;
    private final List<AutoCloseable> perTest = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        Swtpm.assumeAvailable();
        etcd = new TestClusterStore(1);
        healthy = SwtpmNode.member(clusterId);
        changing = SwtpmNode.member(clusterId);
        unbound = SwtpmNode.member(clusterId);
        Measurements image = healthy.imageMeasurements();
        set = new MeasurementSet(1, image.variant(), List.of(new ImageMeasurements("1.0", image)), List.of());
        trust = AkTrust.ekCa(List.of(healthy.ekCa(), changing.ekCa(), unbound.ekCa()));
    }

    @AfterEach
    void stopDuties() throws Exception {
        for (AutoCloseable c : perTest) {
            c.close();
        }
        perTest.clear();
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {healthy, changing, unbound, etcd}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** A join service's view of the cluster store: its own etcd client, the node-state store over it. */
    private record Service(EtcdConnection connection, NodeStateStore store) implements AutoCloseable {
        @Override
        public void close() {
            connection.close();
        }
    }

    private Service service(String name) {
        EtcdConnection connection = new EtcdConnection(new EtcdClientConfig(etcd.endpoints(), etcd.etcd().clientTls(name),
                Duration.ofSeconds(2)));
        Service service = new Service(connection, new NodeStateStore(connection, Clock.systemUTC()));
        perTest.add(service);
        return service;
    }

    private ReAttestationDuty duty(Service service, String holderName) {
        BouncyCastleEcdsa ecdsa = new BouncyCastleEcdsa(new SecureRandom());
        ReAttestationSettings settings = new ReAttestationSettings(true, PERIOD, Duration.ofSeconds(2), 16, MISSED_PERIODS, holderName);
        ReAttestationDuty duty = new ReAttestationDuty(service.connection()::client, service.store(),
                () -> new ReAttestationRound(new NodeCall(new ClusterEvidence(() -> set, trust, ecdsa, clusterId), ecdsa,
                        settings.callDeadline())::ask, settings.parallel()),
                RevocationPublisher.none(), settings, holderName, Clock.systemUTC());
        perTest.add(duty);
        return duty.start();
    }

    /** What a first join leaves in etcd for a node (its bindings) and what its ticket request reports (its endpoint). */
    private void bind(String name, String ak, String endpoint) throws Exception {
        etcd.admin().put("/sextant/v1/bindings/node/" + name, ak);
        etcd.admin().put("/sextant/v1/bindings/machine/" + ak + "/node", name);
        etcd.admin().put("/sextant/v1/bindings/machine/" + ak + "/role", "worker");
        service("binder-" + name).store().recordEndpoint(name, endpoint);
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what);
            }
            Thread.sleep(50);
        }
    }

    private Optional<AttestationRecord> attestation(NodeStateStore store, String node) {
        try {
            return store.attestation(node);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private Optional<Revocation> revocation(NodeStateStore store, String ak) {
        try {
            return store.revocation(ak);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("a member that changes a checked PCR is revoked with PCR_MISMATCH naming it, by the holder, and the counter rises")
    void pcrChangeRevokes() throws Exception {
        Service a = service("cp-a");
        bind("w-pcr", changing.ak(), changing.endpoint());
        duty(a, "cp-a");
        await("w-pcr is attested", Duration.ofSeconds(20),
                () -> attestation(a.store(), "w-pcr").map(r -> r.state() == AttestationState.ATTESTED).orElse(false));
        assertEquals(Optional.of("1.0"), attestation(a.store(), "w-pcr").orElseThrow().imageVersion());
        long versionBefore = a.store().revocations().version();
        changing.extend(9);
        Instant changed = Instant.now();
        await("w-pcr is revoked", Duration.ofSeconds(20), () -> revocation(a.store(), changing.ak()).isPresent());
        System.out.println("PCR change -> revoked in etcd: " + Duration.between(changed, Instant.now()).toMillis()
                + " ms with a period of " + PERIOD.toMillis() + " ms");
        Revocation revoked = revocation(a.store(), changing.ak()).orElseThrow();
        assertTrue(revoked.reason().startsWith("PCR_MISMATCH: ") && revoked.reason().contains("PCR 9"), revoked.reason());
        assertEquals("w-pcr", revoked.node());
        assertEquals("cp-a", revoked.by());
        assertEquals(AttestationState.REVOKED, attestation(a.store(), "w-pcr").orElseThrow().state());
        assertEquals(versionBefore + 1, a.store().revocations().version());
    }

    @Test
    @DisplayName("valid evidence from an AK bound to no node at a member's endpoint revokes that member with AK_MISMATCH")
    void akSwapRevokes() throws Exception {
        Service a = service("cp-a");
        String boundAk = "000b" + "ab".repeat(32);
        bind("w-swap", boundAk, unbound.endpoint());
        duty(a, "cp-a");
        await("w-swap is revoked", Duration.ofSeconds(20), () -> revocation(a.store(), boundAk).isPresent());
        assertTrue(revocation(a.store(), boundAk).orElseThrow().reason().startsWith("AK_MISMATCH: "));
    }

    @Test
    @DisplayName("a member that stops answering is unreachable, and revoked UNREACHABLE only once it missed missed-periods rounds in a row")
    void unreachableThenRevoked() throws Exception {
        Service a = service("cp-a");
        String ak = "000b" + "cd".repeat(32);
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        bind("w-gone", ak, "127.0.0.1:" + closedPort);
        ReAttestationDuty duty = duty(a, "cp-a");
        List<Integer> missedSeen = new ArrayList<>();
        await("w-gone is revoked", Duration.ofSeconds(30), () -> {
            attestation(a.store(), "w-gone").filter(r -> r.state() == AttestationState.UNREACHABLE)
                    .ifPresent(r -> {
                        if (!missedSeen.contains(r.missed())) {
                            missedSeen.add(r.missed());
                        }
                        assertFalse(revocation(a.store(), ak).isPresent() && r.missed() < MISSED_PERIODS - 1);
                    });
            return revocation(a.store(), ak).isPresent();
        });
        assertTrue(missedSeen.contains(MISSED_PERIODS - 1), "it was unreachable with " + (MISSED_PERIODS - 1)
                + " missed rounds before it was revoked; seen " + missedSeen);
        Revocation revoked = revocation(a.store(), ak).orElseThrow();
        assertTrue(revoked.reason().startsWith("UNREACHABLE: missed " + MISSED_PERIODS + " rounds in a row"), revoked.reason());
        assertTrue(duty.lastRound().isPresent());
    }

    @Test
    @DisplayName("two join services: one holds the duty; when its etcd client dies, the other takes it and the rounds go on")
    void dutyMoves() throws Exception {
        Service a = service("cp-a");
        Service b = service("cp-b");
        bind("w-steady", healthy.ak(), healthy.endpoint());
        ReAttestationDuty dutyA = duty(a, "cp-a");
        ReAttestationDuty dutyB = duty(b, "cp-b");
        await("one of them holds the duty", Duration.ofSeconds(10), () -> dutyA.isHolder() || dutyB.isHolder());
        assertFalse(dutyA.isHolder() && dutyB.isHolder(), "never two holders");
        boolean aHeld = dutyA.isHolder();
        Service first = aHeld ? a : b;
        ReAttestationDuty other = aHeld ? dutyB : dutyA;
        String otherName = aHeld ? "cp-b" : "cp-a";
        await("the holder attested w-steady", Duration.ofSeconds(10),
                () -> attestation(first.store(), "w-steady").map(r -> r.state() == AttestationState.ATTESTED).orElse(false));
        assertFalse(other.lastRound().isPresent(), "a service that does not hold the duty runs no round");

        Instant died = Instant.now();
        first.connection().close(); // the holder's etcd client dies: its keep-alive fails
        await("the other holds the duty", Duration.ofSeconds(10), other::isHolder);
        System.out.println("duty moved " + Duration.between(died, Instant.now()).toMillis() + " ms after the holder's etcd client died (lease 2 s)");
        assertEquals(Optional.of(otherName), etcd.admin().get(ReAttestationDuty.HOLDER_KEY));
        Instant before = attestation(b.store(), "w-steady").orElseThrow().lastSuccess().orElseThrow();
        await("the new holder re-attests w-steady", Duration.ofSeconds(10), () -> other.lastRound().isPresent()
                && attestation(other == dutyB ? b.store() : a.store(), "w-steady").flatMap(AttestationRecord::lastSuccess)
                .map(t -> t.isAfter(before)).orElse(false));
        assertNotEquals(aHeld, dutyA.isHolder());
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
