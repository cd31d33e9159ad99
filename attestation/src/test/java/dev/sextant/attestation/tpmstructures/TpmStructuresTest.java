package dev.sextant.attestation.tpmstructures;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.testkit.Fixtures;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TPM structure parsers against bytes a real swtpm produced (fixtures/swtpm/capture.sh). */
class TpmStructuresTest {

    @Test
    @DisplayName("parses swtpm's RSA AK TPMT_PUBLIC, keeps its bytes and yields a 2048-bit RSA key")
    void rsaPublic() throws Exception {
        byte[] bytes = Fixtures.swtpm("ak-rsa.tpmt_public");
        TpmtPublic pub = TpmtPublic.parse(bytes);

        assertArrayEquals(bytes, pub.raw());
        assertEquals(TpmAlg.RSA, pub.type());
        assertTrue(pub.has(TpmtPublic.RESTRICTED | TpmtPublic.SIGN | TpmtPublic.FIXED_TPM | TpmtPublic.FIXED_PARENT));
        TpmsRsaParameters rsa = assertInstanceOf(TpmsRsaParameters.class, pub.parameters());
        assertEquals(new TpmScheme(TpmAlg.RSASSA, TpmAlg.SHA256, 0), rsa.scheme());
        assertEquals(2048, ((RSAPublicKey) pub.toJavaPublicKey()).getModulus().bitLength());
        byte[] expectedName = new TpmWriter().u16(TpmAlg.SHA256)
                .bytes(MessageDigest.getInstance("SHA-256").digest(bytes)).toByteArray();
        assertArrayEquals(expectedName, pub.name());
    }

    @Test
    @DisplayName("parses swtpm's ECC P-256 AK TPMT_PUBLIC into an EC key")
    void eccPublic() throws Exception {
        byte[] bytes = Fixtures.swtpm("ak-ecc.tpmt_public");
        TpmtPublic pub = TpmtPublic.parse(bytes);

        assertArrayEquals(bytes, pub.raw());
        TpmsEccParameters ecc = assertInstanceOf(TpmsEccParameters.class, pub.parameters());
        assertEquals(TpmsEccParameters.NIST_P256, ecc.curveId());
        assertInstanceOf(ECPublicKey.class, pub.toJavaPublicKey());
    }

    @ParameterizedTest(name = "parses swtpm''s {0} and keeps its exact bytes")
    @ValueSource(strings = {"quote-rsa.tpms_attest", "quote-ecc.tpms_attest"})
    void quote(String fixture) throws Exception {
        byte[] bytes = Fixtures.swtpm(fixture);
        TpmsAttest attest = TpmsAttest.parse(bytes);

        assertArrayEquals(bytes, attest.raw());
        assertEquals(TpmsAttest.TPM_ST_ATTEST_QUOTE, attest.type());
        assertArrayEquals(Qualification.of(Purpose.VERIFY,
                "sextant fixture nonce".getBytes(StandardCharsets.US_ASCII), new byte[0]), attest.extraData());
        TpmsQuoteInfo info = attest.quote().orElseThrow();
        assertEquals(1, info.pcrSelect().banks().size());
        assertEquals(24, info.pcrSelect().banks().get(0).pcrs().size());
        assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(Fixtures.swtpm("pcrs.sha256")), info.pcrDigest());
        assertArrayEquals(info.pcrSelect().raw(), PcrSelection.parse(info.pcrSelect().raw()).raw());
    }

    @Test
    @DisplayName("parses swtpm's certify TPMS_ATTEST naming the certified ECC key")
    void certify() throws Exception {
        TpmsAttest attest = TpmsAttest.parse(Fixtures.swtpm("certify-rsa.tpms_attest"));

        TpmsCertifyInfo info = assertInstanceOf(TpmsCertifyInfo.class, attest.attested());
        assertArrayEquals(TpmtPublic.parse(Fixtures.swtpm("ak-ecc.tpmt_public")).name(), info.name());
    }

    @Test
    @DisplayName("parses swtpm's RSASSA and ECDSA TPMT_SIGNATUREs and keeps their bytes")
    void signatures() throws Exception {
        byte[] rsaBytes = Fixtures.swtpm("quote-rsa.tpmt_signature");
        TpmtSignature rsa = TpmtSignature.parse(rsaBytes);
        assertArrayEquals(rsaBytes, rsa.raw());
        assertEquals(TpmAlg.RSASSA, rsa.sigAlg());
        assertEquals(256, rsa.rsaSignature().length);

        TpmtSignature ecdsa = TpmtSignature.parse(Fixtures.swtpm("quote-ecc.tpmt_signature"));
        assertEquals(TpmAlg.ECDSA, ecdsa.sigAlg());
        assertEquals(32, ecdsa.ecdsaR().length);
    }

    @ParameterizedTest(name = "rejects every truncation and a trailing byte of {0}")
    @ValueSource(strings = {"ak-rsa.tpmt_public", "ak-ecc.tpmt_public", "quote-rsa.tpms_attest",
            "certify-rsa.tpms_attest", "quote-rsa.tpmt_signature", "quote-ecc.tpmt_signature"})
    void rejectsTruncationAndTrailingBytes(String fixture) {
        byte[] bytes = Fixtures.swtpm(fixture);
        for (int n = 0; n < bytes.length; n++) {
            byte[] cut = Arrays.copyOf(bytes, n);
            assertThrows(TpmFormatException.class, () -> parse(fixture, cut), () -> "accepted " + cut.length + " bytes");
        }
        TpmFormatException e = assertThrows(TpmFormatException.class,
                () -> parse(fixture, Arrays.copyOf(bytes, bytes.length + 1)));
        assertTrue(e.getMessage().contains("1 trailing bytes"), e.getMessage());
    }

    @Test
    @DisplayName("rejects a TPMS_ATTEST without TPM_GENERATED_VALUE, naming the field")
    void rejectsForeignMagic() {
        byte[] bytes = Fixtures.swtpm("quote-rsa.tpms_attest");
        bytes[0] = 0x00;
        TpmFormatException e = assertThrows(TpmFormatException.class, () -> TpmsAttest.parse(bytes));
        assertEquals("magic", e.field());
    }

    @Test
    @DisplayName("rejects a TPM2B longer than its structure allows before reading it")
    void rejectsOversizedSizedField() {
        byte[] bytes = new TpmWriter().u16(TpmAlg.RSASSA).u16(TpmAlg.SHA256).u16(513).bytes(new byte[513]).toByteArray();
        TpmFormatException e = assertThrows(TpmFormatException.class, () -> TpmtSignature.parse(bytes));
        assertTrue(e.getMessage().contains("exceeds the limit 512"), e.getMessage());
    }

    private static void parse(String fixture, byte[] bytes) throws TpmFormatException {
        if (fixture.endsWith("tpmt_public")) {
            TpmtPublic.parse(bytes);
        } else if (fixture.endsWith("tpms_attest")) {
            TpmsAttest.parse(bytes);
        } else {
            TpmtSignature.parse(bytes);
        }
    }
}
