package dev.sextant.clusterservices.upgrade;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * @param joinServiceImage the join service's new image
 * @param kmsImage         the KMS's new image
 * @param measurements     new signed measurements for join-config, or empty to keep the current ones
 * @param timeout          how long the rollout may take before it is rolled back
 * @param noWait           apply and return at once: no rollout check, and therefore no rollback
 */
public record UpgradeRequest(String joinServiceImage, String kmsImage, Optional<SignedMeasurements> measurements,
                             Duration timeout, boolean noWait) {
    public UpgradeRequest {
        Objects.requireNonNull(measurements, "measurements");
        Objects.requireNonNull(timeout, "timeout");
        if (joinServiceImage == null || joinServiceImage.isBlank() || kmsImage == null || kmsImage.isBlank()) {
            throw new IllegalArgumentException("both the join service and the KMS image must be given");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the rollout timeout must be positive, not " + timeout);
        }
    }
}
