package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.QuoteBatch;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.Quote;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpmmanufacturer.provision.AkCertificateIssuer;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.bouncycastle.util.Arrays;
import org.bouncycastle.util.BigIntegers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TpmAttesterTest {
    private static Swtpm swtpm;
    private static TpmAttester attester;

    @BeforeAll
    static void start() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.provisioned();
        attester = new TpmAttester(swtpm.client(), Path.of("/nonexistent/binary_bios_measurements"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (attester != null) {
            attester.close();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    /** The checks a verifier makes on the quote itself, enough to prove the issuer filled it right. */
    static void assertSoundQuote(AttestationDocument doc, byte[] nonce, byte[] userData) throws Exception {
        assertEquals(1, doc.getQuotesCount());
        Quote q = doc.getQuotes(0);
        assertEquals(TpmAlg.SHA256, q.getHashAlgorithm());
        QuotedPcrDigest fields = QuotedPcrDigest.parse(q.getAttest().toByteArray());
        // Alone, the qualification itself; when it shared the quote, the batch root its path leads to.
        assertArrayEquals(QuoteBatch.rootOf(Qualification.of(Purpose.ATLS_SERVER, nonce, userData), doc.getBatchPathList()),
                fields.extraData());
        TreeMap<Integer, byte[]> pcrs = new TreeMap<>();
        q.getPcrsMap().forEach((k, v) -> pcrs.put(k, v.toByteArray()));
        assertEquals(24, pcrs.size());
        assertArrayEquals(TpmAttester.digestOf(pcrs), fields.pcrDigest());
        TpmtSignature signature = TpmtSignature.parse(q.getSignature().toByteArray());
        assertEquals(TpmAlg.SHA256, signature.hashAlg());
        PublicKey ak = TpmtPublic.parse(doc.getAkPublic().toByteArray()).toJavaPublicKey();
        Signature v;
        byte[] signed;
        if (signature.sigAlg() == TpmAlg.ECDSA) {
            v = Signature.getInstance("SHA256withECDSAinP1363Format");   // r || s, each as long as the order
            signed = Arrays.concatenate(BigIntegers.asUnsignedByteArray(32, new BigInteger(1, signature.ecdsaR())),
                    BigIntegers.asUnsignedByteArray(32, new BigInteger(1, signature.ecdsaS())));
        } else {
            assertEquals(TpmAlg.RSASSA, signature.sigAlg());
            v = Signature.getInstance("SHA256withRSA");
            signed = signature.rsaSignature();
        }
        v.initVerify(ak);
        v.update(q.getAttest().toByteArray());
        assertTrue(v.verify(signed), "quote signature verifies with the AK");
    }

    @Test
    @DisplayName("attest() fills every document field and binds nonce and user data into the quote")
    void documentFields() throws Exception {
        byte[] nonce = "fresh nonce".getBytes();
        byte[] userData = new byte[32];
        AttestationDocument doc = attester.attest(Purpose.ATLS_SERVER, nonce, userData);
        assertEquals("qemu-vtpm", doc.getVariant());
        assertArrayEquals(attester.akPublic(), doc.getAkPublic().toByteArray());
        assertArrayEquals(swtpm.client().nv().read(NvIndices.EK_CERT_RSA), doc.getEkCertificate().toByteArray());
        assertArrayEquals(swtpm.client().nv().read(NvIndices.AK_CERT), doc.getAkCertificate().toByteArray());
        assertArrayEquals(userData, doc.getUserData().toByteArray());
        assertEquals(0, doc.getEventLog().size(), "no event log file means an empty event log");
        assertSoundQuote(doc, nonce, userData);
    }

    @Test
    @DisplayName("the event log is read from the configured path on every attest()")
    void eventLogFromPath(@TempDir Path dir) throws Exception {
        Path log = Files.write(dir.resolve("binary_bios_measurements"), new byte[] {1, 2, 3});
        try (TpmAttester withLog = new TpmAttester(swtpm.client(), log)) {
            assertArrayEquals(new byte[] {1, 2, 3}, withLog.attest(Purpose.ATLS_SERVER, new byte[8], new byte[0]).getEventLog().toByteArray());
        }
    }

    @Test
    @DisplayName("the quote reflects a PCR extended before attest()")
    void quoteFollowsPcrs() throws Exception {
        byte[] before = attester.attest(Purpose.ATLS_SERVER, new byte[8], new byte[0]).getQuotes(0).getPcrsOrThrow(16).toByteArray();
        swtpm.client().pcr().extend(16, new byte[32]);
        AttestationDocument after = attester.attest(Purpose.ATLS_SERVER, new byte[8], new byte[0]);
        assertTrue(!java.util.Arrays.equals(before, after.getQuotes(0).getPcrsOrThrow(16).toByteArray()));
        assertSoundQuote(after, new byte[8], new byte[0]);
    }

    @Test
    @DisplayName("attest() from 8 threads at once yields 8 sound documents, each leading from its own nonce to its quote")
    void concurrent() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<AttestationDocument>> docs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                byte[] nonce = {(byte) i};
                docs.add(pool.submit(() -> attester.attest(Purpose.ATLS_SERVER, nonce, nonce)));
            }
            for (int i = 0; i < 8; i++) {
                assertSoundQuote(docs.get(i).get(), new byte[] {(byte) i}, new byte[] {(byte) i});
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(AkTemplate.class)
    @DisplayName("a TPM quotes with the AK its certificate certifies, of either template, and the verifier accepts it")
    void quotesWithTheCertifiedAk(AkTemplate template) throws Exception {
        try (Swtpm tpm = Swtpm.provisioned(template);
             TpmAttester own = new TpmAttester(tpm.client(), Path.of("/nonexistent/binary_bios_measurements"))) {
            byte[] nonce = "fresh nonce".getBytes();
            byte[] userData = new byte[32];
            AttestationDocument doc = own.attest(Purpose.ATLS_SERVER, nonce, userData);
            assertSoundQuote(doc, nonce, userData);
            TreeMap<Integer, ExpectedValue> unlocked = new TreeMap<>(Map.of(15, new ExpectedValue(new byte[32], false)));
            DocumentVerifier verifier = new DocumentVerifier(new VerifierPolicy(
                    new Measurements(Variant.QEMU_VTPM, unlocked), AkTrust.ekCa(List.of(tpm.ca().certificate()))));
            AttestedState state = verifier.verify(doc.toByteArray(), Purpose.ATLS_SERVER, nonce, userData);
            assertArrayEquals(TpmtPublic.parse(own.akPublic()).name(), state.akName());
            assertEquals(template == AkTemplate.ECC_P256 ? TpmAlg.ECC : TpmAlg.RSA,
                    TpmtPublic.parse(own.akPublic()).type());
        }
    }

    @Test
    @DisplayName("a TPM whose AK certificate certifies a key no AK template makes is refused at start, naming the key's kind")
    void akCertificateOfAnotherKind() throws Exception {
        try (Swtpm tpm = Swtpm.start()) {
            X509Certificate ek = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(tpm.client().nv().read(NvIndices.EK_CERT_RSA)));
            PublicKey ed25519 = KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPublic();
            byte[] der = new AkCertificateIssuer(tpm.ca().certificate(), tpm.ca().key())
                    .issue(ed25519, new byte[34], ek).getEncoded();
            tpm.client().nv().defineSpace(NvIndices.AK_CERT, NvPublic.AUTHWRITE | NvPublic.AUTHREAD | NvPublic.NO_DA, der.length);
            tpm.client().nv().write(NvIndices.AK_CERT, der);
            AttestationException e = assertThrows(AttestationException.class, () -> new TpmAttester(tpm.client()));
            assertEquals("the AK certificate in NV certifies a key of kind EdDSA, which no AK template makes", e.getMessage());
        }
    }

    @Test
    @DisplayName("an unprovisioned TPM (no AK certificate) is refused at construction with a readable reason")
    void unprovisioned() throws Exception {
        try (Swtpm bare = Swtpm.start()) {
            AttestationException e = assertThrows(AttestationException.class, () -> new TpmAttester(bare.client()));
            assertTrue(e.getMessage().startsWith("reading the AK certificate from NV index 0x01381001"), e.getMessage());
        }
    }
}
