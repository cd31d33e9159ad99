package dev.sextant.nodeboot.bringup;

import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.nodeboot.datavolume.DataVolumeMounter;

import java.util.Objects;

/**
 * What init, join, rejoin and recovery each produce, and all that {@link BringUp} needs: which
 * cluster (the ID PCR 15 is marked with), the state disk's key, the role, what Kubernetes and the
 * cluster services do, the discovery key, and how it was obtained. Holds secrets: no toString with
 * content.
 *
 * @param via            how this membership was obtained
 * @param role           control plane or worker
 * @param nodeName       this node's name
 * @param clusterId      what PCR 15 is marked with
 * @param diskKey        the state disk's key (already used when the disk was opened at boot)
 * @param discoveryKey   endpoint-discovery group key (empty: discovery stays off)
 * @param kubernetes     what Kubernetes does
 * @param services       what the cluster services do
 * @param newVolumeKeys  the key for a data volume this node has not opened before
 * @param onDisk         the node state read back at boot (rejoin, recovery); null for a first membership
 * @param member         discovery member key and certificate (null: the node cannot publish records,
 *                       and discovery stays off)
 */
public record Membership(Via via, BootstrapStatus.Role role, String nodeName, byte[] clusterId, byte[] diskKey,
                         byte[] discoveryKey, KubernetesPlan kubernetes, ServicesPlan services,
                         DataVolumeMounter.VolumeKeys newVolumeKeys, NodeState onDisk, MemberCredentials member) {
    public Membership {
        Objects.requireNonNull(via, "via");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(diskKey, "diskKey");
        discoveryKey = discoveryKey == null ? new byte[0] : discoveryKey;
        if (via.firstMembership() == (onDisk != null)) {
            throw new IllegalArgumentException(via.label() + (onDisk == null ? " needs the node state read from the disk"
                    : " starts on a fresh disk and has no node state yet"));
        }
    }

    public boolean controlPlane() {
        return role == BootstrapStatus.Role.CONTROL_PLANE;
    }

    @Override
    public String toString() {
        return "Membership[via=" + via.label() + ", role=" + role + ", nodeName=" + nodeName + ", kubernetes="
                + kubernetes.getClass().getSimpleName() + ", secrets redacted]";
    }
}
