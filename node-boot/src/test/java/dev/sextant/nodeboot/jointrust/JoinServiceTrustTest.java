package dev.sextant.nodeboot.jointrust;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.SortedMap;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node's policy for the join service, with swtpm as the node's own TPM and a software TPM as the service's. */
@DisplayName("A node trusts a join service only if it runs the node's own image on a bootstrapped control plane, or, on a rejoin, is of its cluster")
class JoinServiceTrustTest {
    private static final byte[] NONCE = "ClientHello.random of this join".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SPKI_HASH = sha256("the service's minted key");
    private static Swtpm ownTpm;
    private static SortedMap<Integer, byte[]> ownPcrs;
    private static final TestPki EK_CA = new TestPki("sextant-test-ek-ca");
    @TempDir
    static Path dir;
    private static Path ekCaFile;

    @BeforeAll
    static void bootTheNode() throws Exception {
        Swtpm.assumeAvailable();
        ownTpm = Swtpm.start();
        // What the firmware, the kernel and the stub measured when this node booted its image.
        ownTpm.client().pcr().extend(4, sha256("uki.efi"));
        ownTpm.client().pcr().extend(9, sha256("initrd"));
        ownTpm.client().pcr().extend(11, sha256(".cmdline with the verity root hash"));
        ownPcrs = ownTpm.client().pcr().readAll(TpmAlg.SHA256);
        ekCaFile = dir.resolve("sextant.ek-ca");
        Files.writeString(ekCaFile, "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(EK_CA.caCertificate().getEncoded()) + "\n-----END CERTIFICATE-----\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (ownTpm != null) {
            ownTpm.close();
        }
    }

    @Test
    @DisplayName("accepts a service whose PCR 4, 9, 11, 12, 13 equal the node's own, PCR 15 non-zero, AK under the EK CA")
    void acceptsTheRealService() throws Exception {
        var state = verify(trust(false).verifier(), service(o -> o));
        assertTrue(state.pcrs().containsKey(15));
    }

    @Test
    @DisplayName("refuses a service that booted another kernel command line (PCR 9 differs from the node's own)")
    void refusesAnotherImage() {
        var e = assertThrows(AttestationRejected.class,
                () -> verify(trust(false).verifier(), service(o -> o.withPcr(9, sha256("another command line")))));
        assertEquals(Reason.PCR_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("PCR 9"), e.getMessage());
    }

    @Test
    @DisplayName("on a rejoin, accepts a control plane of the node's cluster on another image (PCR 4, 9, 11 differ: a rollout)")
    void rejoinAcrossAnImageRollout() throws Exception {
        var state = verify(trust(false).rejoinVerifier(sha256("cluster ID")), service(o -> o
                .withPcr(4, sha256("the next image's UKI")).withPcr(9, sha256("its initrd")).withPcr(11, sha256("its sections")),
                JoinServiceTrust.markOf(sha256("cluster ID"))));
        assertTrue(state.pcrs().containsKey(4));
    }

    @Test
    @DisplayName("on a rejoin, refuses a service whose PCR 12 differs from the node's own (add-ons no image has)")
    void rejoinRefusesAnotherPcr12() {
        var e = assertThrows(AttestationRejected.class, () -> verify(trust(false).rejoinVerifier(sha256("cluster ID")),
                service(o -> o.withPcr(12, sha256("a host's add-on")), JoinServiceTrust.markOf(sha256("cluster ID")))));
        assertEquals(Reason.PCR_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("PCR 12"), e.getMessage());
    }

    @Test
    @DisplayName("on a rejoin, refuses a service of another cluster, whatever image it runs")
    void rejoinRefusesAnotherCluster() {
        var e = assertThrows(AttestationRejected.class, () -> verify(trust(false).rejoinVerifier(sha256("cluster ID")),
                service(o -> o, JoinServiceTrust.markOf(sha256("another cluster ID")))));
        assertEquals(Reason.PCR_MISMATCH, e.reason());
    }

    @Test
    @DisplayName("refuses a service on a node that has not been bootstrapped (PCR 15 zero)")
    void refusesAnUnbootstrappedService() {
        var e = assertThrows(AttestationRejected.class,
                () -> verify(trust(false).verifier(), service(o -> o.withPcr(15, new byte[32]))));
        assertEquals(Reason.PCR_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("PCR 15 is zero"), e.getMessage());
    }

    @Test
    @DisplayName("refuses a service whose AK does not chain to the node's EK CA")
    void refusesAForeignAk() {
        var e = assertThrows(AttestationRejected.class,
                () -> verify(trust(false).verifier(), service(o -> o.with(Mutation.FOREIGN_CA))));
        assertEquals(Reason.UNTRUSTED_AK, e.reason());
    }

    @Test
    @DisplayName("refuses a quote the service's node made for its VerifyService (wrong purpose)")
    void refusesAVerifyQuote() {
        var e = assertThrows(AttestationRejected.class,
                () -> verify(trust(false).verifier(), service(o -> o.with(Mutation.OTHER_PURPOSE))));
        assertEquals(Reason.WRONG_PURPOSE, e.reason());
    }

    @Test
    @DisplayName("in an image built without an EK CA, refuses to verify and says to build the image with --ek-ca")
    void imageWithoutEkCaSaysHowToFix() {
        var trust = new JoinServiceTrust(new JoinServiceTrustSettings(dir.resolve("absent"), dir.resolve("no-host-ca"),
                false, false), client());
        var e = assertThrows(IllegalStateException.class, trust::verifier);
        assertTrue(e.getMessage().contains("this image holds no EK CA at " + dir.resolve("absent")), e.getMessage());
        assertTrue(e.getMessage().contains("sextant image build --ek-ca PEM"), e.getMessage());
    }

    @Test
    @DisplayName("in an image built without an EK CA, names the insecure setting when the host offers one")
    void hostOffersEkCaToImageWithout() {
        var trust = new JoinServiceTrust(new JoinServiceTrustSettings(dir.resolve("absent"), ekCaFile, false, false), client());
        var e = assertThrows(IllegalStateException.class, trust::verifier);
        assertTrue(e.getMessage().contains("sextant.node.join-service.insecure-ek-ca-from-host=true would trust it, insecurely"),
                e.getMessage());
    }

    @Test
    @DisplayName("refuses to verify with an EK CA file that holds no certificate, naming the file")
    void malformedEkCa() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        var trust = new JoinServiceTrust(new JoinServiceTrustSettings(empty, dir.resolve("no-host-ca"), false, false), client());
        var e = assertThrows(IllegalStateException.class, trust::verifier);
        assertTrue(e.getMessage().contains("the EK CA file " + empty), e.getMessage());
    }

