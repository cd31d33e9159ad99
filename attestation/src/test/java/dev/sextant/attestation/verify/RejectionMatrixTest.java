package dev.sextant.attestation.verify;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The named rejection matrix of {@link DocumentVerifier}: one row per way a document must fail. */
class RejectionMatrixTest {
    private static final byte[] NONCE = "fresh nonce of this handshake".getBytes(StandardCharsets.UTF_8);
    /** aTLS server evidence, the purpose every row but the wrong-purpose one is made and verified for. */
    private static final Purpose PURPOSE = Purpose.ATLS_SERVER;
    private static final byte[] USER_DATA = "SHA-256 of this TLS key's SPKI".getBytes(StandardCharsets.UTF_8);
    private static TestPki pki;

    @BeforeAll
    static void createCa() {
        pki = new TestPki("sextant-test-ek-ca");
    }

    /** How a row builds its document bytes from a valid attester, and how it shapes the policy. */
    record Row(String sentence, UnaryOperator<SoftwareTpmOptions> node, UnaryOperator<byte[]> bytes,
               Function<Measurements, MeasurementSet> policy, Reason reason, String fragment) {
        @Override
        public String toString() { return sentence; }
    }

    static Stream<Arguments> matrix() {
        return Stream.of(
                row("rejects a document whose PCR 4 differs from the expected value", o -> o, b -> b,
                        p -> with(p, 4, (byte) 0x44, false), Reason.PCR_MISMATCH, "PCR 4 (sha256) is "),
                row("rejects a quote made for a nonce of an earlier handshake (replay)", o -> o.with(Mutation.STALE_NONCE),
                        b -> b, p -> p, Reason.NONCE_MISMATCH, "stale or replayed"),
                row("rejects a VerifyService quote offered as aTLS evidence (relay)", o -> o.with(Mutation.OTHER_PURPOSE),
                        b -> b, p -> p, Reason.WRONG_PURPOSE, "made for purpose \"sextant/verify/v1\", not \"sextant/atls/v1/server\""),
                row("rejects a document made for another TLS key", o -> o.with(Mutation.OTHER_USER_DATA), b -> b, p -> p,
                        Reason.KEY_BINDING, "another TLS key"),
                row("rejects a quote whose signature has one bit flipped", o -> o.with(Mutation.FLIP_SIGNATURE), b -> b, p -> p,
                        Reason.BAD_SIGNATURE, "does not verify with the AK"),
                row("rejects a document for another variant", o -> o.with(Mutation.WRONG_VARIANT), b -> b, p -> p,
                        Reason.WRONG_VARIANT, "\"other-variant\" rather than \"qemu-vtpm\""),
                row("rejects an AK whose certificates do not chain to the EK CA", o -> o.with(Mutation.FOREIGN_CA), b -> b,
                        p -> p, Reason.UNTRUSTED_AK, "does not chain to a configured EK CA"),
                row("rejects an AK certificate that certifies another key", o -> o.with(Mutation.WRONG_AK), b -> b, p -> p,
                        Reason.UNTRUSTED_AK, "certifies another key"),
                row("rejects an AK certificate whose binding names another AK", o -> o.with(Mutation.BROKEN_BINDING), b -> b,
                        p -> p, Reason.UNTRUSTED_AK, "binding names another AK"),
                row("rejects an AK without the restricted attribute", o -> o.with(Mutation.UNRESTRICTED_AK), b -> b, p -> p,
                        Reason.UNTRUSTED_AK, "lack restricted"),
                row("rejects a truncated document", o -> o, b -> Arrays.copyOf(b, b.length - 100), p -> p,
                        Reason.MALFORMED, "not an AttestationDocument"),
                row("rejects a document over 256 KiB", o -> o, b -> Arrays.copyOf(b, 256 * 1024 + 1), p -> p,
                        Reason.MALFORMED, "over the limit of 262144"),
                row("rejects garbage bytes", o -> o, b -> "this is not a protobuf".getBytes(StandardCharsets.UTF_8),
                        p -> p, Reason.MALFORMED, "not an AttestationDocument"),
                row("rejects a non-zero PCR 15 where zero is required", o -> o.withPcr(15, filled((byte) 0x15)), b -> b,
                        p -> with(p, 15, (byte) 0, false), Reason.PCR_MISMATCH, "PCR 15 (sha256) is "),
                row("rejects an event log that does not replay to the quoted PCRs", o -> o.with(Mutation.TAMPER_EVENT_LOG),
                        b -> b, p -> p, Reason.EVENT_LOG_MISMATCH, "does not replay to the quoted PCR 11"),
                row("rejects a pcrDigest that does not match the reported values", o -> o.with(Mutation.BAD_PCR_DIGEST),
                        b -> b, p -> p, Reason.PCR_DIGEST_MISMATCH, "do not digest to the quote's pcrDigest"),
                row("rejects a document that leaves out PCR 23", o -> o.with(Mutation.MISSING_PCR), b -> b, p -> p,
                        Reason.PCR_DIGEST_MISMATCH, "rather than 0..23"),
                row("rejects a document that reports a PCR the quote does not cover", o -> o.with(Mutation.EXTRA_PCR), b -> b,
                        p -> p, Reason.PCR_DIGEST_MISMATCH, "rather than 0..23"),
                row("rejects a quote that selects fewer than 24 PCRs", o -> o.with(Mutation.PARTIAL_SELECTION), b -> b,
                        p -> p, Reason.PCR_DIGEST_MISMATCH, "rather than all 24"),
                Arguments.of(new Row("rejects a node on an image the set has retired, naming the retired version", o -> o,
                        b -> b, m -> new MeasurementSet(7, m.variant(), List.of(image("2.0", m, 4, (byte) 0x20)),
                                List.of(new ImageMeasurements("1.0", m))),
                        Reason.IMAGE_RETIRED, "the node runs image 1.0, retired by measurement set version 7")),
                Arguments.of(new Row("rejects a node that runs none of the set's images, naming what differs from each", o -> o,
                        b -> b, m -> new MeasurementSet(7, m.variant(), List.of(image("1.0", m, 4, (byte) 0x10),
                                image("2.0", m, 11, (byte) 0x20)), List.of()),
                        Reason.PCR_MISMATCH, "image 1.0: PCR 4 (sha256) is ")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void rejects(Row row) throws Exception {
        SoftwareTpmAttester attester = new SoftwareTpmAttester(pki, row.node().apply(SoftwareTpmOptions.defaults()));
        byte[] document = row.bytes().apply(attester.attest(PURPOSE, NONCE, USER_DATA).toByteArray());
        DocumentVerifier verifier = verifier(row.policy().apply(attester.measurements()));

        AttestationRejected rejected = assertThrows(AttestationRejected.class,
                () -> verifier.verify(document, PURPOSE, NONCE, USER_DATA));
        assertEquals(row.reason(), rejected.reason(), rejected::toString);
        assertTrue(rejected.getMessage().contains(row.fragment()), rejected::toString);
    }

    @Test
    @DisplayName("the matrix has at least one row per Reason, and every Reason appears")
    void coversEveryReason() {
        Set<Reason> covered = matrix().map(a -> ((Row) a.get()[0]).reason()).collect(Collectors.toSet());
        assertEquals(EnumSet.allOf(Reason.class), covered);
    }

    @Test
    @DisplayName("accepts a warnOnly mismatch and reports it as a warning")
    void acceptsWarnOnlyMismatch() throws Exception {
        SoftwareTpmAttester attester = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults());
        Measurements m = attester.measurements();
        Measurements policy = new Measurements(m.variant(), with(new TreeMap<>(m.measurements()), 9, (byte) 0x99, true));

        AttestedState state = verifier(policy).verify(attester.attest(PURPOSE, NONCE, USER_DATA).toByteArray(),
                PURPOSE, NONCE, USER_DATA);

        assertEquals(1, state.warnings().size());
        String warning = state.warnings().get(0);
        assertTrue(warning.startsWith("PCR 9 (sha256) is ") && warning.endsWith("rather than 9999999999999999…"), warning);
    }

    @Test
    @DisplayName("accepts a valid document and returns the AK name and the quoted PCRs")
    void acceptsValidDocument() throws Exception {
        SoftwareTpmAttester attester = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults());

        AttestedState state = verifier(attester.measurements()).verify(
                attester.attest(PURPOSE, NONCE, USER_DATA).toByteArray(), PURPOSE, NONCE, USER_DATA);

        assertTrue(Arrays.equals(attester.akName(), state.akName()));
        assertEquals(24, state.pcrs().size());
        assertTrue(state.warnings().isEmpty());
    }

    @Test
    @DisplayName("admits a node whose PCRs are one of the set's images, and names that image's version")
    void admitsOneOfSeveralImages() throws Exception {
        SoftwareTpmAttester attester = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults());
        Measurements m = attester.measurements();
        MeasurementSet rollout = new MeasurementSet(8, m.variant(), List.of(image("1.0", m, 4, (byte) 0x10),
                new ImageMeasurements("2.0", m)), List.of());

        AttestedState state = verifier(rollout).verify(attester.attest(PURPOSE, NONCE, USER_DATA).toByteArray(),
                PURPOSE, NONCE, USER_DATA);

        assertEquals("2.0", state.imageVersion());
    }

