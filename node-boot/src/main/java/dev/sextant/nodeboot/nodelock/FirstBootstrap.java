package dev.sextant.nodeboot.nodelock;

import java.util.Optional;

/**
 * What a first membership (init, join) tells the node lock, so the TPM can remember the disk
 * before PCR 15 is marked. Holds the disk key: no toString with content.
 *
 * @param clusterId    the cluster ID PCR 15 is about to be marked with
 * @param diskKey      the key the state disk is about to be re-keyed with
 * @param controlPlane whether the node becomes a control plane (which alone serves recovery later)
 * @param joinServiceRoleKey the cluster's join service role public key, when the membership knows it:
 *                     the TPM records its digest, and rejoins demand it of the join service
 */
public record FirstBootstrap(byte[] clusterId, byte[] diskKey, boolean controlPlane, Optional<byte[]> joinServiceRoleKey) {
    public FirstBootstrap {
        clusterId = clusterId.clone();
        diskKey = diskKey.clone();
        joinServiceRoleKey = joinServiceRoleKey.map(byte[]::clone);
    }

    /** A first membership that does not know the role key (a join service without the master secret). */
    public FirstBootstrap(byte[] clusterId, byte[] diskKey, boolean controlPlane) {
        this(clusterId, diskKey, controlPlane, Optional.empty());
    }

    @Override
    public Optional<byte[]> joinServiceRoleKey() { return joinServiceRoleKey.map(byte[]::clone); }

    @Override
    public byte[] clusterId() { return clusterId.clone(); }

    @Override
    public byte[] diskKey() { return diskKey.clone(); }

    @Override
    public String toString() {
        return "FirstBootstrap[controlPlane=" + controlPlane + ", secrets redacted]";
    }
}
