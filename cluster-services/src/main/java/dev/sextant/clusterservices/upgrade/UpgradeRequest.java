package dev.sextant.clusterservices.upgrade;

import dev.sextant.clusterservices.ImageReference;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * @param joinServiceImage the join service's new image, by digest ({@code name@sha256:<hex>})
 * @param kmsImage         the KMS's new image, by digest
 * @param measurements     new signed measurements for join-config, or empty to keep the current ones
 * @param timeout          how long the rollout may take before it is rolled back
 * @param noWait           apply and return at once: no rollout check, and therefore no rollback
 */
public record UpgradeRequest(String joinServiceImage, String kmsImage, Optional<SignedMeasurementsFile> measurements,
                             Duration timeout, boolean noWait) {
    public UpgradeRequest {
        Objects.requireNonNull(measurements, "measurements");
        Objects.requireNonNull(timeout, "timeout");
        ImageReference.requireDigest(joinServiceImage, "the join service image");
        ImageReference.requireDigest(kmsImage, "the KMS image");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the rollout timeout must be positive, not " + timeout);
        }
    }
}
