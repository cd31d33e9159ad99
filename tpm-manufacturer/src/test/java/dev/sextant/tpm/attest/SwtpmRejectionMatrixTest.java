package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import com.google.protobuf.ByteString;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.TestEvent;
import dev.sextant.attestation.testkit.TestEventLog;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rejection matrix against a real TPM: every document here is quoted by swtpm (EK certificate
 * from a local CA, AK certificate from provisioning) and checked by the production verifier with
 * EK-CA trust. Each row asserts its own {@link Reason} and a fragment of the sentence.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SwtpmRejectionMatrixTest {
    /** The node's evidence as an aTLS client of the join service: the purpose every row verifies for. */
    private static final Purpose PURPOSE = Purpose.ATLS_CLIENT;
    private static final byte[] USER_DATA = sha256("SPKI of this handshake's certificate");
    private static final byte[] ZERO = new byte[32];

    private Swtpm swtpm;
    private TpmAttester attester;
    private SortedMap<Integer, byte[]> bootPcrs;

    private Path tmp;

    @BeforeAll
    void startTpm(@TempDir Path dir) throws Exception {
        Swtpm.assumeAvailable();
        tmp = dir;
        swtpm = Swtpm.provisioned();
        boot();
    }

    /** A firmware-like boot: PCR 4 and 9 extended by events that the document's event log records. */
    private void boot() throws Exception {
        var events = List.of(new TestEvent(4, TestEvent.EV_IPL, bytes("boot manager")),
                new TestEvent(9, TestEvent.EV_IPL, bytes("kernel command line")));
        for (TestEvent e : events) {
            swtpm.client().pcr().extend(e.pcr(), sha256(e.data()));
        }
        Path log = Files.write(tmp.resolve("binary_bios_measurements"), TestEventLog.write(events));
        attester = new TpmAttester(swtpm.client(), log);
        bootPcrs = swtpm.client().pcr().readAll(TpmAlg.SHA256);
    }

    @AfterAll
    void stopTpm() throws Exception {
        if (attester != null) {
            attester.close();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("accepts a swtpm quote whose AK chains to the EK CA and whose PCRs match")
    void acceptsAGoodQuote() throws Exception {
        byte[] nonce = nonce();
        AttestedState state = verifier(expect(4, 9, 15)).verify(quote(nonce), PURPOSE, nonce, USER_DATA);
        assertArrayEquals(bootPcrs.get(4), state.pcrs().get(4));
        assertTrue(state.warnings().isEmpty());
    }

    @Test
    @DisplayName("rejects a quote whose PCR 9 differs from the expected value, naming PCR 9")
    void wrongPcrValue() throws Exception {
        var policy = expect(4, 9, 15);
        policy.put(9, new ExpectedValue(sha256("another kernel command line"), false));
        assertRejected(verifier(policy), quoteBytes(), Reason.PCR_MISMATCH, "PCR 9 (sha256) is ");
    }

    @Test
    @DisplayName("rejects a document replayed for another handshake's nonce")
    void replayedNonce() throws Exception {
        byte[] doc = quote(nonce());
        var e = assertThrows(AttestationRejected.class, () -> verifier(expect(15)).verify(doc, PURPOSE, nonce(), USER_DATA));
        assertEquals(Reason.NONCE_MISMATCH, e.reason());
    }

    @Test
    @DisplayName("rejects a VerifyService quote offered as aTLS client evidence (relay), naming both purposes")
    void verifyQuoteRelayedIntoAtls() throws Exception {
        byte[] nonce = nonce();
        byte[] doc = attester.attest(Purpose.VERIFY, nonce, USER_DATA).toByteArray();
        assertRejectedFor(nonce, doc, Reason.WRONG_PURPOSE, "\"sextant/verify/v1\", not \"sextant/atls/v1/client\"");
    }

    @Test
    @DisplayName("rejects a document made for another TLS key")
    void anotherTlsKey() throws Exception {
        byte[] nonce = nonce();
        byte[] doc = quote(nonce);
        var e = assertThrows(AttestationRejected.class,
                () -> verifier(expect(15)).verify(doc, PURPOSE, nonce, sha256("another key")));
        assertEquals(Reason.KEY_BINDING, e.reason());
    }

    @Test
    @DisplayName("rejects a quote whose signature has one bit flipped")
    void flippedSignatureBit() throws Exception {
        byte[] nonce = nonce();
        var doc = AttestationDocument.parseFrom(quote(nonce));
        byte[] signature = doc.getQuotes(0).getSignature().toByteArray();
        signature[signature.length - 1] ^= 0x01;
        byte[] bad = doc.toBuilder().setQuotes(0, doc.getQuotes(0).toBuilder()
                .setSignature(ByteString.copyFrom(signature))).build().toByteArray();
        assertRejectedFor(nonce, bad, Reason.BAD_SIGNATURE, "does not verify with the AK");
    }

    @Test
    @DisplayName("rejects a document that claims another variant")
    void wrongVariant() throws Exception {
        byte[] nonce = nonce();
        byte[] bad = AttestationDocument.parseFrom(quote(nonce)).toBuilder().setVariant("sev-snp").build().toByteArray();
        assertRejectedFor(nonce, bad, Reason.WRONG_VARIANT, "\"sev-snp\"");
    }

    @Test
    @DisplayName("rejects an AK whose certificates do not chain to the configured EK CA")
    void akNotChainedToTheEkCa() throws Exception {
        LocalCa other = LocalCa.create(tmp.resolve("other-ca"), "Another EK CA");
        var verifier = new DocumentVerifier(new VerifierPolicy(measurements(expect(15)),
                AkTrust.ekCa(List.of(other.certificate()))));
        assertRejected(verifier, quoteBytes(), Reason.UNTRUSTED_AK, "does not chain to a configured EK CA");
    }

    @Test
    @DisplayName("rejects truncated, oversized and garbage documents as malformed")
    void malformedDocuments() throws Exception {
        byte[] nonce = nonce();
        byte[] doc = quote(nonce);
        var verifier = verifier(expect(15));
        for (byte[] bad : List.of(Arrays.copyOf(doc, doc.length / 2), Arrays.copyOf(doc, 300 * 1024),
                bytes("garbage, not a protobuf message at all"))) {
            var e = assertThrows(AttestationRejected.class, () -> verifier.verify(bad, PURPOSE, nonce, USER_DATA));
            assertEquals(Reason.MALFORMED, e.reason(), e.getMessage());
        }
    }

    @Test
    @DisplayName("rejects a reported PCR value that the quote's pcrDigest does not cover")
    void doctoredPcrValue() throws Exception {
        byte[] nonce = nonce();
        var doc = AttestationDocument.parseFrom(quote(nonce));
        byte[] bad = doc.toBuilder().setQuotes(0, doc.getQuotes(0).toBuilder()
                .putPcrs(4, ByteString.copyFrom(sha256("what the verifier wants to see")))).build().toByteArray();
        assertRejectedFor(nonce, bad, Reason.PCR_DIGEST_MISMATCH, "pcrDigest");
    }

    @Test
    @DisplayName("rejects an event log that does not replay to the quoted PCRs")
    void eventLogThatDoesNotReplay() throws Exception {
        byte[] nonce = nonce();
        byte[] foreignLog = TestEventLog.write(List.of(new TestEvent(4, TestEvent.EV_IPL, bytes("another boot"))));
        byte[] bad = AttestationDocument.parseFrom(quote(nonce)).toBuilder()
                .setEventLog(ByteString.copyFrom(foreignLog)).build().toByteArray();
        assertRejectedFor(nonce, bad, Reason.EVENT_LOG_MISMATCH, "PCR 4");
    }

    @Test
    @DisplayName("accepts a warnOnly mismatch and reports it as a warning")
    void warnOnlyMismatch() throws Exception {
        var policy = expect(4, 15);
        policy.put(14, new ExpectedValue(sha256("unexpected"), true));
        byte[] nonce = nonce();
        AttestedState state = verifier(policy).verify(quote(nonce), PURPOSE, nonce, USER_DATA);
        assertEquals(1, state.warnings().size());
        assertTrue(state.warnings().get(0).contains("PCR 14"), state.warnings().get(0));
    }

    @Test
    @DisplayName("rejects a node whose PCR 15 is non-zero where zero is required (already bootstrapped)")
    void nonZeroPcr15() throws Exception {
        swtpm.client().pcr().event(15, bytes("cluster ID of a cluster this node already joined"));
        try {
            assertRejected(verifier(expectZero15()), quoteBytes(), Reason.PCR_MISMATCH, "PCR 15 (sha256) is ");
        } finally {
            attester.close();
            swtpm.restart(); // PCRs reset, like a reboot; the AK and its certificate persist
            boot();
        }
    }

    private void assertRejectedFor(byte[] nonce, byte[] doc, Reason reason, String fragment) throws Exception {
        var e = assertThrows(AttestationRejected.class, () -> verifier(expect(15)).verify(doc, PURPOSE, nonce, USER_DATA));
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    private void assertRejected(DocumentVerifier verifier, Map.Entry<byte[], byte[]> nonceAndDoc, Reason reason,
                                String fragment) {
        var e = assertThrows(AttestationRejected.class,
                () -> verifier.verify(nonceAndDoc.getValue(), PURPOSE, nonceAndDoc.getKey(), USER_DATA));
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    private Map.Entry<byte[], byte[]> quoteBytes() throws Exception {
        byte[] nonce = nonce();
        return Map.entry(nonce, quote(nonce));
    }

    private byte[] quote(byte[] nonce) throws Exception {
        return attester.attest(PURPOSE, nonce, USER_DATA).toByteArray();
    }

    private DocumentVerifier verifier(SortedMap<Integer, ExpectedValue> expected) {
        return new DocumentVerifier(new VerifierPolicy(measurements(expected),
                AkTrust.ekCa(List.of(swtpm.ca().certificate()))));
    }

    /** Expects the given PCRs at their values right after the simulated boot (PCR 15 then is zero). */
    private SortedMap<Integer, ExpectedValue> expect(int... pcrs) {
        SortedMap<Integer, ExpectedValue> expected = new TreeMap<>();
        for (int pcr : pcrs) {
            expected.put(pcr, new ExpectedValue(bootPcrs.get(pcr), false));
        }
        return expected;
    }

    private static SortedMap<Integer, ExpectedValue> expectZero15() {
        return new TreeMap<>(Map.of(15, new ExpectedValue(ZERO, false)));
    }

    private static Measurements measurements(SortedMap<Integer, ExpectedValue> expected) {
        return new Measurements(Variant.QEMU_VTPM, expected);
    }

    private static byte[] nonce() {
        byte[] nonce = new byte[32];
        new java.security.SecureRandom().nextBytes(nonce);
        return nonce;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] sha256(String s) {
        return sha256(bytes(s));
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
