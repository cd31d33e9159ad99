package dev.sextant.localcluster.mini.operator;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;

/**
 * What a node of this cluster must quote once it is bootstrapped: the image's measurements, except
 * PCR 15, which the node lock extended with the cluster ID (TPM2_PCR_Event: the TPM hashes the
 * event data, so PCR 15 = SHA-256(0^32 || SHA-256(cluster ID))). A node locked to another cluster,
 * or never locked, fails this policy.
 */
public final class ClusterMeasurements {
    public static final int CLUSTER_ID_PCR = 15;

    private ClusterMeasurements() {
    }

    public static Measurements forCluster(Measurements image, byte[] clusterId) {
        return image.enforcing(CLUSTER_ID_PCR, markedPcr15(clusterId));
    }

    /** {@link #forCluster(Measurements, byte[])} for every image of the set, admitted or retired. */
    public static MeasurementSet forCluster(MeasurementSet images, byte[] clusterId) {
        return images.enforcing(CLUSTER_ID_PCR, markedPcr15(clusterId));
    }

    static byte[] markedPcr15(byte[] clusterId) {
        return Sha256.of(new byte[32], Sha256.of(clusterId));
    }
}
