package dev.sextant.etcd.pki;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Set;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * The three PEM files one side of an etcd TLS connection reads: the CA it trusts, its certificate and
 * its private key (PKCS#8, which both etcd and Netty read). What etcd's {@code --trusted-ca-file},
 * {@code --cert-file} and {@code --key-file} (or their {@code --peer-} twins) and {@code EtcdClient} are given.
 */
public record EtcdTlsFiles(Path caFile, Path certFile, Path keyFile) {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

    /**
     * Writes {@code <dir>/ca.crt}, {@code <dir>/<name>.crt} and {@code <dir>/<name>.key} (the key 0600 from
     * the moment it exists, the certificates 0644). Each file is written beside its final name and
     * renamed over it, so etcd, which reads the files at every handshake, never reads half a file; the
     * key is renamed before the certificate, so a handshake between the two renames sees the old
     * certificate with the new key and fails once rather than serving a mismatched pair for longer.
     */
    public static EtcdTlsFiles write(Path dir, String name, X509Certificate ca, EtcdCredential credential) {
        try {
            Files.createDirectories(dir);
            EtcdTlsFiles files = new EtcdTlsFiles(dir.resolve("ca.crt"), dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
            replace(files.caFile, pem("CERTIFICATE", ca.getEncoded()), READABLE);
            replace(files.keyFile, pem("PRIVATE KEY", credential.privateKey().getEncoded()), OWNER_ONLY);
            replace(files.certFile, pem("CERTIFICATE", credential.certificate().getEncoded()), READABLE);
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write etcd TLS files " + name + ".crt/.key in " + dir + ": " + e.getMessage(), e);
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void replace(Path target, byte[] content, Set<PosixFilePermission> mode) throws IOException {
        Path temporary = target.resolveSibling("." + target.getFileName() + ".new");
        Files.deleteIfExists(temporary);
        Files.createFile(temporary, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        Files.write(temporary, content);
        Files.setPosixFilePermissions(temporary, mode);
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static byte[] pem(String type, byte[] der) throws IOException {
        StringWriter text = new StringWriter();
        try (PemWriter writer = new PemWriter(text)) {
            writer.writeObject(new PemObject(type, der));
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
