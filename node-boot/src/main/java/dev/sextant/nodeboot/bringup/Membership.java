package dev.sextant.nodeboot.bringup;

import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.nodeboot.deploy.ControlPlaneInput;
import dev.sextant.nodeboot.deploy.ServicesInput;
import dev.sextant.housekeeping.volumes.DataVolumeMounter;
import dev.sextant.nodeboot.kubernetes.ClusterSettings;

import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * What init, join, rejoin and recovery each produce, and all that {@link BringUp} needs: which
 * cluster (the ID PCR 15 is marked with), the state disk's key, the role, what Kubernetes and the
 * cluster services do, the discovery key, and how it was obtained. One factory per way in, each
 * taking only what that way knows: a first membership (init, join) from what the node was handed, a
 * later one (rejoin, recovery) from the node state on the disk its key opened. Holds secrets: no
 * toString with content.
 */
public final class Membership {
    private final Via via;
    private final BootstrapStatus.Role role;
    private final String nodeName;
    private final byte[] clusterId;
    private final byte[] diskKey;
    private final byte[] discoveryKey;
    private final KubernetesPlan kubernetes;
    private final ServicesPlan services;
    private final DataVolumeMounter.VolumeKeys newVolumeKeys;
    private final NodeState onDisk;
    private final MemberCredentials member;
    /** The cluster's join service role public key, when this membership knows it; null otherwise. */
    private final byte[] joinServiceRoleKey;

    private Membership(Via via, BootstrapStatus.Role role, String nodeName, byte[] clusterId, byte[] diskKey,
                       byte[] discoveryKey, KubernetesPlan kubernetes, ServicesPlan services,
                       DataVolumeMounter.VolumeKeys newVolumeKeys, NodeState onDisk, MemberCredentials member) {
        this(via, role, nodeName, clusterId, diskKey, discoveryKey, kubernetes, services, newVolumeKeys, onDisk, member, null);
    }

    private Membership(Via via, BootstrapStatus.Role role, String nodeName, byte[] clusterId, byte[] diskKey,
                       byte[] discoveryKey, KubernetesPlan kubernetes, ServicesPlan services,
                       DataVolumeMounter.VolumeKeys newVolumeKeys, NodeState onDisk, MemberCredentials member,
                       byte[] joinServiceRoleKey) {
        this.joinServiceRoleKey = joinServiceRoleKey;
        this.via = via;
        this.role = Objects.requireNonNull(role, "role");
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
        this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
        this.diskKey = Objects.requireNonNull(diskKey, "diskKey");
        this.discoveryKey = Objects.requireNonNull(discoveryKey, "discoveryKey");
        this.kubernetes = Objects.requireNonNull(kubernetes, "kubernetes");
        this.services = Objects.requireNonNull(services, "services");
        this.newVolumeKeys = newVolumeKeys;
        this.onDisk = onDisk;
        this.member = member;
    }

    /**
     * The operator initialized this node, the cluster's first control plane: it derived every key
     * from the master secret, so it also derives the key of each data volume it opens
     * ({@code volumeKeys}), starts a new Kubernetes cluster and deploys the cluster services.
     */
    public static Membership init(String nodeName, byte[] clusterId, byte[] diskKey, byte[] discoveryKey,
                                  ClusterSettings cluster, ServicesInput services, DataVolumeMounter.VolumeKeys volumeKeys,
                                  MemberCredentials self) {
        return new Membership(Via.INIT, BootstrapStatus.Role.CONTROL_PLANE, nodeName, clusterId, diskKey, discoveryKey,
                new KubernetesPlan.Init(cluster), new ServicesPlan.Deploy(services), Objects.requireNonNull(volumeKeys),
                null, Objects.requireNonNull(self, "self"));
    }

    /**
     * A fresh node received a join ticket: its keys, the Kubernetes plan ({@link KubernetesPlan.Join}
     * or, for a cluster without Kubernetes, {@link KubernetesPlan.None}) and its certified member key.
     */
    public static Membership join(BootstrapStatus.Role role, String nodeName, byte[] clusterId, byte[] diskKey,
                                  byte[] discoveryKey, KubernetesPlan kubernetes, MemberCredentials member) {
        if (!(kubernetes instanceof KubernetesPlan.Join || kubernetes instanceof KubernetesPlan.None)) {
            throw new IllegalArgumentException("a join ticket's Kubernetes plan joins a cluster or there is none");
        }
        return new Membership(Via.JOIN, role, nodeName, clusterId, diskKey, discoveryKey, kubernetes,
                new ServicesPlan.None(), null, null, member);
    }

