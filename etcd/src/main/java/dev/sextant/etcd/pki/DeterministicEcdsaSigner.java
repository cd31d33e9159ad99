package dev.sextant.etcd.pki;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import org.bouncycastle.asn1.ASN1EncodableVector;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.operator.ContentSigner;

/**
 * ecdsa-with-SHA256 whose nonce is RFC 6979's (HMAC-DRBG over the key and the message hash): the same
 * key and the same to-be-signed bytes give the same signature, which is what makes every control
 * plane's copy of the CA certificate byte-identical. One instance signs one certificate.
 */
final class DeterministicEcdsaSigner implements ContentSigner {
    private static final AlgorithmIdentifier ECDSA_WITH_SHA256 = new AlgorithmIdentifier(X9ObjectIdentifiers.ecdsa_with_SHA256);

    private final ECPrivateKeyParameters key;
    private final ByteArrayOutputStream toBeSigned = new ByteArrayOutputStream();

    DeterministicEcdsaSigner(ECPrivateKeyParameters key) {
        this.key = key;
    }

    @Override
    public AlgorithmIdentifier getAlgorithmIdentifier() {
        return ECDSA_WITH_SHA256;
    }

    @Override
    public OutputStream getOutputStream() {
        return toBeSigned;
    }

    @Override
    public byte[] getSignature() {
        SHA256Digest sha256 = new SHA256Digest();
        byte[] message = toBeSigned.toByteArray();
        sha256.update(message, 0, message.length);
        byte[] hash = new byte[sha256.getDigestSize()];
        sha256.doFinal(hash, 0);

        ECDSASigner signer = new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest()));
        signer.init(true, key);
        BigInteger[] rs = signer.generateSignature(hash);
        ASN1EncodableVector v = new ASN1EncodableVector();
        v.add(new ASN1Integer(rs[0]));
        v.add(new ASN1Integer(rs[1]));
        try {
            return new DERSequence(v).getEncoded();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
