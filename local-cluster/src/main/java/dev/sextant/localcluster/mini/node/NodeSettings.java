package dev.sextant.localcluster.mini.node;

import dev.sextant.attestation.digest.Sha256;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings a mini node boots with (QEMU passes them as SMBIOS type 11 strings, so they stay
 * off the measured kernel command line and PCR 12 stays zero): its name, on the control
 * plane the init secret's salted hash, on a worker where the join service is, and on every node
 * the mini EK CA (public), so a node verifies the join service's TPM as the operator does.
 */
public final class NodeSettings {
    public static final String NODE_NAME = "sextant.node-name";
    public static final String INIT_SECRET_HASH = "sextant.init-secret-hash";
    public static final String JOIN_ENDPOINTS = "sextant.join-endpoints";
    /** PEM of the EK CA: a node verifies the join service's TPM with it before it takes a ticket. */
    public static final String EK_CA = "sextant.ek-ca";
    /** QEMU's user network: the guest reaches the host's loopback at this address. */
    public static final String HOST_FROM_GUEST = "10.0.2.2";

    private NodeSettings() {
    }

    public static Map<String, String> controlPlane(String name, byte[] initSecret, byte[] salt, String ekCaPem) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(NODE_NAME, name);
        settings.put(INIT_SECRET_HASH, initSecretHash(salt, initSecret));
        settings.put(EK_CA, ekCaPem);
        return settings;
    }

    /** {@code joinHostPort}: the host port forwarded to the control plane's join service. */
    public static Map<String, String> worker(String name, int joinHostPort, String ekCaPem) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(NODE_NAME, name);
        settings.put(JOIN_ENDPOINTS, HOST_FROM_GUEST + ":" + joinHostPort);
        settings.put(EK_CA, ekCaPem);
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
