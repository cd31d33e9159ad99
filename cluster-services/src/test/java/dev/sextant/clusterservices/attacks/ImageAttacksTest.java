package dev.sextant.clusterservices.attacks;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.clusterservices.ServicesConfig;
import dev.sextant.clusterservices.TestServices;
import dev.sextant.clusterservices.upgrade.UpgradeRequest;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An image named by tag can be re-pointed at other bytes by whoever controls the registry after the
 * operator approved it; the services hold the master secret, so only digests are accepted.
 */
@DisplayName("Attacks through the services' images")
class ImageAttacksTest {
    private static final String TAGGED_KMS = "127.0.0.1:5000/sextant/kms:1.0";

    private static ServicesConfig withKmsImage(String image) {
        ServicesConfig c = TestServices.fixed();
        return new ServicesConfig(c.joinServiceImage(), image, c.measurementsJson(), c.measurementsSignature(),
                c.measurementsPublicKeyPem(), c.ekCaPem(), c.masterSecret(), c.salt(), c.measurementSalt(),
                c.apiServerEndpoint(), c.joinNodePort(), c.initNode(), c.etcd());
    }

    @Test
    @DisplayName("an image by tag in the cluster's services configuration: refused, naming the image and how to get its digest")
    void tagInServicesConfig() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> withKmsImage(TAGGED_KMS));
        assertTrue(e.getMessage().contains("the KMS image '" + TAGGED_KMS + "' is not pinned by digest"), e.getMessage());
        assertTrue(e.getMessage().contains("crane digest " + TAGGED_KMS), e.getMessage());
    }

    @Test
    @DisplayName("an image by tag in `sextant upgrade apply`: refused before anything is read or written")
    void tagInUpgrade() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpgradeRequest(
                "127.0.0.1:5000/sextant/join-service:2.0", TestServices.KMS_IMAGE_V2, Optional.empty(), Duration.ofMinutes(5), false));
        assertTrue(e.getMessage().contains("the join service image '127.0.0.1:5000/sextant/join-service:2.0' is not pinned by digest"),
                e.getMessage());
    }

    @Test
    @DisplayName("a short or upper-case digest: refused as well")
    void halfDigests() {
        for (String image : new String[] {"sextant/kms@sha256:abcd",
                "sextant/kms@sha256:" + "AB".repeat(32)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> withKmsImage(image), image);
            assertTrue(e.getMessage().contains("the KMS image '" + image + "' is not pinned by digest"), e.getMessage());
        }
    }
}
