package dev.sextant.cli.input;

import dev.sextant.cli.failure.CliFailure;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;

/**
 * Key files checked for what they must hold before they are used, so that a PEM that is not one, or a
 * public key where a private one belongs, is told as such. Error messages never quote the content:
 * it may be a private key.
 */
public final class PemKeys {
    private PemKeys() {}

    /** The PEM text of the public key in {@code file}. */
    public static String publicKey(String option, Path file, String remedy) {
        String pem = InputFiles.readString(option, file, remedy);
        Object content = parse(pem);
        if (!(content instanceof SubjectPublicKeyInfo)) {
            throw new CliFailure(option + " " + file + ": " + describe(content) + ", not a public key (BEGIN PUBLIC KEY): " + remedy);
        }
        return pem;
    }

    /** The PEM text of the unencrypted private key in {@code file}. */
    public static String privateKey(String option, Path file, String remedy) {
        String pem = InputFiles.readString(option, file, remedy);
        Object content = parse(pem);
        if (!(content instanceof PrivateKeyInfo || content instanceof PEMKeyPair)) {
            throw new CliFailure(option + " " + file + ": " + describe(content) + ", not an unencrypted private key: " + remedy);
        }
        return pem;
    }

    private static Object parse(String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            return parser.readObject();
        } catch (IOException | RuntimeException e) {
            return e;
        }
    }

    private static String describe(Object content) {
        if (content == null) {
            return "holds no PEM block";
        }
        if (content instanceof Exception) {
            return "holds a damaged PEM block";
        }
        if (content instanceof SubjectPublicKeyInfo) {
            return "holds a public key";
        }
        if (content instanceof PrivateKeyInfo || content instanceof PEMKeyPair) {
            return "holds a private key";
        }
        return "holds a PEM block of another kind";
    }
}