    @Test
    @DisplayName("names every failing PCR when several enforced measurements differ")
    void namesEveryFailingPcr() throws Exception {
        SoftwareTpmAttester attester = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults());
        Measurements m = attester.measurements();
        SortedMap<Integer, ExpectedValue> expected = with(with(new TreeMap<>(m.measurements()), 4, (byte) 1, false), 11, (byte) 2, false);
        byte[] doc = attester.attest(PURPOSE, NONCE, USER_DATA).toByteArray();

        AttestationRejected r = assertThrows(AttestationRejected.class,
                () -> verifier(new Measurements(m.variant(), expected)).verify(doc, PURPOSE, NONCE, USER_DATA));

        assertTrue(r.getMessage().contains("PCR 4 (sha256)") && r.getMessage().contains("PCR 11 (sha256)"), r::toString);
        assertFalse(r.getMessage().contains("PCR 9"));
    }

    static DocumentVerifier verifier(Measurements measurements) {
        return verifier(MeasurementSet.of(measurements));
    }

    static DocumentVerifier verifier(MeasurementSet set) {
        return new DocumentVerifier(new VerifierPolicy(set, AkTrust.ekCa(List.of(pki.caCertificate()))));
    }

    /** The node's own measurements as image {@code version}, except {@code pcr} filled with {@code fill}. */
    static ImageMeasurements image(String version, Measurements node, int pcr, byte fill) {
        return new ImageMeasurements(version, new Measurements(node.variant(), with(new TreeMap<>(node.measurements()), pcr, fill, false)));
    }

    static SortedMap<Integer, ExpectedValue> with(SortedMap<Integer, ExpectedValue> p, int pcr, byte fill, boolean warnOnly) {
        p.put(pcr, new ExpectedValue(filled(fill), warnOnly));
        return p;
    }

    static byte[] filled(byte fill) {
        byte[] v = new byte[32];
        Arrays.fill(v, fill);
        return v;
    }

    /** A row whose policy is one image: the node's own measurements as {@code policy} reshapes them. */
    private static Arguments row(String sentence, UnaryOperator<SoftwareTpmOptions> node, UnaryOperator<byte[]> bytes,
                                 UnaryOperator<SortedMap<Integer, ExpectedValue>> policy, Reason reason, String fragment) {
        return Arguments.of(new Row(sentence, node, bytes,
                m -> MeasurementSet.of(new Measurements(m.variant(), policy.apply(new TreeMap<>(m.measurements())))), reason, fragment));
    }
}
