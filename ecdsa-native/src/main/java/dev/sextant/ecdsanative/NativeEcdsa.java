package dev.sextant.ecdsanative;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import dev.sextant.attestation.ecdsa.EcKeyCurve;
import dev.sextant.attestation.ecdsa.Ecdsa;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.X509EncodedKeySpec;
import java.util.Map;

/**
 * ECDSA in AWS-LC, through the Amazon Corretto Crypto Provider, used as a provider object (never
 * registered: nothing else in the JVM changes provider). Key generation, signature and verification
 * cost a fraction of BouncyCastle's pure Java, after a one-time price: the provider's native library
 * is written to a temporary file and loaded, and its self-tests run, which takes seconds in an
 * emulated guest. Hence only in the join service, which pays it once at start-up and then verifies
 * handshake after handshake.
 */
public final class NativeEcdsa implements Ecdsa {
    private static final Map<String, String> SIGNATURES = Map.of(
            "SHA-256", "SHA256withECDSA", "SHA-384", "SHA384withECDSA", "SHA-512", "SHA512withECDSA");

    private final Provider provider;

    private NativeEcdsa(Provider provider) {
        this.provider = provider;
    }

    /** The provider, loaded and self-tested; fails with the provider's own reason when it cannot load here. */
    public static NativeEcdsa load() throws GeneralSecurityException {
        AmazonCorrettoCryptoProvider accp = AmazonCorrettoCryptoProvider.INSTANCE;
        if (accp.getLoadingError() != null) {
            throw new GeneralSecurityException("the native ECDSA provider did not load", accp.getLoadingError());
        }
        try {
            accp.assertHealthy(); // loads the library and runs its self-tests
        } catch (RuntimeException e) {
            throw new GeneralSecurityException("the native ECDSA provider failed its self-tests", e);
        }
        return new NativeEcdsa(accp);
    }

    @Override
    public KeyPair newP256KeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", provider); // not thread-safe: one per call
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    @Override
    public byte[] signSha256(PrivateKey key, byte[] data) throws GeneralSecurityException {
        Signature signer = Signature.getInstance("SHA256withECDSA", provider);
        signer.initSign(key);
        signer.update(data);
        return signer.sign();
    }

    @Override
    public boolean verifies(byte[] subjectPublicKeyInfo, String digest, byte[] data, byte[] signature)
            throws InvalidKeyException {
        String algorithm = SIGNATURES.get(digest);
        if (algorithm == null) {
            throw new InvalidKeyException("no ECDSA with digest " + digest);
        }
        EcKeyCurve.of(subjectPublicKeyInfo); // the gate BouncyCastle's path takes: AWS-LC has more curves
        try {
            Signature verifier = Signature.getInstance(algorithm, provider);
            verifier.initVerify(publicKey(subjectPublicKeyInfo));
            verifier.update(data);
            return verifier.verify(signature);
        } catch (SignatureException e) { // a signature that does not decode does not verify
            return false;
        } catch (InvalidKeyException e) {
            throw e;
        } catch (GeneralSecurityException e) { // the provider without an algorithm it lists: a bug, not a verdict
            throw new IllegalStateException("the native ECDSA provider cannot verify " + algorithm, e);
        }
    }

    /** The provider decodes the point and refuses one that is not on the curve. */
    private PublicKey publicKey(byte[] subjectPublicKeyInfo) throws GeneralSecurityException {
        try {
            return KeyFactory.getInstance("EC", provider).generatePublic(new X509EncodedKeySpec(subjectPublicKeyInfo));
        } catch (InvalidKeySpecException e) {
            throw new InvalidKeyException("the EC public key's point cannot be read", e);
        }
    }
}
