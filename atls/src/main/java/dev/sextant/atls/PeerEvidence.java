package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1GeneralizedTime;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1UTCTime;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.Certificate;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.TBSCertificate;
import org.bouncycastle.asn1.x509.Time;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;

import java.security.InvalidKeyException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The untrusted content of a peer's aTLS certificate: the serialized document, SHA-256 of the
 * SPKI it must be bound to, and the {@link HandshakeProof} if the certificate carries one. Parsing fails only with {@link AttestationRejected} (MALFORMED), so
 * that no exception of the parser escapes as an unchecked one.
 */
record PeerEvidence(byte[] document, byte[] spkiHash, Optional<byte[]> proof) {
    private static final Pattern UTC_TIME = Pattern.compile("[0-9]{12}Z");
    private static final Pattern GENERALIZED_TIME = Pattern.compile("[0-9]{14}Z");
    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("uuuuMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final Map<ASN1ObjectIdentifier, String> ECDSA = Map.of(
            X9ObjectIdentifiers.ecdsa_with_SHA256, "SHA-256",
            X9ObjectIdentifiers.ecdsa_with_SHA384, "SHA-384",
            X9ObjectIdentifiers.ecdsa_with_SHA512, "SHA-512");

    static PeerEvidence extract(X509Certificate[] chain, Variant variant, Clock clock, Ecdsa ecdsa)
            throws AttestationRejected {
        if (chain == null || chain.length != 1) {
            throw malformed("expected exactly one self-signed certificate, got "
                    + (chain == null ? 0 : chain.length), null);
        }
        X509CertificateHolder holder = parse(chain[0]);
        if (!holder.getIssuer().equals(holder.getSubject()) || !selfSignatureValid(holder, ecdsa)) {
            throw malformed("the certificate is not self-signed by its own key", null);
        }
        if (!validAt(holder, clock.instant())) {
            throw malformed("the certificate is not valid now (" + holder.getNotBefore() + " to "
                    + holder.getNotAfter() + ")", null);
        }
        Extension extension = holder.getExtension(variant.oid());
        if (extension == null) {
            throw malformed("the certificate carries no " + variant + " attestation extension ("
                    + variant.oid() + ")", null);
        }
        Extension proof = holder.getExtension(HandshakeProof.OID);
        if (proof != null && proof.getExtnValue().getOctets().length > HandshakeProof.MAX_BYTES) {
            throw malformed("the certificate's handshake proof has " + proof.getExtnValue().getOctets().length
                    + " bytes, more than " + HandshakeProof.MAX_BYTES, null);
        }
        try {
            return new PeerEvidence(extension.getExtnValue().getOctets(),
                    Sha256.of(holder.getSubjectPublicKeyInfo().getEncoded()),
                    Optional.ofNullable(proof).map(p -> p.getExtnValue().getOctets()));
        } catch (java.io.IOException | RuntimeException e) {
            throw malformed("the certificate's public key cannot be encoded", e);
        }
    }

    /**
     * RFC 5280 §4.1.2.5, inclusive at both ends. The RFC's two encodings (UTCTime YYMMDDHHMMSSZ,
     * GeneralizedTime YYYYMMDDHHMMSSZ) are compared as YYYYMMDDHHMMSSZ text: BouncyCastle's own
     * {@code isValidOn} builds two SimpleDateFormats per call, a visible share of a handshake.
     * Any other encoding takes BouncyCastle's parser.
     */
    static boolean validAt(X509CertificateHolder holder, Instant now) {
        TBSCertificate tbs = holder.toASN1Structure().getTBSCertificate();
        String from = rfc5280Text(tbs.getStartDate());
        String to = rfc5280Text(tbs.getEndDate());
        if (from == null || to == null) {
            return holder.isValidOn(Date.from(now));
        }
        String at = SECONDS.format(now); // now truncated to the second
        int afterEnd = at.compareTo(to);
        return from.compareTo(at) <= 0 && (afterEnd < 0 || afterEnd == 0 && now.getNano() == 0);
    }

    private static String rfc5280Text(Time time) {
        ASN1Primitive primitive = time.toASN1Primitive();
        String text = contents(primitive);
        if (text == null) {
            return null;
        }
        if (primitive instanceof ASN1UTCTime && UTC_TIME.matcher(text).matches()) {
            // RFC 5280 §4.1.2.5.1: YY >= 50 is 19YY, YY < 50 is 20YY.
            return (text.compareTo("50") >= 0 ? "19" : "20") + text;
        }
        if (primitive instanceof ASN1GeneralizedTime && GENERALIZED_TIME.matcher(text).matches()) {
            return text;
        }
        return null;
    }

    /** The characters of a short primitive's DER encoding (tag, one length byte, contents); null otherwise. */
    private static String contents(ASN1Primitive primitive) {
        try {
            byte[] der = primitive.getEncoded(ASN1Encoding.DER);
            return der.length >= 2 && (der[1] & 0xff) == der.length - 2
                    ? new String(der, 2, der.length - 2, java.nio.charset.StandardCharsets.US_ASCII) : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static X509CertificateHolder parse(X509Certificate certificate) throws AttestationRejected {
        try {
            return new X509CertificateHolder(certificate.getEncoded());
        } catch (CertificateEncodingException | java.io.IOException | RuntimeException e) {
            throw malformed("the certificate does not parse", e);
        }
    }

    /**
     * One ECDSA verification of the certificate's signature with its own key, through {@code ecdsa}.
     * BouncyCastle's {@code JcaContentVerifierProviderBuilder} verifies an ECDSA signature twice (its
     * "raw" verifier repeats the check to release PKCS#11 sessions) and parses the certificate a second
     * time to get the key: a large share of the aTLS handshake's Java time. Other algorithms
     * than ECDSA (aTLS mints only ECDSA) take the general path through the JDK's own providers.
     */
    private static boolean selfSignatureValid(X509CertificateHolder holder, Ecdsa ecdsa) throws AttestationRejected {
        Certificate certificate = holder.toASN1Structure();
        AlgorithmIdentifier algorithm = certificate.getSignatureAlgorithm();
        String digest = ECDSA.get(algorithm.getAlgorithm());
        if (digest == null) {
            return otherAlgorithmValid(holder);
        }
        // RFC 5280 §4.1.1.2: the signed algorithm must equal the outer one (BouncyCastle checks this too).
        if (!algorithm.equals(certificate.getTBSCertificate().getSignature())) {
            return false;
        }
        byte[] key;
        byte[] signed;
        try {
            key = holder.getSubjectPublicKeyInfo().getEncoded(ASN1Encoding.DER);
            signed = certificate.getTBSCertificate().getEncoded(ASN1Encoding.DER);
        } catch (java.io.IOException | RuntimeException e) {
            throw malformed("the certificate cannot be encoded", e);
        }
        try {
            return ecdsa.verifies(key, digest, signed, certificate.getSignature().getOctets());
        } catch (InvalidKeyException e) {
            throw malformed("the certificate is signed with ECDSA but its key is not a P-256, P-384 or P-521 key", e);
        } catch (RuntimeException e) {
            throw malformed("the certificate's signature cannot be checked", e);
        }
    }

    private static boolean otherAlgorithmValid(X509CertificateHolder holder) throws AttestationRejected {
        try {
            return holder.isSignatureValid(new JcaContentVerifierProviderBuilder().build(holder));
        } catch (Exception e) { // unknown algorithms and bad keys come as assorted types
            throw malformed("the certificate's signature cannot be checked", e);
        }
    }

    private static AttestationRejected malformed(String detail, Throwable cause) {
        return new AttestationRejected(Reason.MALFORMED, detail, cause);
    }
}
