package dev.sextant.etcd.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("EtcdTlsFiles: the CA, certificate and key files etcd and the client read")
class EtcdTlsFilesTest {
    @TempDir
    Path dir;

    private final EtcdCa ca = new EtcdCa(EtcdCaTest.seed(3), new SecureRandom());

    @Test
    @DisplayName("the key file is 0600, the certificates 0644, and they read back as the CA, the certificate and a PKCS#8 key")
    void filesAndModes() throws Exception {
        EtcdCredential credential = ca.issueClient("cp-0", Instant.now(), Duration.ofDays(1));
        EtcdTlsFiles files = EtcdTlsFiles.write(dir.resolve("tls"), "cp-0", ca.certificate(), credential);

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.keyFile())));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.certFile())));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.caFile())));
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        assertEquals(ca.certificate(), x509.generateCertificate(new ByteArrayInputStream(Files.readAllBytes(files.caFile()))));
        assertEquals(credential.certificate(), x509.generateCertificate(new ByteArrayInputStream(Files.readAllBytes(files.certFile()))));
        String pem = Files.readString(files.keyFile());
        assertTrue(pem.startsWith("-----BEGIN PRIVATE KEY-----"));
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        assertEquals(credential.privateKey(), KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der)));
    }

    @Test
    @DisplayName("writing a renewed credential replaces the files in place, the key still 0600, and leaves no temporary file")
    void renewalReplaces() throws Exception {
        EtcdTlsFiles first = EtcdTlsFiles.write(dir, "m", ca.certificate(), ca.issueMember("m", java.util.List.of(), java.util.List.of(),
                Instant.now(), Duration.ofDays(1)));
        String before = Files.readString(first.certFile());
        EtcdTlsFiles second = EtcdTlsFiles.write(dir, "m", ca.certificate(), ca.issueMember("m", java.util.List.of(), java.util.List.of(),
                Instant.now(), Duration.ofDays(1)));
        assertEquals(first, second);
        assertNotEquals(before, Files.readString(second.certFile()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(second.keyFile())));
        try (var listing = Files.list(dir)) {
            assertEquals(java.util.Set.of("ca.crt", "m.crt", "m.key"),
                    listing.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet()));
        }
    }
}
