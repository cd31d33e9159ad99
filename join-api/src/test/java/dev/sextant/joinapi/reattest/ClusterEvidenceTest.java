package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * ClusterEvidence's decisions over in-process software TPMs (no swtpm, no network): what each document
 * means for the node, and what the aTLS handshake is refused with.
 */
@DisplayName("ClusterEvidence judges a member's document once: the image and its AK first, then PCR 15 against the cluster's mark")
class ClusterEvidenceTest {
    private static final byte[] NO_USER_DATA = new byte[0];
    private final SecureRandom random = new SecureRandom();
    private final TestPki ekCa = new TestPki("cluster-evidence-test-ek-ca");
    private final byte[] clusterId = randomBytes();
    private final byte[] mark = ClusterEvidence.markedPcr15(clusterId);
    /** The image as a joining node shows it: every PCR enforced, PCR 15 zero (the set's value before the lock). */
    private final Measurements image = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults()).measurements();
    private final AtomicReference<MeasurementSet> setInForce =
            new AtomicReference<>(new MeasurementSet(1, image.variant(), List.of(new ImageMeasurements("1.0", image)), List.of()));
    private final ClusterEvidence evidence = new ClusterEvidence(setInForce::get, AkTrust.ekCa(List.of(ekCa.caCertificate())),
            new BouncyCastleEcdsa(random), clusterId);

    private SoftwareTpmAttester node(SoftwareTpmOptions options) {
        return new SoftwareTpmAttester(ekCa, options);
    }

    private ClusterEvidence.Checked check(SoftwareTpmAttester node) {
        byte[] nonce = randomBytes();
        return evidence.checked(node.attest(Purpose.VERIFY, nonce, NO_USER_DATA).toByteArray(), Purpose.VERIFY, nonce, NO_USER_DATA);
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    @DisplayName("an admitted image with this cluster's mark in PCR 15 is verified, naming its AK and image version, and passes the handshake")
    void markedMemberVerified() {
        SoftwareTpmAttester member = node(SoftwareTpmOptions.defaults().withPcr(15, mark));
        ClusterEvidence.Checked checked = check(member);
        assertEquals(new Evidence.Verified(hex(member.akName()), "1.0"), checked.evidence());
        assertEquals("1.0", checked.state().orElseThrow().imageVersion());
        assertEquals(Optional.empty(), checked.refusal());
    }

    @Test
    @DisplayName("an admitted image with PCR 15 still zero (rebooted, not rejoined) is refused without a signer, saying so; the handshake fails PCR_MISMATCH naming PCR 15")
    void rebootingMemberNotItsWord() {
        ClusterEvidence.Checked checked = check(node(SoftwareTpmOptions.defaults()));
        Evidence.Rejected rejected = assertInstanceOf(Evidence.Rejected.class, checked.evidence());
        assertEquals(Optional.empty(), rejected.signer());
        assertEquals(Reason.PCR_MISMATCH, rejected.rejection().reason());
        assertEquals("PCR 15 is zero: the node rebooted and has not rejoined yet", rejected.rejection().getMessage());
        AttestationRejected refusal = checked.refusal().orElseThrow();
        assertEquals(Reason.PCR_MISMATCH, refusal.reason());
        assertTrue(refusal.getMessage().contains("PCR 15"), refusal.getMessage());
        assertEquals(Optional.empty(), checked.state());
    }

    @Test
    @DisplayName("an admitted image with another cluster's mark is PCR_MISMATCH naming PCR 15, signed by its AK")
    void otherClusterFails() {
        SoftwareTpmAttester stranger = node(SoftwareTpmOptions.defaults().withPcr(15, ClusterEvidence.markedPcr15(randomBytes())));
        ClusterEvidence.Checked checked = check(stranger);
        Evidence.Rejected rejected = assertInstanceOf(Evidence.Rejected.class, checked.evidence());
        assertEquals(Optional.of(hex(stranger.akName())), rejected.signer());
        assertEquals(Reason.PCR_MISMATCH, rejected.rejection().reason());
        assertTrue(rejected.rejection().getMessage().startsWith("PCR 15 (sha256) is "), rejected.rejection().getMessage());
        assertEquals(rejected.rejection(), checked.refusal().orElseThrow());
    }

    @Test
    @DisplayName("a changed PCR with the mark is PCR_MISMATCH naming that PCR, signed by its AK; with PCR 15 zero as well it is still a failure, never a reboot")
    void changedPcrFails() {
        byte[] changed = new byte[32];
        Arrays.fill(changed, (byte) 0x66);
        for (SoftwareTpmOptions options : List.of(SoftwareTpmOptions.defaults().withPcr(15, mark).withPcr(7, changed),
                SoftwareTpmOptions.defaults().withPcr(7, changed))) {
            SoftwareTpmAttester node = node(options);
            Evidence.Rejected rejected = assertInstanceOf(Evidence.Rejected.class, check(node).evidence());
            assertEquals(Reason.PCR_MISMATCH, rejected.rejection().reason());
            assertTrue(rejected.rejection().getMessage().contains("PCR 7"), rejected.rejection().getMessage());
            assertEquals(Optional.of(hex(node.akName())), rejected.signer());
        }
    }

    @Test
    @DisplayName("a retired image is IMAGE_RETIRED naming its version, signed by its AK, with the mark or before the lock")
    void retiredImageFails() {
        byte[] newUki = new byte[32];
        Arrays.fill(newUki, (byte) 0x42);
        setInForce.set(new MeasurementSet(2, image.variant(), List.of(new ImageMeasurements("2.0", image.enforcing(4, newUki))),
                List.of(new ImageMeasurements("1.0", image))));
        for (SoftwareTpmOptions options : List.of(SoftwareTpmOptions.defaults().withPcr(15, mark), SoftwareTpmOptions.defaults())) {
            SoftwareTpmAttester node = node(options);
            ClusterEvidence.Checked checked = check(node);
            Evidence.Rejected rejected = assertInstanceOf(Evidence.Rejected.class, checked.evidence());
            assertEquals(Reason.IMAGE_RETIRED, rejected.rejection().reason());
            assertTrue(rejected.rejection().getMessage().contains("1.0"), rejected.rejection().getMessage());
            assertEquals(Optional.of(hex(node.akName())), rejected.signer());
            assertEquals(Reason.IMAGE_RETIRED, checked.refusal().orElseThrow().reason());
        }
    }

    @Test
    @DisplayName("a document over another nonce is refused without a signer: nothing ties it to this round")
    void staleDocumentHasNoSigner() {
        SoftwareTpmAttester member = node(SoftwareTpmOptions.defaults().withPcr(15, mark));
        byte[] document = member.attest(Purpose.VERIFY, randomBytes(), NO_USER_DATA).toByteArray();
        ClusterEvidence.Checked checked = evidence.checked(document, Purpose.VERIFY, randomBytes(), NO_USER_DATA);
        Evidence.Rejected rejected = assertInstanceOf(Evidence.Rejected.class, checked.evidence());
        assertEquals(Optional.empty(), rejected.signer());
        assertTrue(checked.refusal().isPresent());
    }

    private byte[] randomBytes() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return b;
    }
}
