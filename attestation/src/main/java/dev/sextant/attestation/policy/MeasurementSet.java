package dev.sextant.attestation.policy;

import dev.sextant.attestation.Variant;

import java.util.ArrayList;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A signed measurement set as an operator publishes it (format 2, docs/image-upgrades.md): its version,
 * the images the cluster admits and the images it has retired, each with its PCR values. During a
 * rollout it admits the old image and the new; afterwards a set without the old one retires it, and a
 * node still on it is refused naming the retired version rather than with a bare PCR mismatch. Like a
 * format-1 set it may name the key that signs the sets after it ({@code nextKey}: the pinned key's rotation).
 */
public record MeasurementSet(long version, Variant variant, List<ImageMeasurements> images, List<ImageMeasurements> retired,
                             Optional<MeasurementsKey> nextKey) {
    /** The PCRs that tell images apart: the UKI (4, 11) and the boot loader's view of the disk (9). */
    private static final int[] IMAGE_PCRS = {4, 9, 11};

    public MeasurementSet {
        if (version < 0) {
            throw new IllegalArgumentException("a measurement set's version is a non-negative integer, not " + version);
        }
        if (variant == null || images == null || retired == null || nextKey == null) {
            throw new IllegalArgumentException("a measurement set needs a variant, images and retired images");
        }
        images = List.copyOf(images);
        retired = List.copyOf(retired);
        if (images.isEmpty()) {
            throw new IllegalArgumentException("a measurement set admits at least one image");
        }
        Set<String> versions = new HashSet<>();
        List<ImageMeasurements> all = new ArrayList<>(images);
        all.addAll(retired);
        for (ImageMeasurements image : all) {
            if (image.measurements().variant() != variant) {
                throw new IllegalArgumentException("image " + image.imageVersion() + " is for variant "
                        + image.measurements().variant().id() + ", the set for " + variant.id());
            }
            if (!versions.add(image.imageVersion())) {
                throw new IllegalArgumentException("image version " + image.imageVersion() + " is named twice");
            }
        }
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                if (sameImagePcrs(all.get(i).measurements(), all.get(j).measurements())) {
                    throw new IllegalArgumentException("images " + all.get(i).imageVersion() + " and " + all.get(j).imageVersion()
                            + " have the same PCR 4, 9 and 11: the set could not say which one a node runs");
                }
            }
        }
    }

    /** A set that names no next key. */
    public MeasurementSet(long version, Variant variant, List<ImageMeasurements> images, List<ImageMeasurements> retired) {
        this(version, variant, images, retired, Optional.empty());
    }

    /** A set of one image, as a format-1 file or a policy built in code holds it. */
    public static MeasurementSet of(long version, Measurements measurements, String imageVersion) {
        return new MeasurementSet(version, measurements.variant(), List.of(new ImageMeasurements(imageVersion, measurements)), List.of());
    }

    /** {@link #of(long, Measurements, String)} for a policy built in code: version 0, its image unversioned. */
    public static MeasurementSet of(Measurements measurements) {
        return of(0, measurements, ImageMeasurements.UNVERSIONED);
    }

    /** This set naming {@code key} as the key that signs the sets after it (a rotation, when signed by the pinned key). */
    public MeasurementSet withNextKey(MeasurementsKey key) {
        return new MeasurementSet(version, variant, images, retired, Optional.of(key));
    }

    /** This set with {@code pcr} enforced at {@code value} in every image, admitted or retired. */
    public MeasurementSet enforcing(int pcr, byte[] value) {
        return new MeasurementSet(version, variant,
                images.stream().map(i -> new ImageMeasurements(i.imageVersion(), i.measurements().enforcing(pcr, value))).toList(),
                retired.stream().map(i -> new ImageMeasurements(i.imageVersion(), i.measurements().enforcing(pcr, value))).toList(),
                nextKey);
    }

    /** This set with {@code pcr} left to the verifier in every image, admitted or retired ({@link Measurements#ignoring}). */
    public MeasurementSet ignoring(int pcr) {
        return new MeasurementSet(version, variant,
                images.stream().map(i -> new ImageMeasurements(i.imageVersion(), i.measurements().ignoring(pcr))).toList(),
                retired.stream().map(i -> new ImageMeasurements(i.imageVersion(), i.measurements().ignoring(pcr))).toList(),
                nextKey);
    }

    /**
     * Which image the quoted PCRs are: the first admitted image whose enforced values all match, else a
     * retired one whose image PCRs (4, 9, 11) match, else the mismatches against each admitted image. A
     * retired image is known by what it booted alone, whatever the node's PCR 12, 13 and 15 say: the host
     * that boots a node from an old disk gets the refusal naming the retired version also before the node
     * is locked (PCR 15 still zero), and a retired match refuses, so it can never admit more.
     */
    public ImageMatch match(Map<Integer, byte[]> quotedSha256) {
        Map<String, List<String>> failures = new LinkedHashMap<>();
        for (ImageMeasurements image : images) {
            MeasurementComparison c = image.measurements().compare(quotedSha256);
            if (c.passed()) {
                return new ImageMatch.Admitted(image, c.warnings());
            }
            failures.put(image.imageVersion(), c.failures());
        }
        for (ImageMeasurements image : retired) {
            if (imagePcrsMatch(image.measurements(), quotedSha256)) {
                return new ImageMatch.Retired(image, version);
            }
        }
        return new ImageMatch.Mismatch(failures);
    }

    /**
     * The set that starts a rollout: this one, admitting {@code image} as well, under {@code newVersion}.
     * An image already admitted under the same version is not added twice (a resumed rollout).
     */
    public MeasurementSet admitting(ImageMeasurements image, long newVersion) {
        if (images.stream().anyMatch(i -> i.imageVersion().equals(image.imageVersion()))) {
            return new MeasurementSet(newVersion, variant, images, retired, Optional.empty());
        }
        List<ImageMeasurements> admitted = new ArrayList<>(images);
        admitted.add(image);
        return new MeasurementSet(newVersion, variant, admitted, retired, Optional.empty());
    }

    /**
     * The set that ends a rollout: only {@code kept} admitted, every other admitted image moved to
     * {@code retired}, under {@code newVersion}.
     */
    public MeasurementSet retiringAllBut(String kept, long newVersion) {
        List<ImageMeasurements> keep = images.stream().filter(i -> i.imageVersion().equals(kept)).toList();
        if (keep.isEmpty()) {
            throw new IllegalArgumentException("image " + kept + " is not admitted by measurement set " + version);
        }
        List<ImageMeasurements> gone = new ArrayList<>(retired);
        images.stream().filter(i -> !i.imageVersion().equals(kept)).forEach(gone::add);
        return new MeasurementSet(newVersion, variant, keep, gone, Optional.empty());
    }

    /** Parses and validates a set's JSON, format 2 or 1 ({@link MeasurementSetJson}). */
    public static MeasurementSet parse(byte[] json) throws MeasurementsException {
        return MeasurementSetJson.parse(json);
    }

    /** The canonical JSON (format 2). */
    public byte[] toJson() {
        return MeasurementSetJson.write(this);
    }

    private static boolean imagePcrsMatch(Measurements image, Map<Integer, byte[]> quotedSha256) {
        for (int pcr : IMAGE_PCRS) {
            ExpectedValue expected = image.measurements().get(pcr);
            if (expected == null || !MessageDigest.isEqual(expected.expected(), quotedSha256.get(pcr))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameImagePcrs(Measurements a, Measurements b) {
        for (int pcr : IMAGE_PCRS) {
            ExpectedValue x = a.measurements().get(pcr);
            ExpectedValue y = b.measurements().get(pcr);
            if (x == null || y == null || !Arrays.equals(x.expected(), y.expected())) {
                return false;
            }
        }
        return true;
    }
}
