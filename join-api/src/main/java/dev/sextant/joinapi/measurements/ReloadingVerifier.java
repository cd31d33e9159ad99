package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.grpcsupport.Refusal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join service's {@link AttestationVerifier}: a {@link DocumentVerifier} over the measurement set
 * in a signed file (every image it admits; a node on an image it retired is refused naming that image), swapped atomically when a new, validly signed file appears (the public key is read
 * again with it: both are ConfigMaps, and a key rotation changes both; whose key it is, is the cluster
 * store's to judge, {@link MeasurementsFloor}). An invalid update
 * (bad signature, bad JSON, a PCR missing, or a lower version than the set in force: an older
 * signed set replayed into the mount; a set that admits an image retired by a set this service held before,
 * {@link SetAdmission}) is refused and logged once, and the previous set stays in force.
 * Verifications never wait for a reload (Constellation serialized them behind a mutex): a reader
 * sees either the old or the new verifier, never a half-built one.
 */
public final class ReloadingVerifier implements AttestationVerifier {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingVerifier.class);

    private record Loaded(DocumentVerifier verifier, MeasurementSet measurements, SetInForce set, String fingerprint) {
        long version() {
            return set.version();
        }
    }

    /** Where the public key comes from: a fixed PEM, or a file read again at every reload. */
    @FunctionalInterface
    public interface PublicKeySource {
        String read() throws MeasurementsException;

        static PublicKeySource fixed(String pem) {
            return () -> pem;
        }

        static PublicKeySource file(Path file) {
            return () -> {
                try {
                    return Files.readString(file);
                } catch (IOException e) {
                    throw new MeasurementsException("reading the measurements public key " + file + ": " + e, e);
                }
            };
        }
    }

    private final Path file;
    private final PublicKeySource publicKey;
    private final AkTrust akTrust;
    private final Ecdsa ecdsa;
    private final AtomicReference<Loaded> current = new AtomicReference<>();
    /** Every image retired by a set this service held since it started: retirement is final, also in memory. */
    private volatile RetiredImages retired;
    private volatile String lastRefused = "";

    /** Loads the initial set, verified with a key that never changes; a service without a valid policy must not start. */
    public ReloadingVerifier(Path file, String publicKeyPem, AkTrust akTrust, Ecdsa ecdsa) throws MeasurementsException {
        this(file, PublicKeySource.fixed(publicKeyPem), akTrust, ecdsa);
    }

    /**
     * Loads the initial set. The key is read again at every reload, with the set: its ConfigMap changes when
     * the signing key is rotated. Neither is trusted for that: the key a set is signed with must be the one
     * the cluster pinned ({@link MeasurementsFloor}), however both were swapped.
     */
    public ReloadingVerifier(Path file, PublicKeySource publicKey, AkTrust akTrust, Ecdsa ecdsa) throws MeasurementsException {
        this.file = file;
        this.publicKey = publicKey;
        this.akTrust = akTrust;
        this.ecdsa = ecdsa;
        current.set(load(fingerprint()));
        retired = RetiredImages.of(current.get().measurements());
        LOG.info("measurements version {} loaded from {} ({})", current.get().version(), file, describe(current.get().measurements()));
    }

    @Override
    public AttestedState verify(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) throws AttestationRejected {
        return current.get().verifier().verify(document, purpose, nonce, userData);
    }

    /** The measurement set in force. */
    public MeasurementSet measurements() {
        return current.get().measurements();
    }

    /** Every image retired by a set this service held since it started. */
    public RetiredImages retired() {
        return retired;
    }

    /** The version of the set in force. */
    public long version() {
        return current.get().version();
    }

    /** What the cluster store is asked about the set in force: its version, its signing key, the next key it names. */
    public SetInForce setInForce() {
        return current.get().set();
    }

    /**
     * Re-reads the file, its signature and the public key; swaps if they changed and are valid. A set that
     * follows a rotating set and is signed by the key it named keeps that set as {@link SetInForce#handedOverBy()}.
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
            Loaded loaded = load(fingerprint);
            Loaded next = new Loaded(loaded.verifier(), loaded.measurements(), loaded.set().after(current.get().set()), fingerprint);
            long inForce = current.get().version();
            if (next.version() < inForce) {
                throw new MeasurementsException("its version " + next.version() + " is lower than version " + inForce
                        + " in force (an older signed set cannot replace a newer one)");
            }
            SetAdmission.check(retired, next.measurements());
            retired = retired.with(next.measurements());
            current.set(next);
            LOG.info("measurements version {} reloaded from {} ({})", next.version(), file, describe(next.measurements()));
            return true;
        } catch (MeasurementsException | Refusal | RuntimeException e) {
            refuse(fingerprint, e);
            return false;
        }
    }

    /**
     * Puts a set that came from the cluster store ({@code measurements/set}) in force, checked as a file's set
     * is: its signature under the same key, its version not below the one in force, no image retired by a set
     * held before admitted again ({@link SetAdmission}). Whose key and which floor
     * is the caller's check ({@code SetCheck}); this is the swap. The file stays where it is: a file of the
     * same content, signature and key is this set (the same fingerprint), so polling it changes nothing.
     *
     * @return true if the set is now in force, false if it was in force already
     * @throws MeasurementsException the set does not verify or is older than the one in force; nothing changed
     */
    public synchronized boolean offer(byte[] content, byte[] signature) throws MeasurementsException {
        String keyPem = publicKey.read();
        String fingerprint = Sha256.hex(content) + Sha256.hex(signature) + Sha256.hex(keyPem.getBytes(StandardCharsets.UTF_8));
        if (fingerprint.equals(current.get().fingerprint())) {
            return false;
        }
        Loaded loaded = load(content, signature, keyPem, fingerprint);
        Loaded next = new Loaded(loaded.verifier(), loaded.measurements(), loaded.set().after(current.get().set()), fingerprint);
        long inForce = current.get().version();
        if (next.version() < inForce) {
            throw new MeasurementsException("its version " + next.version() + " is lower than version " + inForce
                    + " in force (an older signed set cannot replace a newer one)");
        }
        try {
            SetAdmission.check(retired, next.measurements());
        } catch (Refusal r) {
            throw new MeasurementsException(r.getMessage());
        }
        retired = retired.with(next.measurements());
        current.set(next);
        LOG.info("measurements version {} taken from the cluster store ({})", next.version(), describe(next.measurements()));
        return true;
    }

    private void refuse(String fingerprint, Exception e) {
        if (!fingerprint.equals(lastRefused)) {
            LOG.error("refusing the measurements update in {}, keeping the previous set: {}", file, e.getMessage());
        }
        lastRefused = fingerprint;
    }

    private Loaded load(String fingerprint) throws MeasurementsException {
        String keyPem = publicKey.read();
        byte[] content;
        byte[] signature;
        try {
            content = Files.readAllBytes(file);
            signature = Files.readAllBytes(MeasurementsFile.signatureFile(file));
        } catch (IOException e) {
            throw new MeasurementsException("reading " + file + " or its signature: " + e, e);
        }
        return load(content, signature, keyPem, fingerprint);
    }

    private Loaded load(byte[] content, byte[] signature, String keyPem, String fingerprint) throws MeasurementsException {
        MeasurementsKey key = MeasurementsKey.of(keyPem);
        // The bytes verified are the bytes digested: the digest names this set in a key rotation record.
        MeasurementSet m = MeasurementsFile.verifySet(content, signature, keyPem);
        SetInForce set = new SetInForce(m.version(), key.fingerprint(), m.nextKey().map(MeasurementsKey::fingerprint),
                MeasurementsKey.PREFIX + Sha256.hex(content));
        return new Loaded(new DocumentVerifier(new VerifierPolicy(m, akTrust), ecdsa), m, set, fingerprint);
    }

    private static String describe(MeasurementSet set) {
        String images = "images " + String.join(", ", set.images().stream().map(ImageMeasurements::imageVersion).toList());
        return set.retired().isEmpty() ? images
                : images + "; retired " + String.join(", ", set.retired().stream().map(ImageMeasurements::imageVersion).toList());
    }

    /** Hash of file, signature and key, so unchanged content (repeated watch events, polls) costs no parse. */
    private String fingerprint() throws MeasurementsException {
        try {
            byte[] content = Files.readAllBytes(file);
            byte[] signature = Files.readAllBytes(MeasurementsFile.signatureFile(file));
            return Sha256.hex(content) + Sha256.hex(signature) + Sha256.hex(publicKey.read().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new MeasurementsException("reading " + file + " or its signature: " + e, e);
        }
    }
}
