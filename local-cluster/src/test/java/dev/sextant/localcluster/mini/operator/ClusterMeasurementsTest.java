package dev.sextant.localcluster.mini.operator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import java.util.HexFormat;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The measurements of a bootstrapped mini node")
class ClusterMeasurementsTest {
    @Test
    @DisplayName("are the image's, with PCR 15 = SHA-256(0^32 || SHA-256(cluster ID)) as TPM2_PCR_Event leaves it")
    void pcr15MarkedWithClusterId() {
        TreeMap<Integer, ExpectedValue> values = new TreeMap<>();
        values.put(4, new ExpectedValue(new byte[32], false));
        values.put(15, new ExpectedValue(new byte[32], false));
        Measurements image = new Measurements(Variant.values()[0], values);
        byte[] clusterId = HexFormat.of().parseHex("00".repeat(32));
        Measurements cluster = ClusterMeasurements.forCluster(image, clusterId);
        assertArrayEquals(new byte[32], cluster.measurements().get(4).expected());
        // Computed with coreutils: c=$(printf '%064d' 0 | xxd -r -p | sha256sum | cut -c1-64);
        // (printf '%064d' 0 | xxd -r -p; printf $c | xxd -r -p) | sha256sum
        assertEquals("6e96bce3e21a7bdcddd1735dab055b838071df7dc4ae4f0e16be0a1b4cb8735c",
                HexFormat.of().formatHex(cluster.measurements().get(15).expected()));
        assertEquals(image.variant(), cluster.variant());
    }
}
