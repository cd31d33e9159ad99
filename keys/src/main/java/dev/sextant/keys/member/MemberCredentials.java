package dev.sextant.keys.member;

import java.time.Instant;

/**
 * What a member needs to publish signed records and check everyone else's: its own signing key,
 * its certificate (encoded, as it travels), and the CA public key. Holds a private key: no
 * toString with content.
 */
public record MemberCredentials(byte[] privateKey, byte[] certificate, byte[] caPublicKey) {
    public MemberCredentials {
        privateKey = privateKey.clone();
        certificate = certificate.clone();
        caPublicKey = caPublicKey.clone();
    }

    /**
     * This member's certificate, checked against the CA and against its own key; IllegalArgumentException
     * when the two do not belong together (a certificate for another key, or by another CA).
     */
    public MemberCertificate check(Instant now) {
        MemberCertificate c = MemberCertificate.verify(certificate, caPublicKey, now);
        if (!java.util.Arrays.equals(c.publicKey(), new MemberKey(privateKey).publicKey())) {
            throw new IllegalArgumentException("the member certificate certifies another key than this member's");
        }
        return c;
    }

    @Override
    public byte[] privateKey() {
        return privateKey.clone();
    }

    @Override
    public byte[] certificate() {
        return certificate.clone();
    }

    @Override
    public byte[] caPublicKey() {
        return caPublicKey.clone();
    }

    @Override
    public String toString() {
        return "MemberCredentials[secrets redacted]";
    }
}
