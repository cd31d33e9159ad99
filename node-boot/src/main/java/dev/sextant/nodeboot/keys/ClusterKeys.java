package dev.sextant.nodeboot.keys;

import java.util.Locale;

/**
 * The keys a node derives from the cluster's master secret (Constellation's key names, so the
 * values match a KMS that derives the same way).
 */
public final class ClusterKeys {
    public static final int KEY_BYTES = 32;

    private final byte[] masterSecret;
    private final byte[] masterSalt;

    public ClusterKeys(byte[] masterSecret, byte[] masterSalt) {
        this.masterSecret = masterSecret.clone();
        this.masterSalt = masterSalt.clone();
    }

    /** HKDF(master, salt, "key-measurementSecret"): shared by every node, never leaves attested nodes. */
    public byte[] measurementSecret() {
        return Hkdf.sha256(masterSecret, masterSalt, "key-measurementSecret", KEY_BYTES);
    }

    /** HKDF(master, salt, "key-" + LUKS UUID in lower case): one state-disk key per disk. */
    public byte[] diskKey(String luksUuid) {
        return Hkdf.sha256(masterSecret, masterSalt, "key-" + luksUuid.toLowerCase(Locale.ROOT), KEY_BYTES);
    }

    /** HKDF(measurement secret, measurement salt, "key-clusterID"): what PCR 15 is marked with. */
    public static byte[] clusterId(byte[] measurementSecret, byte[] measurementSalt) {
        return Hkdf.sha256(measurementSecret, measurementSalt, "key-clusterID", KEY_BYTES);
    }
}
