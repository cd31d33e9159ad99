package dev.sextant.attestation.ecdsa;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA384Digest;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECNamedDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.signers.DSADigestSigner;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.jcajce.provider.asymmetric.ec.KeyPairGeneratorSpi;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Map;
import java.util.function.Supplier;

/**
 * ECDSA with BouncyCastle's classes called directly: several times faster than the JDK 17 provider,
 * and no {@code BouncyCastleProvider}, whose construction registers thousands of algorithms for the
 * few used here, a cost every JVM would pay at start-up (most in an emulated guest).
 */
public final class BouncyCastleEcdsa implements Ecdsa {
    /**
     * The three curves, each made once, so that its generator keeps the multiples BouncyCastle
     * precomputes on first use: domain parameters made per operation (as {@code ECUtil} does from a JCA
     * key) would precompute them again each time, twice the cost of the signature itself.
     */
    private static final Map<ASN1ObjectIdentifier, ECDomainParameters> CURVES = Map.of(
            SECObjectIdentifiers.secp256r1, domain("secp256r1"),
            SECObjectIdentifiers.secp384r1, domain("secp384r1"),
            SECObjectIdentifiers.secp521r1, domain("secp521r1"));
    private static final ECDomainParameters P256 = CURVES.get(SECObjectIdentifiers.secp256r1);
    private static final Map<String, Supplier<Digest>> DIGESTS = Map.of(
            "SHA-256", SHA256Digest::new, "SHA-384", SHA384Digest::new, "SHA-512", SHA512Digest::new);

    private final SecureRandom random;

    public BouncyCastleEcdsa(SecureRandom random) {
        this.random = random;
    }

    @Override
    public KeyPair newP256KeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = new KeyPairGeneratorSpi.EC(); // not thread-safe: one per call
        generator.initialize(new ECGenParameterSpec("secp256r1"), random);
        return generator.generateKeyPair();
    }

    @Override
    public byte[] signSha256(PrivateKey key, byte[] data) throws GeneralSecurityException {
        if (!(key instanceof ECPrivateKey ec)) {
            throw new InvalidKeyException("not an EC private key: " + key.getAlgorithm());
        }
        DSADigestSigner signer = new DSADigestSigner(new ECDSASigner(), new SHA256Digest());
        signer.init(true, new ParametersWithRandom(
                new ECPrivateKeyParameters(ec.getS(), P256), random));
        signer.update(data, 0, data.length);
        return signer.generateSignature();
    }

    @Override
    public boolean verifies(byte[] subjectPublicKeyInfo, String digest, byte[] data, byte[] signature)
            throws InvalidKeyException {
        Supplier<Digest> hash = DIGESTS.get(digest);
        if (hash == null) {
            throw new InvalidKeyException("no ECDSA with digest " + digest);
        }
        DSADigestSigner verifier = new DSADigestSigner(new ECDSASigner(), hash.get());
        verifier.init(false, publicKey(subjectPublicKeyInfo));
        verifier.update(data, 0, data.length);
        // A signature that does not even decode does not verify: verifySignature says false.
        return verifier.verifySignature(signature);
    }

    /** The key as a point of one of the three curves; decoding checks that it lies on it and is not infinity. */
    private static ECPublicKeyParameters publicKey(byte[] subjectPublicKeyInfo) throws InvalidKeyException {
        EcKeyCurve key = EcKeyCurve.of(subjectPublicKeyInfo);
        ECDomainParameters curve = CURVES.get(key.curve());
        try {
            return new ECPublicKeyParameters(curve.getCurve().decodePoint(key.point()), curve);
        } catch (RuntimeException e) { // bad encodings and bad points come as assorted types
            throw new InvalidKeyException("the EC public key's point cannot be read", e);
        }
    }

    private static ECDomainParameters domain(String name) {
        X9ECParameters curve = CustomNamedCurves.getByName(name);
        return new ECNamedDomainParameters(CustomNamedCurves.getOID(name), curve);
    }
}
