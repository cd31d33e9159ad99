package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.tpm.attest.TpmAttester;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;

import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

/**
 * A node backed by a real, provisioned swtpm (EK and AK certificates from its test CA), and the
 * DocumentVerifier that trusts that CA and enforces PCR 15 = 0 (an unlocked node).
 */
final class SwtpmEvidence implements AutoCloseable {
    /** No firmware boots into swtpm here, so there is no event log to attach. */
    private static final Path NO_EVENT_LOG = Path.of("/nonexistent/sextant/binary_bios_measurements");

    final Swtpm tpm;
    final TpmAttester tpmAttester;
    final Counting.CountingAttester attester;
    final Counting.CountingVerifier verifier;

    SwtpmEvidence() throws Exception {
        this(TpmAttester.MAX_BATCH);
    }

    /** {@code maxBatch} 1: a quote per handshake, as before quotes were batched. */
    SwtpmEvidence(int maxBatch) throws Exception {
        tpm = Swtpm.provisioned();
        try {
            tpmAttester = new TpmAttester(tpm.client(), NO_EVENT_LOG, maxBatch);
        } catch (Exception e) {
            tpm.close();
            throw e;
        }
        attester = new Counting.CountingAttester(tpmAttester);
        TreeMap<Integer, ExpectedValue> expected = new TreeMap<>();
        expected.put(15, new ExpectedValue(new byte[32], false));
        verifier = new Counting.CountingVerifier(new DocumentVerifier(new VerifierPolicy(
                new Measurements(Variant.QEMU_VTPM, expected), AkTrust.ekCa(List.of(tpm.ca().certificate())))));
    }

    byte[] akName() throws Exception {
        return TpmtPublic.parse(tpmAttester.akPublic()).name();
    }

    @Override
    public void close() throws Exception {
        try {
            tpmAttester.close();
        } finally {
            tpm.close();
        }
    }
}
