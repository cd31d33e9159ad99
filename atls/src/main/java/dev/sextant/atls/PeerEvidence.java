package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;

import java.security.Provider;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Date;

/**
 * The untrusted content of a peer's aTLS certificate: the serialized document and SHA-256 of the
 * SPKI it must be bound to. Parsing fails only with {@link AttestationRejected} (MALFORMED), so
 * that no exception of the parser escapes as an unchecked one.
 */
record PeerEvidence(byte[] document, byte[] spkiHash) {

    static PeerEvidence extract(X509Certificate[] chain, Variant variant, Provider bc, Clock clock)
            throws AttestationRejected {
        if (chain == null || chain.length != 1) {
            throw malformed("expected exactly one self-signed certificate, got "
                    + (chain == null ? 0 : chain.length), null);
        }
        X509CertificateHolder holder = parse(chain[0]);
        if (!holder.getIssuer().equals(holder.getSubject()) || !selfSignatureValid(holder, bc)) {
            throw malformed("the certificate is not self-signed by its own key", null);
        }
        if (!holder.isValidOn(Date.from(clock.instant()))) {
            throw malformed("the certificate is not valid now (" + holder.getNotBefore() + " to "
                    + holder.getNotAfter() + ")", null);
        }
        Extension extension = holder.getExtension(variant.oid());
        if (extension == null) {
            throw malformed("the certificate carries no " + variant + " attestation extension ("
                    + variant.oid() + ")", null);
        }
        try {
            return new PeerEvidence(extension.getExtnValue().getOctets(),
                    Digests.sha256(holder.getSubjectPublicKeyInfo().getEncoded()));
        } catch (java.io.IOException | RuntimeException e) {
            throw malformed("the certificate's public key cannot be encoded", e);
        }
    }

    private static X509CertificateHolder parse(X509Certificate certificate) throws AttestationRejected {
        try {
            return new X509CertificateHolder(certificate.getEncoded());
        } catch (CertificateEncodingException | java.io.IOException | RuntimeException e) {
            throw malformed("the certificate does not parse", e);
        }
    }

    private static boolean selfSignatureValid(X509CertificateHolder holder, Provider bc) throws AttestationRejected {
        try {
            return holder.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider(bc).build(holder));
        } catch (Exception e) { // BC signals unknown algorithms and bad keys with assorted types
            throw malformed("the certificate's signature cannot be checked", e);
        }
    }

    private static AttestationRejected malformed(String detail, Throwable cause) {
        return new AttestationRejected(Reason.MALFORMED, detail, cause);
    }
}
