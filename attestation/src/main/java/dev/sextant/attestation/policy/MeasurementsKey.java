package dev.sextant.attestation.policy;

import dev.sextant.attestation.digest.Sha256;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

import java.io.IOException;
import java.io.StringReader;
import java.security.PublicKey;
import java.util.Base64;

/**
 * A measurement signing public key (Ed25519 or ECDSA P-256) as a cluster pins it: by its fingerprint,
 * {@code sha256:<hex>} of the DER SubjectPublicKeyInfo, so the same key in two PEM spellings (line
 * breaks, a trailing comment) is one key, and a fingerprint can be named in an error or a log where
 * the key itself has no business being. Public keys are not secret; fingerprints are merely shorter.
 */
public record MeasurementsKey(String fingerprint, String pem) {
    /** How every fingerprint (and the digest of a set, where one names it) begins. */
    public static final String PREFIX = "sha256:";

    public MeasurementsKey {
        if (!isFingerprint(fingerprint) || pem == null) {
            throw new IllegalArgumentException("a measurements key is made by MeasurementsKey.of(PEM)");
        }
    }

    /** Parses a PEM public key of a kind measurements are signed with; anything else is an error. */
    public static MeasurementsKey of(String publicKeyPem) throws MeasurementsException {
        SubjectPublicKeyInfo info = info(publicKeyPem);
        byte[] der;
        try {
            der = info.getEncoded();
        } catch (IOException e) {
            throw new MeasurementsException("unusable public key: " + e.getMessage(), e);
        }
        MeasurementsFile.algorithm(publicKey(info));
        String body = Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der);
        return new MeasurementsKey(PREFIX + Sha256.hex(der), "-----BEGIN PUBLIC KEY-----\n" + body + "\n-----END PUBLIC KEY-----\n");
    }

    /** True for a {@code sha256:<64 lower-case hex>} string, the only form a fingerprint takes. */
    public static boolean isFingerprint(String s) {
        return s != null && s.matches("sha256:[0-9a-f]{64}");
    }

    static PublicKey publicKey(String pem) throws MeasurementsException {
        return publicKey(info(pem));
    }

    private static PublicKey publicKey(SubjectPublicKeyInfo info) throws MeasurementsException {
        try {
            return new JcaPEMKeyConverter().getPublicKey(info);
        } catch (IOException | RuntimeException e) {
            throw new MeasurementsException("unusable public key: " + e.getMessage(), e);
        }
    }

    private static SubjectPublicKeyInfo info(String pem) throws MeasurementsException {
        Object o;
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            o = parser.readObject();
        } catch (IOException | RuntimeException e) {
            throw new MeasurementsException("reading PEM public key: " + e.getMessage(), e);
        }
        if (o == null) {
            throw new MeasurementsException("no PEM public key found");
        }
        if (!(o instanceof SubjectPublicKeyInfo info)) {
            throw new MeasurementsException("the PEM text holds no public key (expected BEGIN PUBLIC KEY)");
        }
        return info;
    }

    /** Only the fingerprint: the PEM is long and says nothing more to a reader. */
    @Override
    public String toString() {
        return fingerprint;
    }
}