    @Test
    @DisplayName("insecure-skip-verification accepts a foreign image and AK, and warns on every connection")
    void insecureWarnsEveryTime() throws Exception {
        AttestationVerifier insecure = new JoinServiceTrust(new JoinServiceTrustSettings(dir.resolve("absent"), dir.resolve("no-host-ca"), false, true),
                client()).verifier();
        SoftwareTpmAttester impostor = service(o -> o.with(Mutation.FOREIGN_CA).withPcr(9, sha256("another image")));
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger logger = (Logger) LoggerFactory.getLogger(JoinServiceTrust.class);
        logger.addAppender(logs);
        try {
            verify(insecure, impostor);
            verify(insecure, impostor);
        } finally {
            logger.detachAppender(logs);
        }
        assertEquals(2, logs.list.stream().filter(e -> e.getFormattedMessage().startsWith("INSECURE")).count());
    }

    private static JoinServiceTrust trust(boolean insecure) {
        return new JoinServiceTrust(new JoinServiceTrustSettings(ekCaFile, dir.resolve("no-host-ca"), false, insecure), client());
    }

    private static dev.sextant.tpm.command.TpmClient client() {
        try {
            return ownTpm.client();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A join service that booted the node's image (no event log: the PCRs are set directly) on a bootstrapped node. */
    private static SoftwareTpmAttester service(UnaryOperator<SoftwareTpmOptions> change) {
        return service(change, sha256("cluster ID"));
    }

    /** {@link #service(UnaryOperator)} with this PCR 15. */
    private static SoftwareTpmAttester service(UnaryOperator<SoftwareTpmOptions> change, byte[] pcr15) {
        SoftwareTpmOptions options = SoftwareTpmOptions.defaults().withEvents(List.of());
        for (int pcr : JoinServiceTrust.IMAGE_PCRS) {
            options = options.withPcr(pcr, ownPcrs.get(pcr));
        }
        return new SoftwareTpmAttester(EK_CA, change.apply(options.withPcr(15, pcr15)));
    }

    private static dev.sextant.attestation.verify.AttestedState verify(AttestationVerifier verifier,
                                                                         SoftwareTpmAttester service) throws Exception {
        byte[] document = service.attest(Purpose.ATLS_SERVER, NONCE, SPKI_HASH).toByteArray();
        return verifier.verify(document, Purpose.ATLS_SERVER, NONCE, SPKI_HASH);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
