package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("A re-attestation round: each bound machine's fresh quote over aTLS, checked like a join's and against its binding")
class ReAttestationRoundTest {
    private final byte[] clusterId = random();
    private SwtpmNode healthy;
    private SwtpmNode changed;
    private SwtpmNode bound;
    private SwtpmNode unbound;
    private Measurements image;
    private final AtomicReference<MeasurementSet> setInForce = new AtomicReference<>();
    private ReAttestationRound round;
    private NodeCall call;
    private Function<String, Optional<String>> bindings;

    @BeforeAll
    void start() throws Exception {
        Swtpm.assumeAvailable();
        healthy = SwtpmNode.member(clusterId);
        changed = SwtpmNode.member(clusterId);
        bound = SwtpmNode.member(clusterId);
        unbound = SwtpmNode.member(clusterId);
        image = healthy.imageMeasurements();
        setInForce.set(new MeasurementSet(1, image.variant(), List.of(new ImageMeasurements("1.0", image)), List.of()));
        AkTrust trust = AkTrust.ekCa(List.of(healthy.ekCa(), changed.ekCa(), bound.ekCa(), unbound.ekCa()));
        BouncyCastleEcdsa ecdsa = new BouncyCastleEcdsa(new SecureRandom());
        ClusterEvidence policy = new ClusterEvidence(setInForce::get, trust, ecdsa, clusterId);
        Map<String, String> nodeOfAk = Map.of(healthy.ak(), "healthy", changed.ak(), "changed", bound.ak(), "bound");
        bindings = ak -> Optional.ofNullable(nodeOfAk.get(ak));
        call = new NodeCall(policy, ecdsa, Duration.ofSeconds(5));
        round = new ReAttestationRound(call::ask, 16);
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {round, healthy, changed, bound, unbound}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private NodeOutcome one(BoundMachine machine) throws InterruptedException {
        ReAttestationRound.Result result = round.run(List.of(machine), bindings);
        System.out.println("round: " + result.summary());
        return result.outcomes().get(machine.name());
    }

    /** One round over {@code node} alone, in a round of its own whose EK CA is that node's TPM's. */
    private NodeOutcome ownRound(SwtpmNode node) throws Exception {
        ClusterEvidence policy = new ClusterEvidence(setInForce::get, AkTrust.ekCa(List.of(node.ekCa())),
                new BouncyCastleEcdsa(new SecureRandom()), clusterId);
        try (ReAttestationRound own = new ReAttestationRound(new NodeCall(policy, new BouncyCastleEcdsa(new SecureRandom()),
                Duration.ofSeconds(5))::ask, 1)) {
            return own.run(List.of(new BoundMachine("own", node.ak(), node.endpoint(), "worker")), ak -> Optional.empty())
                    .outcomes().get("own");
        }
    }

    @Test
    @DisplayName("a member whose bound AK quotes an admitted image and this cluster's PCR 15 is attested, naming the image version")
    void healthyMemberAttested() throws Exception {
        NodeOutcome outcome = one(new BoundMachine("healthy", healthy.ak(), healthy.endpoint(), "worker"));
        assertEquals(new NodeOutcome.Attested("1.0"), outcome);
    }

    @Test
    @DisplayName("a member that extended a checked PCR fails with PCR_MISMATCH naming the PCR")
    void pcrChangeFails() throws Exception {
        BoundMachine machine = new BoundMachine("changed", changed.ak(), changed.endpoint(), "worker");
        assertInstanceOf(NodeOutcome.Attested.class, one(machine));
        changed.extend(9);
        NodeOutcome.Failed failed = assertInstanceOf(NodeOutcome.Failed.class, one(machine));
        assertEquals(RevocationReason.PCR_MISMATCH, failed.reason());
        assertTrue(failed.detail().contains("PCR 9"), failed.detail());
    }

    @Test
    @DisplayName("a member that rebooted and has not rejoined yet (PCR 15 still zero, the image admitted) has missed the round, not failed")
    void rebootingMemberMissed() throws Exception {
        try (SwtpmNode rebooting = SwtpmNode.rebooting()) {
            NodeOutcome.Missed missed = assertInstanceOf(NodeOutcome.Missed.class, ownRound(rebooting));
            assertTrue(missed.why().contains("has not rejoined yet"), missed.why());
        }
    }

    @Test
    @DisplayName("a member of a PCR-15 mark of another cluster fails with PCR_MISMATCH naming PCR 15")
    void otherClusterFails() throws Exception {
        try (SwtpmNode other = SwtpmNode.member(random())) {
            NodeOutcome.Failed failed = assertInstanceOf(NodeOutcome.Failed.class, ownRound(other));
            assertEquals(RevocationReason.PCR_MISMATCH, failed.reason());
            assertTrue(failed.detail().contains("PCR 15"), failed.detail());
        }
    }

    @Test
    @DisplayName("a member still on an image the set in force retired fails with IMAGE_RETIRED naming the version")
    void retiredImageFails() throws Exception {
        MeasurementSet before = setInForce.get();
        byte[] newUki = new byte[32];
        Arrays.fill(newUki, (byte) 0x42);
        setInForce.set(new MeasurementSet(2, image.variant(), List.of(new ImageMeasurements("2.0", image.enforcing(4, newUki))),
                List.of(new ImageMeasurements("1.0", image))));
        try {
            NodeOutcome.Failed failed = assertInstanceOf(NodeOutcome.Failed.class,
                    one(new BoundMachine("healthy", healthy.ak(), healthy.endpoint(), "worker")));
            assertEquals(RevocationReason.IMAGE_RETIRED, failed.reason());
            assertTrue(failed.detail().contains("1.0"), failed.detail());
        } finally {
            setInForce.set(before);
        }
    }

    @Test
    @DisplayName("a member the host booted from a retired image fails with IMAGE_RETIRED also before it rejoined"
            + " (PCR 15 still zero): a retired image is no rebooting member's missed round")
    void retiredImageBeforeRejoinFails() throws Exception {
        MeasurementSet before = setInForce.get();
        byte[] newUki = new byte[32];
        Arrays.fill(newUki, (byte) 0x42);
        setInForce.set(new MeasurementSet(2, image.variant(), List.of(new ImageMeasurements("2.0", image.enforcing(4, newUki))),
                List.of(new ImageMeasurements("1.0", image))));
        try (SwtpmNode rebooting = SwtpmNode.rebooting()) {
            NodeOutcome.Failed failed = assertInstanceOf(NodeOutcome.Failed.class, ownRound(rebooting));
            assertEquals(RevocationReason.IMAGE_RETIRED, failed.reason());
            assertTrue(failed.detail().contains("1.0"), failed.detail());
        } finally {
            setInForce.set(before);
        }
    }

    @Test
    @DisplayName("valid evidence of this cluster from an AK bound to no node, at a member's endpoint, is AK_MISMATCH")
    void akSwapFails() throws Exception {
        NodeOutcome.Failed failed = assertInstanceOf(NodeOutcome.Failed.class,
                one(new BoundMachine("swapped", healthy.ak(), unbound.endpoint(), "worker")));
        assertEquals(RevocationReason.AK_MISMATCH, failed.reason());
    }

    @Test
    @DisplayName("a member that does not answer has missed the round, saying why")
    void silentMemberMissed() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        NodeOutcome.Missed missed = assertInstanceOf(NodeOutcome.Missed.class,
                one(new BoundMachine("silent", healthy.ak(), "127.0.0.1:" + closedPort, "worker")));
        assertTrue(missed.why().contains("UNAVAILABLE"), missed.why());
    }

