package dev.sextant.attestation.ecdsa;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;

import java.security.InvalidKeyException;
import java.util.Set;

/**
 * The one gate both {@link Ecdsa} implementations put a public key through before they decode its
 * point: an EC key (RFC 5480) on one of the named curves P-256, P-384, P-521. Explicit curve
 * parameters and every other named curve are refused, whatever a provider would accept.
 */
public record EcKeyCurve(ASN1ObjectIdentifier curve, byte[] point) {
    public static final Set<ASN1ObjectIdentifier> ACCEPTED =
            Set.of(SECObjectIdentifiers.secp256r1, SECObjectIdentifiers.secp384r1, SECObjectIdentifiers.secp521r1);

    /** The key's named curve, one of {@link #ACCEPTED}, and its encoded point (not yet decoded). */
    public static EcKeyCurve of(byte[] subjectPublicKeyInfo) throws InvalidKeyException {
        AlgorithmIdentifier algorithm;
        byte[] point;
        try {
            SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(subjectPublicKeyInfo);
            algorithm = info.getAlgorithm();
            point = info.getPublicKeyData().getOctets(); // throws for a bit string with padding bits
        } catch (RuntimeException e) { // bad encodings come as assorted types
            throw new InvalidKeyException("the public key does not decode", e);
        }
        if (!X9ObjectIdentifiers.id_ecPublicKey.equals(algorithm.getAlgorithm())) {
            throw new InvalidKeyException("not an EC key: " + algorithm.getAlgorithm());
        }
        if (!(algorithm.getParameters() instanceof ASN1ObjectIdentifier curve) || !ACCEPTED.contains(curve)) {
            throw new InvalidKeyException("not a key on P-256, P-384 or P-521: " + algorithm.getParameters());
        }
        return new EcKeyCurve(curve, point);
    }
}
