package dev.sextant.attestation.verify;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.Tools;
import dev.sextant.attestation.tpmstructures.TpmWriter;
import dev.sextant.attestation.tpmstructures.TpmsAttest;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import dev.sextant.proto.v1.AttestationDocument;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Peer tests against a freshly started swtpm and against tpm2-tools' own quote checker. */
class LiveSwtpmTest {
    private static final Ecdsa ECDSA = new BouncyCastleEcdsa(new java.security.SecureRandom());

    @Test
    @DisplayName("parses and verifies what a freshly started swtpm quotes (capture.sh run now)")
    void freshSwtpmCapture(@TempDir Path dir) throws Exception {
        Tools.assumeInstalled("swtpm", "swtpm_setup", "tpm2_quote", "tpm2_checkquote");
        Path script = Paths.get("src/test/resources/fixtures/swtpm/capture.sh").toAbsolutePath();
        Tools.run(dir, "bash", script.toString(), dir.toString());

        TpmtPublic ak = TpmtPublic.parse(Files.readAllBytes(dir.resolve("ak-rsa.tpmt_public")));
        byte[] attest = Files.readAllBytes(dir.resolve("quote-rsa.tpms_attest"));
        TpmtSignature sig = TpmtSignature.parse(Files.readAllBytes(dir.resolve("quote-rsa.tpmt_signature")));
        assertArrayEquals(attest, TpmsAttest.parse(attest).raw());
        assertTrue(QuoteSignature.verifies(ECDSA, ak.toJavaPublicKey(), sig, attest));
    }

    @Test
    @DisplayName("tpm2_checkquote accepts a SoftwareTpmAttester quote, so the test attester marshals like a TPM")
    void checkquoteAcceptsSoftwareQuote(@TempDir Path dir) throws Exception {
        Tools.assumeInstalled("tpm2_checkquote");
        byte[] nonce = "checkquote nonce".getBytes(StandardCharsets.UTF_8);
        byte[] userData = new byte[32];
        AttestationDocument doc = new SoftwareTpmAttester().attest(Purpose.ATLS_SERVER, nonce, userData);
        byte[] akPublic = doc.getAkPublic().toByteArray();
        Files.write(dir.resolve("ak.tss"), new TpmWriter().sized(akPublic).toByteArray());
        Files.write(dir.resolve("quote.msg"), doc.getQuotes(0).getAttest().toByteArray());
        Files.write(dir.resolve("quote.sig"), doc.getQuotes(0).getSignature().toByteArray());

        String out = Tools.run(dir, "tpm2_checkquote", "-u", "ak.tss", "-m", "quote.msg", "-s", "quote.sig",
                "-g", "sha256", "-q", HexFormat.of().formatHex(Qualification.of(Purpose.ATLS_SERVER, nonce, userData)));
        assertTrue(out.contains("sig:"), out);
    }
}