    @Test
    @DisplayName("a round asks many members at once and judges each on its own")
    void manyAtOnce() throws Exception {
        List<BoundMachine> machines = List.of(new BoundMachine("healthy", healthy.ak(), healthy.endpoint(), "worker"),
                new BoundMachine("bound", bound.ak(), bound.endpoint(), "worker"),
                new BoundMachine("nowhere", unbound.ak(), "not an endpoint", "worker"));
        ReAttestationRound.Result result = round.run(machines, bindings);
        System.out.println("round: " + result.summary());
        assertEquals(new NodeOutcome.Attested("1.0"), result.outcomes().get("healthy"));
        assertEquals(new NodeOutcome.Attested("1.0"), result.outcomes().get("bound"));
        assertInstanceOf(NodeOutcome.Missed.class, result.outcomes().get("nowhere"));
    }

    @Test
    @DisplayName("a round of 30 calls, 6 in flight, over three swtpm nodes: every one attested (the round's time in the log)")
    void roundFigure() throws Exception {
        // A node's aTLS port takes at most 4 unfinished handshakes per source (HandshakeLimits.defaults()); a
        // real round asks each node once, here each of three nodes answers ten entries, two at a time.
        List<BoundMachine> machines = new java.util.ArrayList<>();
        SwtpmNode[] nodes = {healthy, bound, unbound};
        for (int i = 0; i < 30; i++) {
            SwtpmNode node = nodes[i % nodes.length];
            machines.add(new BoundMachine("member-" + i, node.ak(), node.endpoint(), "worker"));
        }
        try (ReAttestationRound six = new ReAttestationRound(call::ask, 6)) {
            six.run(machines, bindings); // warm: the AK chains are cached after the first round, as in a running service
            ReAttestationRound.Result result = six.run(machines, bindings);
            System.out.println("round figure (3 swtpm processes, 6 calls in flight, 2 cores shared): " + result.summary());
            assertEquals(30, result.count(NodeOutcome.Attested.class), result.outcomes().toString());
        }
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
