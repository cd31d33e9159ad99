package dev.sextant.nodeboot.attacks;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.nodeboot.jointrust.JoinServiceTrust;
import dev.sextant.nodeboot.jointrust.JoinServiceTrustSettings;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.SortedMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A brand-new node, whose only word on the cluster is its image, facing a host that runs a join
 * service of its own: a software TPM certified by the host's CA, replaying the public PCR values
 * of the image (they are in measurements.json) and a non-zero PCR 15. swtpm is the node's own TPM.
 */
@DisplayName("Attacks on a new node's trust in its join service")
class JoinServiceTrustAttacksTest {
    private static final byte[] NONCE = "ClientHello.random of this join".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SPKI_HASH = sha256("the service's minted key");
    private static final TestPki IMAGE_CA = new TestPki("the EK CA built into the image");
    private static final TestPki HOST_CA = new TestPki("the host's own EK CA");
    private static Swtpm ownTpm;
    private static SortedMap<Integer, byte[]> ownPcrs;
    @TempDir
    static Path dir;
    private static Path imageEkCa;
    private static Path hostEkCa;

    @BeforeAll
    static void bootTheNode() throws Exception {
        Swtpm.assumeAvailable();
        ownTpm = Swtpm.start();
        ownTpm.client().pcr().extend(11, sha256(".cmdline with the verity root hash"));
        ownPcrs = ownTpm.client().pcr().readAll(TpmAlg.SHA256);
        imageEkCa = pem(dir.resolve("image-ek-ca.pem"), IMAGE_CA.caCertificate());
        hostEkCa = pem(dir.resolve("sextant.ek-ca"), HOST_CA.caCertificate());
    }

    @AfterAll
    static void stop() throws Exception {
        if (ownTpm != null) {
            ownTpm.close();
        }
    }

    @Test
    @DisplayName("a host-supplied EK CA (SMBIOS setting) vouching for an impostor join service's software TPM: refused, the node trusts only the image's EK CA")
    void hostEkCaRefused() throws Exception {
        AttestationVerifier node = new JoinServiceTrust(new JoinServiceTrustSettings(imageEkCa, hostEkCa, false, false),
                client()).verifier();
        var e = assertThrows(AttestationRejected.class, () -> verify(node, service(HOST_CA)));
        assertEquals(Reason.UNTRUSTED_AK, e.reason(), e::toString);
        verify(node, service(IMAGE_CA));
    }

    @Test
    @DisplayName("an image built without --ek-ca, the host offering its EK CA: the node verifies no join service and says to build the image with --ek-ca")
    void imageWithoutEkCaJoinsNobody() {
        var trust = new JoinServiceTrust(new JoinServiceTrustSettings(dir.resolve("no-image-ek-ca.pem"), hostEkCa,
                false, false), client());
        var e = assertThrows(IllegalStateException.class, trust::verifier);
        assertTrue(e.getMessage().contains("sextant image build --ek-ca PEM"), e.getMessage());
    }

    @Test
    @DisplayName("the insecure setting (insecure-ek-ca-from-host) accepts the impostor and warns on every use")
    void insecureSettingWarnsEveryTime() throws Exception {
        AttestationVerifier node = new JoinServiceTrust(new JoinServiceTrustSettings(imageEkCa, hostEkCa, true, false),
                client()).verifier();
        try (CapturedLog log = new CapturedLog(JoinServiceTrust.class)) {
            verify(node, service(HOST_CA));
            verify(node, service(HOST_CA));
            assertEquals(2, log.lines().stream().filter(l -> l.startsWith("INSECURE")
                    && l.contains("sextant.node.join-service.insecure-ek-ca-from-host=true")).count(), log.lines()::toString);
        }
    }

    /** A join service whose TPM {@code ca} certifies, quoting the node's image PCRs and a bootstrapped PCR 15. */
    private static SoftwareTpmAttester service(TestPki ca) {
        SoftwareTpmOptions replayed = SoftwareTpmOptions.defaults().withEvents(List.of());
        for (int pcr : List.of(4, 9, 11, 12, 13)) {
            replayed = replayed.withPcr(pcr, ownPcrs.get(pcr));
        }
        return new SoftwareTpmAttester(ca, replayed.withPcr(15, sha256("some cluster ID")));
    }

    private static void verify(AttestationVerifier verifier, SoftwareTpmAttester service) throws Exception {
        byte[] document = service.attest(Purpose.ATLS_SERVER, NONCE, SPKI_HASH).toByteArray();
        verifier.verify(document, Purpose.ATLS_SERVER, NONCE, SPKI_HASH);
    }

    private static TpmClient client() {
        try {
            return ownTpm.client();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path pem(Path file, X509Certificate certificate) throws Exception {
        return Files.writeString(file, "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(certificate.getEncoded()) + "\n-----END CERTIFICATE-----\n");
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
