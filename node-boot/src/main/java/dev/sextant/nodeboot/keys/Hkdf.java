package dev.sextant.nodeboot.keys;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

import java.nio.charset.StandardCharsets;

/**
 * HKDF-SHA256 (RFC 5869). The same derivation as the kms module's KeyDerivation; repeated here in
 * a few lines so the node does not pull the KMS server's HTTP and metrics stack onto every node.
 */
public final class Hkdf {
    private Hkdf() {}

    public static byte[] sha256(byte[] ikm, byte[] salt, String info, int length) {
        return sha256(ikm, salt, info.getBytes(StandardCharsets.UTF_8), length);
    }

    public static byte[] sha256(byte[] ikm, byte[] salt, byte[] info, int length) {
        HKDFBytesGenerator generator = new HKDFBytesGenerator(new SHA256Digest());
        generator.init(new HKDFParameters(ikm, salt, info));
        byte[] out = new byte[length];
        generator.generateBytes(out, 0, length);
        return out;
    }
}
