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
        MemberCertificate c = certified();
        if (!c.validAt(now)) {
            throw new IllegalArgumentException("member certificate of " + c.nodeName() + " is valid only from "
                    + c.notBefore() + " to " + c.notAfter());
        }
        return c;
    }

    /**
     * Like {@link #check} but whatever the certificate's validity: who this member is. A member whose
     * certificate expired (it was not re-attested in time, or it rebooted after its hour) still knows its
     * name, role and cluster, and waits for a renewal; receivers refuse its records meanwhile.
     */
    public MemberCertificate certified() {
        MemberCertificate c = MemberCertificate.signedBy(certificate, caPublicKey);
        if (!java.util.Arrays.equals(c.publicKey(), new MemberKey(privateKey).publicKey())) {
            throw new IllegalArgumentException("the member certificate certifies another key than this member's");
        }
        return c;
    }

    /** The same key and CA with {@code renewed} as the certificate; see {@link CertificateRenewal}. */
    MemberCredentials withCertificate(byte[] renewed) {
        return new MemberCredentials(privateKey, renewed, caPublicKey);
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
