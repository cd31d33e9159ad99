package dev.sextant.cli.recover;

import dev.sextant.operatorfiles.MasterSecretFile;
import dev.sextant.keys.KeyDerivation;
import java.util.regex.Pattern;

/**
 * The state-disk keys of a cluster, derived on the operator's machine so that only the key of the
 * one disk asked for leaves it, never the master secret: HKDF-SHA256(master key, master salt,
 * "key-" + disk UUID), 32 bytes, as the KMS derives them for nodes that join.
 */
final class DiskKeys {
    /** A LUKS UUID as the node reports it (lower case); anything else is not asked a key for. */
    static final Pattern DISK_UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private final KeyDerivation derivation;

    DiskKeys(MasterSecretFile master) {
        this.derivation = new KeyDerivation(master.key(), master.salt());
    }

    /** The key of disk {@code uuid}; {@code uuid} must be a lower-case UUID. */
    byte[] forDisk(String uuid) {
        if (!DISK_UUID.matcher(uuid).matches()) {
            throw new IllegalArgumentException("not a disk UUID: " + uuid);
        }
        return derivation.dataKey(uuid, KeyDerivation.KEY_BYTES);
    }
}
