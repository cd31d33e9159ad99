package dev.sextant.nodeboot.nodelock;

/**
 * What a first membership (init, join) tells the node lock, so the TPM can remember the disk
 * before PCR 15 is marked. Holds the disk key: no toString with content.
 *
 * @param clusterId    the cluster ID PCR 15 is about to be marked with
 * @param diskKey      the key the state disk is about to be re-keyed with
 * @param controlPlane whether the node becomes a control plane (which alone serves recovery later)
 */
public record FirstBootstrap(byte[] clusterId, byte[] diskKey, boolean controlPlane) {
    public FirstBootstrap {
        clusterId = clusterId.clone();
        diskKey = diskKey.clone();
    }

    @Override
    public byte[] clusterId() { return clusterId.clone(); }

    @Override
    public byte[] diskKey() { return diskKey.clone(); }

    @Override
    public String toString() {
        return "FirstBootstrap[controlPlane=" + controlPlane + ", secrets redacted]";
    }
}
