package dev.sextant.nodeboot.clusterservices;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.nio.file.Path;

/**
 * The cluster services as services of the node (no Kubernetes).
 *
 * @param dir          where their configuration and secrets are written (tmpfs on a node: /run)
 * @param kmsPort      the KMS's gRPC port on this node
 * @param joinTpm      the TPM the join service attests itself with ("" = it does not attest itself)
 */
@ConfigurationProperties("sextant.services")
public record NodeLocalSettings(
        @Bindable(defaultValue = "/run/sextant/services") Path dir,
        @Bindable(defaultValue = "9000") int kmsPort,
        @Bindable(defaultValue = "") String joinTpm) {
}