    /**
     * A fresh control plane received a join ticket for a cluster without Kubernetes: its keys, its certified
     * member key, and from the ticket's control-plane part the cluster services it runs beside the others.
     */
    public static Membership joinControlPlane(String nodeName, byte[] clusterId, byte[] diskKey, byte[] discoveryKey,
                                              ControlPlaneInput services, MemberCredentials member) {
        return new Membership(Via.JOIN, BootstrapStatus.Role.CONTROL_PLANE, nodeName, clusterId, diskKey, discoveryKey,
                new KubernetesPlan.None(), new ServicesPlan.JoinControlPlane(Objects.requireNonNull(services, "services")),
                null, null, member);
    }

    /**
     * This membership, knowing the cluster's join service role public key (32 bytes): the TPM records its
     * digest beside the disk, and the node's rejoins take a key only from a join service that proves it
     * (docs/security.md). Init and a control plane's join derive it from the master secret; a worker
     * takes it from its join ticket; a rejoin of a node whose record names none (version 1) from the
     * proof the join service made in the handshake that brought the disk key that opened the disk.
     */
    public Membership knowingJoinServiceRole(byte[] publicKey) {
        if (publicKey.length != 32) {
            throw new IllegalArgumentException("a join service role key is a 32-byte Ed25519 public key, got "
                    + publicKey.length + " bytes");
        }
        return new Membership(via, role, nodeName, clusterId, diskKey, discoveryKey, kubernetes, services,
                newVolumeKeys, onDisk, member, publicKey.clone());
    }

    /** The cluster's join service role public key, if this membership knows it. */
    public Optional<byte[]> joinServiceRoleKey() {
        return Optional.ofNullable(joinServiceRoleKey).map(byte[]::clone);
    }

    /** A rebooted node received its disk key back from a join service; the rest is read from the disk. */
    public static Membership rejoin(NodeState onDisk, byte[] diskKey) {
        return fromDisk(Via.REJOIN, onDisk, diskKey);
    }

    /** A rebooted control plane received its disk key from the operator; the rest is read from the disk. */
    public static Membership recovery(NodeState onDisk, byte[] diskKey) {
        return fromDisk(Via.RECOVERY, onDisk, diskKey);
    }

    /** The disk's own record wins over configuration: role, name, cluster, what ran. */
    private static Membership fromDisk(Via via, NodeState state, byte[] diskKey) {
        BootstrapStatus.Role role = BootstrapStatus.Role.CONTROL_PLANE.label().equals(state.role())
                ? BootstrapStatus.Role.CONTROL_PLANE : BootstrapStatus.Role.WORKER;
        byte[] discoveryKey = state.discoveryKeyBase64() == null ? new byte[0]
                : Base64.getDecoder().decode(state.discoveryKeyBase64());
        ServicesPlan services = state.nodeLocalServices() ? new ServicesPlan.RestartNodeLocal() : new ServicesPlan.None();
        return new Membership(via, role, state.nodeName(), HexFormat.of().parseHex(state.clusterIdHex()), diskKey,
                discoveryKey, new KubernetesPlan.Restart(state.kubernetes()), services, null, state,
                state.member() == null ? null : state.member().credentials());
    }

    /** How this membership was obtained. */
    public Via via() {
        return via;
    }

    /** Control plane or worker. */
    public BootstrapStatus.Role role() {
        return role;
    }

    public boolean controlPlane() {
        return role == BootstrapStatus.Role.CONTROL_PLANE;
    }

    public String nodeName() {
        return nodeName;
    }

    /** What PCR 15 is marked with. */
    public byte[] clusterId() {
        return clusterId;
    }

    /** The state disk's key (already used when the disk was opened at boot). */
    public byte[] diskKey() {
        return diskKey;
    }

    /** The endpoint-discovery group key; empty: discovery stays off. */
    public byte[] discoveryKey() {
        return discoveryKey;
    }

    /** What Kubernetes does. */
    public KubernetesPlan kubernetes() {
        return kubernetes;
    }

    /** What the cluster services do. */
    public ServicesPlan services() {
        return services;
    }

    /**
     * The key of a data volume this node has not opened before: derived from the master secret at
     * init; otherwise empty, and the volume's key is bound to the state disk's ({@link BringUp#derivedVolumeKey}).
     */
    public Optional<DataVolumeMounter.VolumeKeys> newVolumeKeys() {
        return Optional.ofNullable(newVolumeKeys);
    }

    /** The node state read back at boot (rejoin, recovery); empty for a first membership. */
    public Optional<NodeState> onDisk() {
        return Optional.ofNullable(onDisk);
    }

    /** Discovery member key and certificate; null: the node cannot publish records, and discovery stays off. */
    public MemberCredentials member() {
        return member;
    }

    @Override
    public String toString() {
        return "Membership[via=" + via.label() + ", role=" + role + ", nodeName=" + nodeName + ", kubernetes="
                + kubernetes.getClass().getSimpleName() + ", secrets redacted]";
    }
}
