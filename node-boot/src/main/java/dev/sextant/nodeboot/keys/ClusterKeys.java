package dev.sextant.nodeboot.keys;

import dev.sextant.keys.KeyDerivation;

import java.util.Locale;

/**
 * The keys a node derives itself when it holds the master secret (the first node, during init):
 * the same scheme as the KMS, so a key derived here equals the one the KMS later hands out.
 */
public final class ClusterKeys {
    public static final int KEY_BYTES = KeyDerivation.KEY_BYTES;
    /** Data-key ID of the discovery group key (join-api's TicketIssuer asks the KMS for the same ID). */

    private final KeyDerivation derivation;

    public ClusterKeys(byte[] masterSecret, byte[] masterSalt) {
        this.derivation = new KeyDerivation(masterSecret, masterSalt);
    }

    /** "key-measurementSecret": shared by every node, never leaves attested nodes. */
    public byte[] measurementSecret() {
        return derivation.dataKey(KeyDerivation.MEASUREMENT_SECRET, KEY_BYTES);
    }

    /** "key-" + LUKS UUID in lower case: one state-disk key per disk. */
    public byte[] diskKey(String luksUuid) {
        return derivation.dataKey(luksUuid.toLowerCase(Locale.ROOT), KEY_BYTES);
    }

    /** "key-discoveryKey": the endpoint-discovery group key; the join service hands the same key out in tickets. */
    public byte[] discoveryKey() {
        return derivation.dataKey(KeyDerivation.DISCOVERY_KEY, KEY_BYTES);
    }

    /** What PCR 15 is marked with. */
    public static byte[] clusterId(byte[] measurementSecret, byte[] measurementSalt) {
        return KeyDerivation.clusterId(measurementSecret, measurementSalt);
    }
}
