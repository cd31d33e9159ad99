package dev.sextant.etcd.pki;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A certificate the etcd CA issued and its private key (a fresh key for every issue). Holds a private
 * key: its string form names the certificate only.
 */
public record EtcdCredential(X509Certificate certificate, PrivateKey privateKey) {
    public EtcdCredential {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(privateKey, "privateKey");
    }

    public Instant notAfter() {
        return certificate.getNotAfter().toInstant();
    }

    /**
     * Whether to issue again at {@code now}: once two thirds of the certificate's life have passed (ten
     * days before the end of a 30-day certificate), so a renewal that fails has days to be retried
     * before etcd refuses the certificate.
     */
    public boolean needsRenewal(Instant now) {
        Instant from = certificate.getNotBefore().toInstant();
        Duration life = Duration.between(from, notAfter());
        return !now.isBefore(from.plus(life.multipliedBy(2).dividedBy(3)));
    }

    @Override
    public String toString() {
        return "EtcdCredential[" + certificate.getSubjectX500Principal().getName()
                + ", serial " + certificate.getSerialNumber().toString(16) + ", until " + notAfter() + ", key redacted]";
    }
}
