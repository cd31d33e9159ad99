package dev.sextant.localcluster.mini.node;

import dev.sextant.attestation.digest.Sha256;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings a mini node boots with (QEMU passes them as SMBIOS type 11 strings, so they stay
 * off the measured kernel command line and PCR 12 stays zero): its name and the mini EK CA (public),
 * so a node verifies the join service's TPM as the operator does; on the first control plane the
 * init secret's salted hash; on every other node, and on the first from its second boot on, where the
 * control planes' join services are; on every control plane where its etcd member is reached, its
 * heartbeat, and the zone of the data volume it claims for etcd's data ({@link EtcdVolumeTag}), and on
 * those that join, that they join as one.
 */
public final class NodeSettings {
    public static final String NODE_NAME = "sextant.node-name";
    public static final String INIT_SECRET_HASH = "sextant.init-secret-hash";
    public static final String JOIN_ENDPOINTS = "sextant.join-endpoints";
    /** PEM of the EK CA: a node verifies the join service's TPM with it before it takes a ticket. */
    public static final String EK_CA = "sextant.ek-ca";
    /** "true": the node joins as a control plane. */
    public static final String CONTROL_PLANE = "sextant.control-plane";
    /** HOST:PEER_PORT:CLIENT_PORT its etcd member advertises (host forwards, not its own ports). */
    public static final String ETCD_ADVERTISE = "sextant.etcd-advertise";
    /**
     * HOST:PORT where the re-attesting join service reaches the node's VerifyService: its forward on the
     * host, as seen from a guest (every guest's own address is 10.0.2.15, so its own would name the caller).
     */
    public static final String VERIFY_ADVERTISE = "sextant.verify-advertise";
    /**
     * The zone of the etcd data volume a control plane claims ({@code sx1:<its cluster>:cp:ZONE:*}); its
     * presence switches data volumes on (node-boot's {@code SEXTANT_DATA_VOLUME}, {@code SEXTANT_ZONE}).
     */
    public static final String DATA_VOLUME_ZONE = "sextant.data-volume-zone";
    /** The etcd member's heartbeat in milliseconds (its election timeout is ten of them). */
    public static final String ETCD_HEARTBEAT_MS = "sextant.etcd-heartbeat-ms";
    /**
     * Five times etcd's default: the members share the host's emulated cores with every other guest, and at
     * the default an idle cluster's heartbeats take a large share of them from the node that boots, and are
     * still sent late (docs/benchmarks.md).
     */
    static final String MINI_ETCD_HEARTBEAT_MS = "500";
    /** QEMU's user network: the guest reaches the host's loopback at this address. */
    public static final String HOST_FROM_GUEST = "10.0.2.2";

    private NodeSettings() {
    }

    /**
     * The control plane the operator initializes: it joins nothing, so its first boot is told of no join service
     * (mini up adds them to its launch file for its later boots, once the others exist).
     */
    public static Map<String, String> initNode(String name, byte[] initSecret, byte[] salt, String ekCaPem, PortPlan ports) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(NODE_NAME, name);
        settings.put(INIT_SECRET_HASH, initSecretHash(salt, initSecret));
        settings.put(ETCD_ADVERTISE, ports.etcdAdvertise(name));
        settings.put(EK_CA, ekCaPem);
        settings.put(VERIFY_ADVERTISE, ports.verifyAdvertise(name));
        settings.put(DATA_VOLUME_ZONE, EtcdVolumeTag.ZONE);
        settings.put(ETCD_HEARTBEAT_MS, MINI_ETCD_HEARTBEAT_MS);
        return settings;
    }

    /** A control plane that joins the initialized one: its etcd member is added as a learner, then promoted. */
    public static Map<String, String> joiningControlPlane(String name, String ekCaPem, PortPlan ports) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(NODE_NAME, name);
        settings.put(CONTROL_PLANE, "true");
        settings.put(JOIN_ENDPOINTS, ports.joinEndpoints());
        settings.put(ETCD_ADVERTISE, ports.etcdAdvertise(name));
        settings.put(EK_CA, ekCaPem);
        settings.put(VERIFY_ADVERTISE, ports.verifyAdvertise(name));
        settings.put(DATA_VOLUME_ZONE, EtcdVolumeTag.ZONE);
        settings.put(ETCD_HEARTBEAT_MS, MINI_ETCD_HEARTBEAT_MS);
        return settings;
    }

    public static Map<String, String> worker(String name, String ekCaPem, PortPlan ports) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(NODE_NAME, name);
        settings.put(JOIN_ENDPOINTS, ports.joinEndpoints());
        settings.put(EK_CA, ekCaPem);
        settings.put(VERIFY_ADVERTISE, ports.verifyAdvertise(name));
        return settings;
    }

    /**
     * The node's format (node-boot's InitSecretHash): "sha256:SALT_HEX:DIGEST_HEX" with
     * DIGEST = SHA-256(SALT || secret). Only the hash reaches the node; the secret stays with the operator.
     */
    static String initSecretHash(byte[] salt, byte[] secret) {
        return "sha256:" + HexFormat.of().formatHex(salt) + ":" + Sha256.hex(salt, secret);
    }
}
