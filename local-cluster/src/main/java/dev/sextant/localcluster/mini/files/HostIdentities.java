package dev.sextant.localcluster.mini.files;

import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
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
public final class HostIdentities {
    private static final String RW_OWNER = "rw-------";

    private HostIdentities() {
    }

    /** The EK CA, its directory 0700 and its private key 0600 (LocalCa writes it with the umask's mode). */
    public static LocalCa ca(MiniLayout layout, Consumer<String> log) throws Exception {
        PrivateFiles.directory(layout.caDir());
        LocalCa ca;
        if (Files.isRegularFile(layout.caCert())) {
            ca = LocalCa.load(layout.caDir());
        } else {
            log.accept("creating the EK CA (the nodes' TPM manufacturer) in " + layout.caDir());
            ca = LocalCa.create(layout.caDir(), "Sextant mini EK CA");
        }
        PrivateFiles.ownerOnly(layout.caKey());
        return ca;
    }

    public static void measurementsKey(MiniLayout layout, Consumer<String> log) throws IOException, GeneralSecurityException {
        PrivateFiles.directory(layout.measurementsKey().getParent());
        if (Files.isRegularFile(layout.measurementsKey())) {
            PrivateFiles.ownerOnly(layout.measurementsKey());
            return;
        }
        log.accept("creating the measurements signing key " + layout.measurementsKey());
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Files.createFile(layout.measurementsKey(),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(RW_OWNER)));
        writePem(layout.measurementsKey(), pair.getPrivate());
        writePem(layout.measurementsPublicKey(), pair.getPublic());
    }

    /** A new init secret (64 hex characters, the bytes `sextant init` reads from the file). */
    public static byte[] newInitSecret(MiniLayout layout) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String secret = HexFormat.of().formatHex(random);
        Files.deleteIfExists(layout.initSecret());
        Files.createFile(layout.initSecret(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(RW_OWNER)));
        Files.writeString(layout.initSecret(), secret + "\n");
        return secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    public static byte[] salt() {
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
