package dev.sextant.nodeboot.initserver;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.serviceconfig.JoinServiceConfig;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;

import java.util.Locale;

/**
 * The keys a node derives itself when it holds the master secret (the first node, during init):
 * the same scheme as the KMS, so a key derived here equals the one the KMS later hands out.
 */
public final class ClusterKeys {
    public static final int KEY_BYTES = KeyDerivation.KEY_BYTES;
    /** The init node certifies itself for as long as the join service certifies the others. */
    public static final Duration MEMBER_CERTIFICATE_VALIDITY = JoinServiceConfig.defaults().memberCertificateValidity();

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

    /**
     * The init node certifies its own discovery key the way the join service certifies a joining
     * member's (the same {@link DiscoveryCa}, derived from the same master secret): as a control
     * plane, for {@link #MEMBER_CERTIFICATE_VALIDITY}, with a fresh key that then lives on its state disk.
     */
    public MemberCredentials certifySelf(String nodeName, byte[] clusterId) {
        DiscoveryCa ca = new DiscoveryCa(derivation.dataKey(KeyDerivation.DISCOVERY_CA, KEY_BYTES));
        MemberKey key = MemberKey.generate(new SecureRandom());
        byte[] certificate = ca.certifyMember(key.publicKey(), nodeName, MemberRole.CONTROL_PLANE, clusterId, Instant.now(),
                MEMBER_CERTIFICATE_VALIDITY);
        return new MemberCredentials(key.privateKey(), certificate, ca.publicKey());
    }

    /** What PCR 15 is marked with. */
    public static byte[] clusterId(byte[] measurementSecret, byte[] measurementSalt) {
        return KeyDerivation.clusterId(measurementSecret, measurementSalt);
    }
}
