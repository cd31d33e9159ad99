package dev.sextant.keys.member;

import dev.sextant.keys.KeyDerivation;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.time.Instant;

/**
 * The cluster's discovery CA: an Ed25519 key whose seed is the data key
 * {@link KeyDerivation#DISCOVERY_CA} of the master secret, so the join service (through the KMS)
 * and the init node (holding the master secret) hold the same CA without storing it anywhere.
 * This is the one code path that certifies a member, whoever runs it. Holds a private key: no
 * toString with content.
 */
public final class DiscoveryCa {
    private final MemberKey key;

    /** @param seed the 32-byte data key {@code discoveryCa} */
    public DiscoveryCa(byte[] seed) {
        this.key = new MemberKey(seed);
    }

    public byte[] publicKey() {
        return key.publicKey();
    }

    /** Clocks of freshly booted members may trail the certifier's a little. */
    public static final Duration BACKDATE = Duration.ofMinutes(5);

    /**
     * Certifies a member's key: valid from {@link #BACKDATE} before {@code now} for {@code validity}.
     * IllegalArgumentException for a malformed key, name or cluster ID.
     */
    public byte[] certifyMember(byte[] publicKey, String nodeName, MemberRole role, byte[] clusterId, Instant now,
                                Duration validity) {
        return certify(new MemberCertificate(publicKey, nodeName, role, clusterId, now.minus(BACKDATE), now.plus(validity)));
    }

    /** The encoded, signed certificate for {@code statement}. */
    public byte[] certify(MemberCertificate statement) {
        byte[] body = statement.body();
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + MemberKey.SIGNATURE_BYTES);
        out.writeBytes(body);
        out.writeBytes(key.sign(body));
        return out.toByteArray();
    }

    /**
     * The encoded, signed revocation list: the holder of the re-attestation duty signs it with the
     * same CA, so a member needs no other key to check it.
     */
    public byte[] signRevocationList(RevocationList list) {
        byte[] body = list.body();
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + MemberKey.SIGNATURE_BYTES);
        out.writeBytes(body);
        out.writeBytes(key.sign(body));
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return "DiscoveryCa[private key redacted]";
    }
}
