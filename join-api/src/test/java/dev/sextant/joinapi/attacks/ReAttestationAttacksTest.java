package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.joinapi.reattest.BoundMachine;
import dev.sextant.joinapi.reattest.ClusterEvidence;
import dev.sextant.joinapi.reattest.NodeCall;
import dev.sextant.joinapi.reattest.NodeOutcome;
import dev.sextant.joinapi.reattest.ReAttestationRound;
import dev.sextant.joinapi.reattest.SwtpmNode;
import dev.sextant.joinapi.reattest.Transition;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The host owns the network: it can point a node's endpoint anywhere, replay what a node said before,
 * or answer with a TPM of its own. None of that may attest a node it is not, nor revoke one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Re-attestation attacks")
class ReAttestationAttacksTest {
    private final byte[] clusterId = random();
    private SwtpmNode victim;
    private SwtpmNode neighbour;
    private SwtpmNode replaying;
    private SwtpmNode hostsOwn;
    private ReAttestationRound round;
    private Function<String, Optional<String>> bindings;

    @BeforeAll
    void start() throws Exception {
        Swtpm.assumeAvailable();
        victim = SwtpmNode.member(clusterId);
        neighbour = SwtpmNode.member(clusterId);
        replaying = SwtpmNode.member(clusterId);
        hostsOwn = SwtpmNode.member(clusterId); // a genuine-looking TPM whose EK CA the cluster does not trust
        Measurements image = victim.imageMeasurements();
        MeasurementSet set = new MeasurementSet(1, image.variant(), List.of(new ImageMeasurements("1.0", image)), List.of());
        BouncyCastleEcdsa ecdsa = new BouncyCastleEcdsa(new SecureRandom());
        AkTrust trust = AkTrust.ekCa(List.of(victim.ekCa(), neighbour.ekCa(), replaying.ekCa()));
        Map<String, String> nodeOfAk = Map.of(victim.ak(), "victim", neighbour.ak(), "neighbour", replaying.ak(), "replaying");
        bindings = ak -> Optional.ofNullable(nodeOfAk.get(ak));
        round = new ReAttestationRound(new NodeCall(new ClusterEvidence(() -> set, trust, ecdsa, clusterId), ecdsa,
                Duration.ofSeconds(5))::ask, 4);
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {round, victim, neighbour, replaying, hostsOwn}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @DisplayName("an answer from another member's AK at this node's endpoint is a missed round (a misdirected endpoint), revoking neither")
    void misdirectedEndpoint() throws Exception {
        ReAttestationRound.Result result = round.run(List.of(new BoundMachine("victim", victim.ak(), neighbour.endpoint(), "worker"),
                new BoundMachine("neighbour", neighbour.ak(), neighbour.endpoint(), "worker")), bindings);
        NodeOutcome.Missed missed = assertInstanceOf(NodeOutcome.Missed.class, result.outcomes().get("victim"));
        assertTrue(missed.why().contains("bound to node neighbour"), missed.why());
        assertEquals(new NodeOutcome.Attested("1.0"), result.outcomes().get("neighbour"));
        // A miss only counts towards UNREACHABLE: one misdirection is never a revocation.
        assertInstanceOf(Transition.Record.class, Transition.after(Optional.empty(), missed, Instant.now(), 4));
    }

    @Test
    @DisplayName("a replayed old answer (made for an earlier nonce) is refused as stale: a missed round, not an attestation")
    void replayedAnswer() throws Exception {
        replaying.replayOldAnswers();
        NodeOutcome outcome = round.run(List.of(new BoundMachine("replaying", replaying.ak(), replaying.endpoint(), "worker")), bindings)
                .outcomes().get("replaying");
        NodeOutcome.Missed missed = assertInstanceOf(NodeOutcome.Missed.class, outcome);
        assertTrue(missed.why().contains("NONCE_MISMATCH"), missed.why());
    }

    @Test
    @DisplayName("a TPM the EK CA does not vouch for, quoting this cluster's PCRs at a member's endpoint, is a missed round, revoking nothing")
    void untrustedTpmAtEndpoint() throws Exception {
        NodeOutcome outcome = round.run(List.of(new BoundMachine("victim", victim.ak(), hostsOwn.endpoint(), "worker")), bindings)
                .outcomes().get("victim");
        NodeOutcome.Missed missed = assertInstanceOf(NodeOutcome.Missed.class, outcome);
        assertTrue(missed.why().contains("UNTRUSTED_AK"), missed.why());
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
