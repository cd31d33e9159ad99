package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.VersionedMeasurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.VerifierPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join service's {@link AttestationVerifier}: a {@link DocumentVerifier} over the measurements
 * in a signed file, swapped atomically when a new, validly signed file appears. An invalid update
 * (bad signature, bad JSON, a PCR missing, or a lower version than the set in force: an older
 * signed set replayed into the mount) is refused and logged once, and the previous set stays in force.
 * Verifications never wait for a reload (Constellation serialized them behind a mutex): a reader
 * sees either the old or the new verifier, never a half-built one.
 */
public final class ReloadingVerifier implements AttestationVerifier {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingVerifier.class);

    private record Loaded(DocumentVerifier verifier, Measurements measurements, long version, String fingerprint) {}

    private final Path file;
    private final String publicKeyPem;
    private final AkTrust akTrust;
    private final Ecdsa ecdsa;
    private final AtomicReference<Loaded> current = new AtomicReference<>();
    private volatile String lastRefused = "";

    /** Loads the initial set; a service without a valid policy must not start. */
    public ReloadingVerifier(Path file, String publicKeyPem, AkTrust akTrust, Ecdsa ecdsa) throws MeasurementsException {
        this.file = file;
        this.publicKeyPem = publicKeyPem;
        this.akTrust = akTrust;
        this.ecdsa = ecdsa;
        current.set(load(fingerprint()));
        LOG.info("measurements version {} loaded from {} ({} PCRs)", current.get().version(), file,
                current.get().measurements().measurements().size());
    }

    @Override
    public AttestedState verify(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) throws AttestationRejected {
        return current.get().verifier().verify(document, purpose, nonce, userData);
    }

    public Measurements measurements() {
        return current.get().measurements();
    }

    /** The version of the set in force. */
    public long version() {
        return current.get().version();
    }

    /**
     * Re-reads the file and its signature; swaps if they changed and are valid.
     *
     * @return true if a new set is now in force
     */
    public synchronized boolean reload() {
        String fingerprint;
        try {
            fingerprint = fingerprint();
        } catch (MeasurementsException e) {
            // Unreadable (mid-swap, or the mount is gone): same message, logged once in a row.
            refuse("unreadable: " + e.getMessage(), e);
            return false;
        }
        if (fingerprint.equals(current.get().fingerprint()) || fingerprint.equals(lastRefused)) {
            return false;
        }
        try {
            Loaded next = load(fingerprint);
            long inForce = current.get().version();
            if (next.version() < inForce) {
                throw new MeasurementsException("its version " + next.version() + " is lower than version " + inForce
                        + " in force (an older signed set cannot replace a newer one)");
            }
            current.set(next);
            LOG.info("measurements version {} reloaded from {} ({} PCRs)", next.version(), file,
                    next.measurements().measurements().size());
            return true;
        } catch (MeasurementsException | RuntimeException e) {
            refuse(fingerprint, e);
            return false;
        }
    }

    private void refuse(String fingerprint, Exception e) {
        if (!fingerprint.equals(lastRefused)) {
            LOG.error("refusing the measurements update in {}, keeping the previous set: {}", file, e.getMessage());
        }
        lastRefused = fingerprint;
    }

    private Loaded load(String fingerprint) throws MeasurementsException {
        VersionedMeasurements m = MeasurementsFile.verifyVersioned(file, publicKeyPem);
        return new Loaded(new DocumentVerifier(new VerifierPolicy(m.measurements(), akTrust), ecdsa), m.measurements(), m.version(),
                fingerprint);
    }

    /** Hash of file and signature, so unchanged content (repeated watch events, polls) costs no parse. */
    private String fingerprint() throws MeasurementsException {
        try {
            byte[] content = Files.readAllBytes(file);
            byte[] signature = Files.readAllBytes(MeasurementsFile.signatureFile(file));
            return Sha256.hex(content) + Sha256.hex(signature);
        } catch (IOException e) {
            throw new MeasurementsException("reading " + file + " or its signature: " + e, e);
        }
    }
}
