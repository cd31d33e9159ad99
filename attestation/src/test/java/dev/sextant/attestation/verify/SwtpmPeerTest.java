package dev.sextant.attestation.verify;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.Purpose;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.Fixtures;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmWriter;
import dev.sextant.attestation.tpmstructures.TpmsAttest;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.Quote;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.util.BigIntegers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verifier against artefacts a real swtpm produced (fixtures/swtpm/capture.sh). */
class SwtpmPeerTest {
    private static final Ecdsa ECDSA = new BouncyCastleEcdsa(new java.security.SecureRandom());
    private static final byte[] FIXTURE_NONCE = "sextant fixture nonce".getBytes(StandardCharsets.US_ASCII);

    @ParameterizedTest(name = "verifies swtpm''s {0} quote signature over the raw TPMS_ATTEST")
    @ValueSource(strings = {"rsa", "ecc"})
    void verifiesSwtpmQuoteSignature(String kind) throws Exception {
        TpmtPublic ak = TpmtPublic.parse(Fixtures.swtpm("ak-" + kind + ".tpmt_public"));
        byte[] attest = Fixtures.swtpm("quote-" + kind + ".tpms_attest");
        TpmtSignature sig = TpmtSignature.parse(Fixtures.swtpm("quote-" + kind + ".tpmt_signature"));

        assertTrue(QuoteSignature.verifies(ECDSA, ak.toJavaPublicKey(), sig, TpmsAttest.parse(attest).raw()));
        attest[attest.length - 1] ^= 1;
        assertTrue(!QuoteSignature.verifies(ECDSA, ak.toJavaPublicKey(), sig, attest));
    }

    @Test
    @DisplayName("swtpm's ECDSA quote signature stops verifying with r or s out of range, swapped, or under the RSA AK")
    void ecdsaQuoteSignatureEdges() throws Exception {
        TpmtPublic ecc = TpmtPublic.parse(Fixtures.swtpm("ak-ecc.tpmt_public"));
        TpmtPublic rsa = TpmtPublic.parse(Fixtures.swtpm("ak-rsa.tpmt_public"));
        byte[] attest = Fixtures.swtpm("quote-ecc.tpms_attest");
        TpmtSignature sig = TpmtSignature.parse(Fixtures.swtpm("quote-ecc.tpmt_signature"));
        byte[] order = BigIntegers.asUnsignedByteArray(32, ECNamedCurveTable.getByName("secp256r1").getN());
        List<TpmtSignature> broken = List.of(
                ecdsa(new byte[32], sig.ecdsaS()), ecdsa(sig.ecdsaR(), order), ecdsa(sig.ecdsaS(), sig.ecdsaR()));
        for (TpmtSignature b : broken) {
            assertTrue(!QuoteSignature.verifies(ECDSA, ecc.toJavaPublicKey(), b, attest));
        }
        assertTrue(!QuoteSignature.verifies(ECDSA, rsa.toJavaPublicKey(), sig, attest));
    }

    private static TpmtSignature ecdsa(byte[] r, byte[] s) throws Exception {
        return TpmtSignature.parse(new TpmWriter().u16(TpmAlg.ECDSA).u16(TpmAlg.SHA256).sized(r).sized(s).toByteArray());
    }

    @Test
    @DisplayName("trusts swtpm_localca's real EK certificate (critical SAN, empty-ish subject) through its intermediate")
    void trustsRealSwtpmEkChain() throws Exception {
        X509Certificate root = pem("swtpm-localca-root.pem");
        X509Certificate issuer = pem("swtpm-localca-issuer.pem");
        X509Certificate ek = der(Fixtures.swtpm("ek-cert.der"));

        new EkCaTrust(List.of(root)).chain(ek, List.of(issuer), "EK certificate");
        byte[] bundle = (new String(Fixtures.swtpm("swtpm-localca-root.pem"), java.nio.charset.StandardCharsets.US_ASCII)
                + new String(Fixtures.swtpm("swtpm-localca-issuer.pem"), java.nio.charset.StandardCharsets.US_ASCII)).getBytes();
        assertEquals(2, ((AkTrust.EkCa) AkTrust.ekCaPem(bundle)).anchors().size());
        AttestationRejected r = assertThrows(AttestationRejected.class,
                () -> new EkCaTrust(List.of(root)).chain(ek, List.of(), "EK certificate"));
        assertEquals(Reason.UNTRUSTED_AK, r.reason());
    }

    @Test
    @DisplayName("accepts a document built from a real swtpm quote, and warns on every use of insecureTrustAnyAk")
    void acceptsRealQuoteWithInsecureTrustAndWarnsEachTime() throws Exception {
        byte[] pcrBytes = Fixtures.swtpm("pcrs.sha256");
        Quote.Builder quote = Quote.newBuilder().setHashAlgorithm(TpmAlg.SHA256)
                .setAttest(ByteString.copyFrom(Fixtures.swtpm("quote-rsa.tpms_attest")))
                .setSignature(ByteString.copyFrom(Fixtures.swtpm("quote-rsa.tpmt_signature")));
        SortedMap<Integer, ExpectedValue> expected = new TreeMap<>();
        for (int i = 0; i < 24; i++) {
            byte[] v = Arrays.copyOfRange(pcrBytes, 32 * i, 32 * i + 32);
            quote.putPcrs(i, ByteString.copyFrom(v));
            expected.put(i, new ExpectedValue(v, false));
        }
        byte[] doc = AttestationDocument.newBuilder().setVariant("qemu-vtpm")
                .setAkPublic(ByteString.copyFrom(Fixtures.swtpm("ak-rsa.tpmt_public"))).addQuotes(quote)
                .build().toByteArray();
        DocumentVerifier verifier = new DocumentVerifier(new VerifierPolicy(
                new Measurements(Variant.QEMU_VTPM, expected), AkTrust.insecureTrustAnyAk()));
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        ((Logger) LoggerFactory.getLogger(DocumentVerifier.class)).addAppender(logs);
        try {
            verifier.verify(doc, Purpose.VERIFY, FIXTURE_NONCE, new byte[0]);
            AttestedState state = verifier.verify(doc, Purpose.VERIFY, FIXTURE_NONCE, new byte[0]);
            assertEquals(24, state.pcrs().size());
        } finally {
            ((Logger) LoggerFactory.getLogger(DocumentVerifier.class)).detachAppender(logs);
        }
        long warnings = logs.list.stream().filter(e -> e.getFormattedMessage().startsWith("INSECURE")).count();
        assertEquals(2, warnings);
    }

    private static X509Certificate pem(String name) throws Exception {
        return der(Fixtures.swtpm(name));
    }

    private static X509Certificate der(byte[] bytes) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(bytes));
    }
}
