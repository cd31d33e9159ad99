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
public final class EcKeyCurve {
    public static final Set<ASN1ObjectIdentifier> ACCEPTED =
            Set.of(SECObjectIdentifiers.secp256r1, SECObjectIdentifiers.secp384r1, SECObjectIdentifiers.secp521r1);

    private EcKeyCurve() {}

    /** The key's named curve, one of {@link #ACCEPTED}. */
    public static ASN1ObjectIdentifier of(byte[] subjectPublicKeyInfo) throws InvalidKeyException {
        AlgorithmIdentifier algorithm;
        try {
            algorithm = SubjectPublicKeyInfo.getInstance(subjectPublicKeyInfo).getAlgorithm();
        } catch (RuntimeException e) { // bad encodings come as assorted types
            throw new InvalidKeyException("the public key does not decode", e);
        }
        if (!X9ObjectIdentifiers.id_ecPublicKey.equals(algorithm.getAlgorithm())) {
            throw new InvalidKeyException("not an EC key: " + algorithm.getAlgorithm());
        }
        if (!(algorithm.getParameters() instanceof ASN1ObjectIdentifier curve) || !ACCEPTED.contains(curve)) {
            throw new InvalidKeyException("not a key on P-256, P-384 or P-521: " + algorithm.getParameters());
        }
        return curve;
    }
}
