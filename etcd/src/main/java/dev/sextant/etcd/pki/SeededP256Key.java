package dev.sextant.etcd.pki;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.HKDFParameters;
import org.bouncycastle.asn1.x9.X9ECParameters;

/**
 * An EC P-256 key pair that is a function of a 32-byte seed, so every holder of the seed holds the
 * same key without it being stored or sent anywhere.
 *
 * <p>The private scalar is drawn by rejection sampling (FIPS 186-5 A.2.2, "rejection sampling"):
 * candidate {@code i} is 32 bytes of HKDF-SHA256(IKM = seed, no salt, info = {@link #INFO} followed by
 * the byte {@code i}), read big-endian; the first candidate in [1, n-1] is the key. Rejection keeps the
 * scalar exactly uniform (reducing mod n would not), and the counter in the info gives a fresh candidate
 * for the rare seed whose first one falls outside the range (P-256's n is just below 2^256: about one seed
 * in 2^32). The info string also keeps this use of the seed apart from any other: the seed itself is
 * never a key.
 */
final class SeededP256Key {
    static final String INFO = "sextant etcd CA P-256 private key ";
    static final X9ECParameters CURVE = CustomNamedCurves.getByName("secp256r1");
    static final ECDomainParameters DOMAIN = new ECDomainParameters(CURVE);
    static final int SEED_BYTES = 32;

    private final ECPrivateKeyParameters privateKey;
    private final SubjectPublicKeyInfo publicKey;

    SeededP256Key(byte[] seed) {
        if (seed == null || seed.length != SEED_BYTES) {
            throw new IllegalArgumentException("the etcd CA seed must be " + SEED_BYTES + " bytes, got "
                    + (seed == null ? "none" : seed.length));
        }
        BigInteger d = scalar(seed);
        this.privateKey = new ECPrivateKeyParameters(d, DOMAIN);
        byte[] point = DOMAIN.getG().multiply(d).normalize().getEncoded(false);
        this.publicKey = new SubjectPublicKeyInfo(
                new AlgorithmIdentifier(X9ObjectIdentifiers.id_ecPublicKey, SECObjectIdentifiers.secp256r1), point);
    }

    static BigInteger scalar(byte[] seed) {
        BigInteger n = DOMAIN.getN();
        for (int i = 0; i < 256; i++) {
            byte[] candidate = expand(seed, i);
            BigInteger d = new BigInteger(1, candidate);
            Arrays.fill(candidate, (byte) 0);
            if (d.signum() > 0 && d.compareTo(n) < 0) {
                return d;
            }
        }
        // 256 rejections in a row happen with probability about 2^-8192: a broken HKDF, not bad luck.
        throw new IllegalStateException("no P-256 scalar in 256 HKDF candidates");
    }

    private static byte[] expand(byte[] seed, int counter) {
        byte[] label = INFO.getBytes(StandardCharsets.US_ASCII);
        byte[] info = Arrays.copyOf(label, label.length + 1);
        info[label.length] = (byte) counter;
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(new HKDFParameters(seed, null, info));
        byte[] out = new byte[32];
        hkdf.generateBytes(out, 0, out.length);
        return out;
    }

    ECPrivateKeyParameters privateKey() {
        return privateKey;
    }

    SubjectPublicKeyInfo publicKey() {
        return publicKey;
    }

    @Override
    public String toString() {
        return "SeededP256Key[private key redacted]";
    }
}
