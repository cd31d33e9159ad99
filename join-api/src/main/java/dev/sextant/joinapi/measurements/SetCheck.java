package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The checks a measurement set passes before a join service uses it or publishes it (docs/image-upgrades.md,
 * "The set in force lives in etcd"): it is a set; its signature verifies under the join service's signing
 * key and that key is the one the cluster pinned ({@link KeyPin#admits}); its version is not below the floor
 * (published: above the set in force); and it admits no image the cluster retired, by version or by PCR 4, 9
 * and 11 ({@link SetAdmission} against {@code measurements/retired/}). The order is the refusals' order: a set that is not one says so before anything is read from etcd.
 * Read from the cluster store on every check: the pin, the floor and the retired images are the cluster's,
 * not this service's.
 */
@Singleton
public class SetCheck {
    private final SetStore store;
    private final Path publicKeyFile;

    @Inject
    public SetCheck(SetStore store, JoinServiceConfig config) {
        this(store, config.measurements().publicKeyFile());
    }

    SetCheck(SetStore store, Path publicKeyFile) {
        this.store = store;
        this.publicKeyFile = publicKeyFile;
    }

    /** How the version is judged: a published set must be above the set in force, a set read back not below it. */
    enum Versions { ABOVE_IN_FORCE, NOT_BELOW_IN_FORCE }

    /**
     * A set that passed: what it is, the facts the key pin judged, the images it retires that etcd does not
     * record yet (version to digest), the floor as read (to raise it in the same transaction) and the revision
     * of the key pin that admitted the set (compared in that transaction).
     */
    record Passed(SignedSet signed, MeasurementSet set, SetInForce facts, Map<String, String> newlyRetired,
                  long floor, long floorRevision, long keyPinRevision) {
        boolean raisesFloor() {
            return set.version() > floor;
        }
    }

    /**
     * @param inForce the version this join service holds in force
     * @throws Refusal {@link PublishRefusal} or IMAGE_RETIRED naming what is wrong; CLUSTER_STORE_UNAVAILABLE when etcd does not answer
     */
    Passed check(SignedSet signed, long inForce, Versions versions) throws Refusal {
        MeasurementSet set;
        try {
            set = MeasurementSet.parse(signed.json());
        } catch (MeasurementsException | RuntimeException e) {
            throw new Refusal(PublishRefusal.NOT_A_SET, "not a measurement set: " + e.getMessage());
        }
        String keyPem = readKey();
        MeasurementsKey key;
        try {
            key = MeasurementsKey.of(keyPem);
        } catch (MeasurementsException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the join service's measurement signing key is unusable", e);
        }
        try {
            MeasurementsFile.verifySet(signed.json(), signed.signatureBytes(), keyPem);
        } catch (MeasurementsException e) {
            throw new Refusal(PublishRefusal.NOT_SIGNED_BY_PINNED_KEY, "the set (version " + set.version()
                    + ") is not signed by the measurement signing key " + key.fingerprint() + " (" + e.getMessage() + ")");
        }
        SetInForce facts = new SetInForce(set.version(), key.fingerprint(), set.nextKey().map(MeasurementsKey::fingerprint),
                MeasurementsKey.PREFIX + Sha256.hex(signed.json()));
        Versioned pinRead = pinRead();
        KeyPin pin = pin(pinRead);
        if (!pin.admits(facts)) {
            throw new Refusal(PublishRefusal.NOT_SIGNED_BY_PINNED_KEY, "the set (version " + set.version() + ") is signed by key "
                    + facts.signer() + ", but the cluster pinned key " + pin.key());
        }
        Optional<Versioned> floorRead = store.floor();
        long floor;
        try {
            floor = floorRead.map(f -> number(f.value())).orElse(-1L);
        } catch (IllegalStateException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the measurements floor in the cluster store is not a version number");
        }
        checkVersion(set.version(), inForce, floor, versions);
        Map<String, String> retired = store.retired();
        SetAdmission.check(new RetiredImages(retired), set);
        Map<String, String> newlyRetired = new LinkedHashMap<>();
        for (ImageMeasurements image : set.retired()) {
            if (!retired.containsKey(image.imageVersion())) {
                newlyRetired.put(image.imageVersion(), RetiredImages.digest(image.measurements()));
            }
        }
        return new Passed(signed, set, facts, newlyRetired, floor, floorRead.map(Versioned::modRevision).orElse(0L),
                pinRead.modRevision());
    }

    private static void checkVersion(long version, long inForce, long floor, Versions versions) throws Refusal {
        if (versions == Versions.ABOVE_IN_FORCE) {
            long bound = Math.max(inForce, floor);
            if (version <= bound) {
                throw new Refusal(PublishRefusal.VERSION_NOT_ABOVE, "the set's version " + version + " is not above version "
                        + bound + ", the one in force: publish it as version " + (bound + 1) + " or higher");
            }
            return;
        }
        if (version < floor) {
            throw new Refusal(PublishRefusal.VERSION_NOT_ABOVE, "the set's version " + version + " is below version " + floor
                    + " the cluster has accepted before (an older signed set written back?)");
        }
        if (version < inForce) {
            throw new Refusal(PublishRefusal.VERSION_NOT_ABOVE, "the set's version " + version + " is below version " + inForce
                    + " in force here (an older signed set written back?)");
        }
    }

    private Versioned pinRead() throws Refusal {
        Optional<Versioned> read = store.keyPin();
        if (read.isEmpty()) {
            throw new Refusal(PublishRefusal.NO_KEY_PINNED, "the cluster has pinned no measurement signing key yet (the init"
                    + " node's join service pins it at start): no set can be judged");
        }
        return read.get();
    }

    private static KeyPin pin(Versioned read) throws Refusal {
        try {
            return KeyPin.parse(read.value());
        } catch (IllegalArgumentException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the measurement key pin in the cluster store is not one this join service reads");
        }
    }

    private String readKey() throws Refusal {
        try {
            return Files.readString(publicKeyFile);
        } catch (IOException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the join service cannot read its measurement signing key", e);
        }
    }

    private static long number(String value) throws IllegalStateException {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("measurements/floor in etcd is not a version number", e);
        }
    }
}
