package dev.sextant.nodeboot.bringup;

import dev.sextant.diskcrypt.SecretFiles;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.housekeeping.discovery.RecordTable;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One cluster's machines as their state disks leave them after the whole cluster was down: a master
 * secret (the discovery CA derived from it, as the join service's KMS and the init node derive it), a
 * discovery group key, and per machine the node state with its member key and a certificate that ended an
 * hour ago; a control plane's services directory holds the master secret as {@code NodeLocalServices} wrote it.
 * Discovery runs as real members on loopback.
 */
public final class ControlPlaneMachines {
    public static final String DOMAIN = "internal.demo";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] masterSecret = random(32);
    private final byte[] masterSalt = random(32);
    private final byte[] clusterId = random(32);
    private final byte[] groupKey = random(32);
    private final DiscoveryCa ca = new DiscoveryCa(new KeyDerivation(masterSecret, masterSalt)
            .dataKey(KeyDerivation.DISCOVERY_CA, KeyDerivation.KEY_BYTES));
    private final Path root;

    public ControlPlaneMachines(Path root) {
        this.root = root;
    }

    /** A member key certified for {@code role} from two hours ago for an hour: ended while the cluster was down. */
    public MemberCredentials expired(String name, MemberRole role) {
        MemberKey key = MemberKey.generate(RANDOM);
        return new MemberCredentials(key.privateKey(), ca.certifyMember(key.publicKey(), name, role, clusterId,
                Instant.now().minus(Duration.ofHours(2)), Duration.ofHours(1)), ca.publicKey());
    }

    /** What a rebooted machine's rejoin (or a control plane's recovery) reads from its state disk. */
    public Membership fromDisk(Via via, String name, MemberRole role, MemberCredentials member) {
        NodeState state = new NodeState(role == MemberRole.CONTROL_PLANE ? BootstrapStatus.Role.CONTROL_PLANE.label()
                : BootstrapStatus.Role.WORKER.label(), name, HexFormat.of().formatHex(clusterId), "2026-11-27T00:00:00Z",
                Base64.getEncoder().encodeToString(groupKey), NodeState.KubernetesRole.none(), role == MemberRole.CONTROL_PLANE,
                Map.of(), NodeState.Member.of(member));
        return via == Via.RECOVERY ? Membership.recovery(state, random(32)) : Membership.rejoin(state, random(32));
    }

    /** {@code name}'s services directory with this cluster's master secret, as a control plane's first start wrote it. */
    public Path servicesWithMasterSecret(String name) throws IOException {
        return servicesWith(name, masterSecret, masterSalt);
    }

    /** {@code name}'s services directory with {@code secret} and {@code salt} as its master secret files. */
    public Path servicesWith(String name, byte[] secret, byte[] salt) throws IOException {
        Path dir = Files.createDirectories(root.resolve(name).resolve("services"));
        Path kms = Files.createDirectories(dir.resolve("kms"));
        SecretFiles.write(kms.resolve("mastersecret"), secret);
        SecretFiles.write(kms.resolve("salt"), salt);
        return dir;
    }

    /** An empty services directory (a worker's: it holds no master secret). */
    public Path emptyServices(String name) throws IOException {
        return Files.createDirectories(root.resolve(name).resolve("services"));
    }

    /** What the bootstrapper hands discovery for {@code m} on a machine whose services directory is {@code services}. */
    public static MemberCredentials atBoot(Path services, Membership m, Clock clock) {
        return new ControlPlaneSelfRenewal(services, clock).credentialsFor(m);
    }

    /**
     * A real discovery member on loopback with {@code member}'s credentials, announcing what its role
     * announces: a control plane its etcd member's name {@code etcd-<node>.DOMAIN}, a worker its kubelet's.
     */
    public GossipNode start(String name, MemberCredentials member, boolean controlPlane, int port, List<InetSocketAddress> seeds)
            throws Exception {
        GossipNode node = GossipNode.start(new GossipNode.Config(name, InetAddress.getLoopbackAddress(), port, seeds, DOMAIN,
                Duration.ofSeconds(6), Duration.ofSeconds(30)), groupKey, member, records -> { });
        String loopback = InetAddress.getLoopbackAddress().getHostAddress();
        node.publish(Set.of(controlPlane ? new EndpointRecord(etcdName(name), loopback, 2380)
                : new EndpointRecord(name + ".kubelet." + DOMAIN, loopback, 10250)));
        return node;
    }

    public static String etcdName(String node) {
        return "etcd-" + node + "." + DOMAIN;
    }

    /** The names {@code node}'s hosts file would map now. */
    public static Set<String> names(GossipNode node) {
        return RecordTable.addressesByName(node.records()).keySet();
    }

    public byte[] caPublicKey() {
        return ca.publicKey();
    }

    public byte[] masterSecret() {
        return masterSecret.clone();
    }

    public byte[] masterSalt() {
        return masterSalt.clone();
    }

    public static byte[] random(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }
}
