package dev.sextant.attestation.policy;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECKey;
import java.util.Base64;

/**
 * A measurements JSON file with a detached signature next to it ({@code <file>.sig}: the raw
 * signature bytes as base64 text). Ed25519 signs the file bytes directly; ECDSA P-256 signs their
 * SHA-256 and its signature is the DER form, as {@code openssl dgst -sha256 -sign} writes it.
 * The signature is checked over the exact file bytes before any JSON is parsed.
 */
public final class MeasurementsFile {
    private MeasurementsFile() {}

    public static Path signatureFile(Path file) {
        return file.resolveSibling(file.getFileName() + ".sig");
    }

    /** Writes {@code <file>.sig} for the file as it is now, after checking that it parses. */
    public static void sign(Path file, String privateKeyPem) throws MeasurementsException {
        byte[] content = read(file);
        MeasurementSet.parse(content);
        PrivateKey key = privateKey(privateKeyPem);
        try {
            Signature s = Signature.getInstance(algorithm(key));
            s.initSign(key);
            s.update(content);
            Files.writeString(signatureFile(file), Base64.getEncoder().encodeToString(s.sign()) + "\n");
        } catch (GeneralSecurityException | IOException e) {
            throw new MeasurementsException("signing " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Names {@code nextKeyPem} as the key that signs the sets after this one ({@code "nextKey"}), writing the
     * file again in canonical form (format 2; a format-1 file becomes the set of its one unversioned image), then signs it as {@link #sign} does. Signed by the key the cluster has
     * pinned, such a set moves the pin to the next key (a key rotation); a file that names another next
     * key already is refused rather than silently changed.
     */
    public static void signNamingNextKey(Path file, String privateKeyPem, String nextKeyPem) throws MeasurementsException {
        MeasurementSet set = MeasurementSet.parse(read(file));
        MeasurementsKey next = MeasurementsKey.of(nextKeyPem);
        if (set.nextKey().isPresent() && !set.nextKey().get().fingerprint().equals(next.fingerprint())) {
            throw new MeasurementsException(file + " names another next key already (" + set.nextKey().get().fingerprint()
                    + "); remove its \"nextKey\" or name that key");
        }
        privateKey(privateKeyPem); // a bad signing key is an error before the file is rewritten
        try {
            Files.write(file, set.withNextKey(next).toJson());
        } catch (IOException e) {
            throw new MeasurementsException("writing " + file + ": " + e, e);
        }
        sign(file, privateKeyPem);
    }

    /** Checks {@code <file>.sig} with the public key, then parses the file as a set (format 2, or 1 as one image). */
    public static MeasurementSet verifySet(Path file, String publicKeyPem) throws MeasurementsException {
        Path sigFile = signatureFile(file);
        byte[] content = read(file);
        checkSignature(content, read(sigFile), publicKeyPem, sigFile.toString(), file.toString());
        return MeasurementSet.parse(content);
    }

    /** As {@link #verifySet(Path, String)} for a set that arrived as bytes: {@code signatureText} is what {@code <file>.sig} holds. */
    public static MeasurementSet verifySet(byte[] content, byte[] signatureText, String publicKeyPem) throws MeasurementsException {
        checkSignature(content, signatureText, publicKeyPem, "the signature", "the measurement set");
        return MeasurementSet.parse(content);
    }

    private static void checkSignature(byte[] content, byte[] signatureText, String publicKeyPem,
                                       String sigFile, String file) throws MeasurementsException {
        byte[] signature;
        try {
            signature = Base64.getMimeDecoder().decode(signatureText);
        } catch (IllegalArgumentException e) {
            throw new MeasurementsException(sigFile + " is not base64 text: " + e.getMessage(), e);
        }
        PublicKey key = publicKey(publicKeyPem);
        boolean valid;
        try {
            Signature s = Signature.getInstance(algorithm(key));
            s.initVerify(key);
            s.update(content);
            valid = s.verify(signature);
        } catch (GeneralSecurityException e) {
            valid = false;
        }
        if (!valid) {
            throw new MeasurementsException(sigFile + " is not a valid signature of " + file
                    + " by the given " + key.getAlgorithm() + " public key (file changed, or signed with another key)");
        }
    }

    static String algorithm(Key key) throws MeasurementsException {
        if (key instanceof ECKey ec && ec.getParams().getCurve().getField().getFieldSize() == 256) {
            return "SHA256withECDSA";
        }
        if (key.getAlgorithm().equalsIgnoreCase("Ed25519") || key.getAlgorithm().equalsIgnoreCase("EdDSA")) {
            return "Ed25519";
        }
        throw new MeasurementsException("measurements are signed with Ed25519 or ECDSA P-256, not "
                + key.getAlgorithm() + " keys");
    }

    private static PrivateKey privateKey(String pem) throws MeasurementsException {
        Object o = readPem(pem, "private key");
        try {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair pair) {
                return converter.getPrivateKey(pair.getPrivateKeyInfo());
            }
            if (o instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
        } catch (IOException e) {
            throw new MeasurementsException("unusable private key: " + e.getMessage(), e);
        }
        throw new MeasurementsException("the PEM text holds no unencrypted private key");
    }

    private static PublicKey publicKey(String pem) throws MeasurementsException {
        return MeasurementsKey.publicKey(pem);
    }

    private static Object readPem(String pem, String what) throws MeasurementsException {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object o = parser.readObject();
            if (o == null) {
                throw new MeasurementsException("no PEM " + what + " found");
            }
            return o;
        } catch (IOException e) {
            throw new MeasurementsException("reading PEM " + what + ": " + e.getMessage(), e);
        }
    }

    private static byte[] read(Path file) throws MeasurementsException {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new MeasurementsException("reading " + file + ": " + e, e);
        }
    }
}
