package dev.sextant.localcluster.mini;

import dev.sextant.tpm.swtpm.LocalCa;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.Consumer;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * The operator-side keys a mini cluster needs, made on first use and kept: the EK CA that plays
 * the TPM manufacturer, the Ed25519 key that signs the measurements, and per cluster a fresh init
 * secret (random, 0600; only its salted hash goes to the node).
 */
final class HostIdentities {
    private static final String RW_OWNER = "rw-------";

    private HostIdentities() {
    }

    static LocalCa ca(MiniLayout layout, Consumer<String> log) throws Exception {
        if (Files.isRegularFile(layout.caCert())) {
            return LocalCa.load(layout.caDir());
        }
        log.accept("creating the EK CA (the nodes' TPM manufacturer) in " + layout.caDir());
        return LocalCa.create(layout.caDir(), "Sextant mini EK CA");
    }

    static void measurementsKey(MiniLayout layout, Consumer<String> log) throws IOException, GeneralSecurityException {
        if (Files.isRegularFile(layout.measurementsKey())) {
            return;
        }
        log.accept("creating the measurements signing key " + layout.measurementsKey());
        Files.createDirectories(layout.measurementsKey().getParent());
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Files.createFile(layout.measurementsKey(),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(RW_OWNER)));
        writePem(layout.measurementsKey(), pair.getPrivate());
        writePem(layout.measurementsPublicKey(), pair.getPublic());
    }

    /** A new init secret (64 hex characters, the bytes `sextant init` reads from the file). */
    static byte[] newInitSecret(MiniLayout layout) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String secret = HexFormat.of().formatHex(random);
        Files.deleteIfExists(layout.initSecret());
        Files.createFile(layout.initSecret(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(RW_OWNER)));
        Files.writeString(layout.initSecret(), secret + "\n");
        return secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    static byte[] salt() {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return salt;
    }

    private static void writePem(Path file, Object key) throws IOException {
        try (Writer out = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(out)) {
            pem.writeObject(key);
        }
    }
}
